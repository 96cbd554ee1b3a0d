"""Definitional claims checked against the sample glossary and a SKOSMOS server on 127.0.0.1,
through the real validation engine (embedder, sentence extractor, local verifier)."""

from __future__ import annotations

from pathlib import Path

import pytest

from audit_pipeline.claims import SentenceClaimExtractor
from audit_pipeline.terminology.glossary import GlossaryError, load_glossary
from audit_pipeline.terminology.lookup import term_metric
from audit_pipeline.terminology.settings import SkosmosSettings, build_terminology
from audit_pipeline.validation.engine import AnswerValidator
from audit_pipeline.validation.settings import ValidationSettings
from audit_pipeline.verification.configured import local_chain
from audit_pipeline_tests.helpers import SAMPLE_VAULT
from audit_pipeline_tests.terminology.skosmos_server import (
    BASE_URI,
    VOCAB,
    Thesaurus,
    skosmos_server,
)

GLOSSARY = SAMPLE_VAULT / "glossary.yaml"
BACKUP_STANDARD = (SAMPLE_VAULT / "business-continuity-and-backup-standard.md").read_text()
RPO = "The RPO is the maximum period of data loss that is accepted after a disaster."
COUNTERS = ("lookup", "hit", "miss", "timeout", "cache_hit")


def _validator(embedder, terminology) -> AnswerValidator:  # type: ignore[no-untyped-def]
    return AnswerValidator(
        embedder=embedder,
        extractor=SentenceClaimExtractor(),
        verifier=local_chain(embedder),
        settings=ValidationSettings(),
        terminology=terminology,
    )


@pytest.fixture(scope="module")
def glossary_validator(embedder) -> AnswerValidator:  # type: ignore[no-untyped-def]
    return _validator(embedder, build_terminology(GLOSSARY, None))


def _counters() -> dict[str, float]:
    return {name: term_metric(f"term_{name}_total") for name in COUNTERS}


def _delta(before: dict[str, float]) -> dict[str, float]:
    return {k: v - before[k] for k, v in _counters().items() if v != before[k]}


def test_glossary_hit_cites_the_definition(glossary_validator: AnswerValidator) -> None:
    before = _counters()
    result = glossary_validator.validate(
        "What is an RPO?", f"{RPO} [source: glossary.yaml]", [BACKUP_STANDARD]
    ).to_dict()

    (claim,) = result["claims"]
    assert claim["label"] == "supported"
    (definition,) = claim["provenance"]  # the glossary definition replaced the vault passages
    assert definition["chunk_id"] == "glossary:rpo" and definition["supports"]
    assert definition["source"] == "glossary" and definition["document"] == "glossary.yaml"
    assert result["citation_class"] == "fully_cited"
    assert result["terminology"][0]["status"] == "hit"
    assert _delta(before) == {"lookup": 1, "hit": 1}


def test_a_different_definition_of_a_known_term_is_unsupported(
    glossary_validator: AnswerValidator,
) -> None:
    wrong = "The RPO is the maximum time until a service is available again."
    (claim,) = glossary_validator.validate("What is an RPO?", wrong, [BACKUP_STANDARD]).claims
    assert str(claim.verdict.label) == "unsupported"
    assert claim.verdict.justification.startswith("definition_mismatch")


def test_unknown_term_is_terminology_not_found(glossary_validator: AnswerValidator) -> None:
    before = _counters()
    answer = "FooBarBaz is a protocol for exchanging ledger data."
    result = glossary_validator.validate("What is FooBarBaz?", answer, [BACKUP_STANDARD])

    (claim,) = result.claims
    assert str(claim.verdict.label) == "unsupported" and result.hallucinated
    assert claim.verdict.justification.startswith("terminology_not_found")
    assert claim.verdict.supporting_chunk_ids == ()
    assert all(p.source != "glossary" for p in claim.evidence)  # nothing made up
    assert _delta(before) == {"lookup": 1, "miss": 1}


def test_ordinary_descriptions_are_not_terminology(glossary_validator: AnswerValidator) -> None:
    answer = "Backups are the daily snapshots of production databases."
    result = glossary_validator.validate("How are backups taken?", answer, [BACKUP_STANDARD])
    assert result.terminology == []


def test_a_label_of_two_concepts_is_flagged_ambiguous(
    glossary_validator: AnswerValidator,
) -> None:
    answer = "DR is the restoration of systems and data at an alternate site after a disaster."
    result = glossary_validator.validate("What is DR?", answer, [BACKUP_STANDARD]).to_dict()

    (lookup,) = result["terminology"]
    assert lookup["status"] == "ambiguous"
    assert {c["id"] for c in lookup["concepts"]} == {"disaster-recovery", "data-residency"}
    (claim,) = result["claims"]
    assert "ambiguous term 'DR': 2 concepts" in claim["justification"]
    assert {p["chunk_id"] for p in claim["provenance"]} == {
        "glossary:disaster-recovery",
        "glossary:data-residency",
    }


