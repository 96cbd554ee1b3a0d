"""The verifier as declared stages (issue 30): ``detection.stages`` composes named, versioned,
parameterised stages; the deciding stage names the verdict; the chain's identity moves with any
stage's name, version, parameters or model; a chain with no deciding stage reads nothing."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from audit_pipeline.cli import main
from audit_pipeline.config import ConfigError, load_config
from audit_pipeline.embedding import SentenceTransformerEmbedder
from audit_pipeline.index.lance_index import VaultIndex
from audit_pipeline.index.retrieval import HybridRetriever
from audit_pipeline.records.verdicts import Label
from audit_pipeline.verification.configured import build_verifier, local_chain
from audit_pipeline.verification.detection_settings import DetectionSettings
from audit_pipeline.verification.scorer import LocalModel
from audit_pipeline.verification.stages.chain import NOT_MEASURED, UNDECIDED, VerifierChain
from audit_pipeline.verification.stages.registry import build_stage, registered
from audit_pipeline.verification.stages.specifics import SpecificsCheck
from audit_pipeline_tests.helpers import write_audit_config
from audit_pipeline_tests.verification.test_sample_vault_claims import verdicts

WRONG_DEADLINE = "A lost laptop must be reported to the Security team within 3 days."
DENIAL = "I do not enforce multi-factor authentication."
DEFAULT = [
    "specifics",
    "polarity",
    "direction",
    "modality",
    "agent",
    "condition",
    "scope",
    "rewrite",
    "entailment",
    "model",
    "staleness",
    "glossary",
    "mark",
]


@pytest.fixture(scope="module")
def retriever(sample_index_dir: Path, embedder: SentenceTransformerEmbedder) -> HybridRetriever:
    return HybridRetriever(VaultIndex(sample_index_dir, embedder))


def _names(settings: DetectionSettings) -> list[str]:
    return [spec.name for spec in settings.chain()]


def test_the_chain_each_verifier_setting_names() -> None:
    assert _names(DetectionSettings()) == DEFAULT
    cascade = DetectionSettings(verifier="cascade", cascade_band=(0.2, 0.7))
    after_model = DEFAULT.index("model") + 1
    assert _names(cascade) == [*DEFAULT[:after_model], "judge", *DEFAULT[after_model:]]
    assert cascade.chain()[after_model].params == {"band": [0.2, 0.7]}
    llm = DetectionSettings(verifier="llm")
    assert _names(llm) == ["judge", "staleness", "glossary", "mark"]
    assert llm.chain()[0].params == {"claims": "all"}
    assert set(DEFAULT) | {"judge", "reader"} <= set(registered())


def _load(tmp_path: Path, detection: object) -> object:
    path = write_audit_config(tmp_path, detection=detection)
    return load_config(path)


def test_yaml_names_stages_alone_or_with_their_parameters(tmp_path: Path) -> None:
    config = _load(
        tmp_path, {"stages": ["specifics", {"rewrite": {"aligned_cosine": 0.7}}, "model"]}
    )
    chain = config.detection.chain()  # type: ignore[attr-defined]
    assert [(s.name, s.params) for s in chain] == [
        ("specifics", {}),
        ("rewrite", {"aligned_cosine": 0.7}),
        ("model", {}),
    ]
    built = build_verifier(config.detection, None)  # type: ignore[attr-defined]
    [rewrite] = [s for s in built.describe() if s["name"] == "rewrite"]
    assert rewrite["params"]["aligned_cosine"] == 0.7


@pytest.mark.parametrize(
    ("detection", "message"),
    [
        ({"checks": ["specifics"]}, "detection.checks: .*replaced by detection.stages"),
        ({"stages": ["spelling"]}, "unknown stage 'spelling'; known: .*specifics"),
        ({"stages": [{"rewrite": {"cosine": 0.7}}]}, "stage 'rewrite': cosine: Extra inputs"),
        ({"stages": [{"rewrite": {"aligned_cosine": "high"}}]}, "stage 'rewrite': aligned_cos"),
        ({"stages": ["model", "model"]}, "each stage once, repeated: model"),
        ({"stages": ["model"], "verifier": "cascade"}, "the chain replaces verifier"),
        ({"stages": [{"judge": {"band": [0.9, 0.1]}}]}, "band must satisfy"),
    ],
)
def test_a_wrong_chain_is_refused_when_the_configuration_loads(
    tmp_path: Path, detection: object, message: str
) -> None:
    with pytest.raises(ConfigError, match=message):
        _load(tmp_path, detection)


def test_the_deciding_check_names_the_verdict_and_a_chain_without_it_decides_otherwise(
    retriever: HybridRetriever, embedder: SentenceTransformerEmbedder
) -> None:
    full = build_verifier(DetectionSettings(), embedder)
    wrong, denied = verdicts([WRONG_DEADLINE, DENIAL], retriever, full)
    assert (wrong.label, wrong.decided_by) == (Label.CONTRADICTED, "specifics")
    assert wrong.justification.startswith("Contradicted (specifics): ")
    assert (denied.label, denied.decided_by) == (Label.CONTRADICTED, "polarity")

    stages = [s for s in DEFAULT if s != "specifics"]
    without = build_verifier(DetectionSettings(stages=stages), embedder)
    # Another chain is another verifier: its verdicts are not carried over, and the figures
    # measured for the shipped chain are not quoted for it.
    assert without.version != full.version and without.digest != full.digest
    assert without.quality == NOT_MEASURED
    wrong_alone, denied_again = verdicts([WRONG_DEADLINE, DENIAL], retriever, without)
    assert wrong_alone.decided_by != "specifics"
    assert "(specifics)" not in wrong_alone.justification
    assert (denied_again.label, denied_again.decided_by) == (Label.CONTRADICTED, "polarity")


def test_with_no_check_the_learned_model_decides_every_claim(
    retriever: HybridRetriever, embedder: SentenceTransformerEmbedder
) -> None:
    bare = build_verifier(DetectionSettings(stages=["model"]), embedder)
    found = verdicts([WRONG_DEADLINE, DENIAL], retriever, bare)
    assert {v.decided_by for v in found} == {"model"}
    assert not any(v.justification.startswith(("Contradicted (", "Unsupported (")) for v in found)


def test_a_chain_no_stage_of_which_decides_leaves_every_claim_unverifiable(
    retriever: HybridRetriever, embedder: SentenceTransformerEmbedder
) -> None:
    """Four plain falsehoods must not pass as supported because nothing read them."""
    idle = build_verifier(DetectionSettings(stages=["staleness", "glossary"]), embedder)
    found = verdicts([WRONG_DEADLINE, DENIAL], retriever, idle)
    assert [(v.label, v.decided_by) for v in found] == [(Label.UNVERIFIABLE, "none")] * 2
    assert all(v.justification == UNDECIDED for v in found)


def test_the_identity_moves_with_a_stage_version_parameter_or_model(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    shipped = local_chain(None)
    again = local_chain(None)
    assert (again.identity, again.digest) == (shipped.identity, shipped.digest)
    tuned = VerifierChain(
        [
            build_stage("specifics", {"unsupported_probability": 0.1}),
            *shipped.stages[1:],
        ]
    )
    assert tuned.digest != shipped.digest and tuned.identity != shipped.identity
    monkeypatch.setattr(SpecificsCheck, "version", str(int(SpecificsCheck.version) + 1))
    bumped = local_chain(None)
    assert bumped.digest != shipped.digest and bumped.identity != shipped.identity


def test_the_verifier_command_lists_the_chain_with_versions(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = write_audit_config(
        tmp_path, detection={"stages": ["specifics", {"model": {"answer_level": False}}]}
    )
    assert main(["--config", str(config), "verifier", "--json", str(tmp_path / "c.json")]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert lines[0].startswith("verifier chain 'local': identity ")
    assert any(line.split()[:3] == ["1", "specifics", SpecificsCheck.version] for line in lines)
    shipped = f"{LocalModel.load().version}.json@"
    assert any("answer_level=false" in line and shipped in line for line in lines)
    assert f"measured: {NOT_MEASURED}" in lines
    assert lines[-1] == "on marks: no marked claims yet (audit-pipeline mark)"
    described = yaml.safe_load((tmp_path / "c.json").read_text())
    assert [s["name"] for s in described["stages"]] == ["specifics", "model"]