def _thesaurus(delay_s: float = 0.0) -> Thesaurus:
    uri = f"{BASE_URI}rpo"
    definition = "The maximum period of data loss that is accepted after a disaster."
    return Thesaurus(
        labels={"rpo": [uri], "recovery point objective": [uri]},
        concepts={uri: ("Recovery point objective", definition, "RPO")},
        delay_s=delay_s,
    )


def test_remote_hit_is_cached_and_miss_is_404(embedder) -> None:  # type: ignore[no-untyped-def]
    thesaurus = _thesaurus()
    with skosmos_server(thesaurus) as url:
        settings = SkosmosSettings(url=url, vocabulary=VOCAB, timeout_s=2.0)
        validator = _validator(embedder, build_terminology(None, settings))
        before = _counters()
        first = validator.validate("What is an RPO?", RPO, [BACKUP_STANDARD])
        calls = len(thesaurus.requests)
        second = validator.validate("What is an RPO?", RPO, [BACKUP_STANDARD])
        missing = validator.validate("What is FBZ?", "FBZ is a ledger format.", [BACKUP_STANDARD])

    for result in (first, second):
        (claim,) = result.claims
        assert str(claim.verdict.label) == "supported", claim.verdict.justification
        assert claim.evidence[0].document == f"{BASE_URI}rpo"  # cites the thesaurus concept
    assert calls == 2  # lookup + data; the root concept without a definition is skipped
    assert len(thesaurus.requests) == calls + 1  # the second lookup came from the cache
    assert second.terminology[0]["cached"] is True
    assert missing.claims[0].verdict.justification.startswith("terminology_not_found")
    assert _delta(before) == {"lookup": 3, "hit": 2, "cache_hit": 1, "miss": 1}


def test_slow_remote_is_unverified_terminology(embedder) -> None:  # type: ignore[no-untyped-def]
    with skosmos_server(_thesaurus(delay_s=1.5)) as url:
        settings = SkosmosSettings(url=url, vocabulary=VOCAB, timeout_s=0.3)
        validator = _validator(embedder, build_terminology(None, settings))
        before = _counters()
        result = validator.validate("What is an RPO?", RPO, [BACKUP_STANDARD])
        again = validator.validate("What is an RPO?", RPO, [BACKUP_STANDARD])

    (claim,) = result.claims
    assert str(claim.verdict.label) == "unverifiable"
    assert claim.verdict.justification.startswith("unverified terminology")
    assert all(p.source != "glossary" for p in claim.evidence)  # no definition invented
    assert again.terminology[0]["status"] == "timeout"  # a timeout is not cached
    assert _delta(before) == {"lookup": 2, "timeout": 2}


def test_csv_and_turtle_glossaries(tmp_path: Path) -> None:
    csv_file = tmp_path / "terms.csv"
    csv_file.write_text(
        "term,definition,alt_labels\nSingle sign-on,One login for many apps.,SSO|Sign-on\n"
    )
    ttl = tmp_path / "terms.ttl"
    ttl.write_text(
        "@prefix skos: <http://www.w3.org/2004/02/skos/core#> .\n"
        '<urn:x:sso> skos:prefLabel "Single sign-on"@en, "Authentification unique"@fr ;\n'
        '  skos:altLabel "SSO"@en ; skos:definition "One login for many apps."@en .\n'
    )
    for path in (csv_file, ttl):
        (concept,) = load_glossary(path).lookup("sso")
        assert concept.term == "Single sign-on"
        assert concept.definition == "One login for many apps."
    assert load_glossary(ttl).lookup("SSO")[0].source == "terms.ttl"


@pytest.mark.parametrize(
    ("name", "text", "message"),
    [
        (
            "g.yaml",
            "terms:\n  - term: RPO\n    definition: ok\n  - term: RTO\n",
            "entry 2 (line 4): field 'definition'",
        ),
        (
            "g.yaml",
            "terms:\n  - term: RPO\n    definiton: ok\n",
            "entry 1 (line 2): unknown field 'definiton'",
        ),
        ("g.yaml", "terms: [\n", "YAML syntax error"),
        ("g.csv", "term,definition\nRPO,ok\nRTO,\n", "line 3: field 'definition'"),
        ("g.csv", "term,meaning\nRPO,ok\n", "line 1: missing column 'definition'"),
        (
            "g.ttl",
            "@prefix skos: <http://www.w3.org/2004/02/skos/core#> .\n"
            '<urn:x> skos:prefLabel "X" .\n',
            "concept <urn:x>: field 'skos:definition'",
        ),
        ("g.ttl", "<urn:x> <urn:p> .\n", "Turtle syntax error"),
        ("g.json", "{}", "unknown glossary format"),
    ],
)
def test_malformed_glossary_names_file_entry_and_field(
    tmp_path: Path, name: str, text: str, message: str
) -> None:
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(GlossaryError) as error:
        load_glossary(path)
    assert str(error.value).startswith(str(path)) and message in str(error.value)
