"""The second reading: only what the learned reading labelled inside the band goes to the
judge; a check's decision never does; a failed judge leaves the earlier verdict standing."""

from collections.abc import Sequence
from pathlib import Path

import pytest
from pydantic import ValidationError

from audit_pipeline.claims import make_claim
from audit_pipeline.embedding import SentenceTransformerEmbedder
from audit_pipeline.index.lance_index import VaultIndex
from audit_pipeline.index.retrieval import HybridRetriever
from audit_pipeline.llm.judge_settings import JudgeSettings
from audit_pipeline.records.verdicts import Label
from audit_pipeline.verification import LLMJudgeVerifier, VerifierChain, verify_answer
from audit_pipeline.verification.configured import build_verifier
from audit_pipeline.verification.detection_settings import DetectionSettings
from audit_pipeline.verification.stages.base import Finding, Role, Stage
from audit_pipeline.verification.stages.cases import ClaimCase
from audit_pipeline.verification.stages.second_reading import JudgeStage, SecondReadingParams
from audit_pipeline_tests.verification.fake_llm import ScriptedLLM, scripted_provider
from audit_pipeline_tests.verification.test_judge import verdict_json
from audit_pipeline_tests.verification.test_sample_vault_claims import (
    FALSEHOODS,
    PARAPHRASES,
    verdicts,
)

RESPONSE = "Alpha is one. Beta is two. Gamma is three. Delta is four."
CLAIMS = [make_claim(RESPONSE, i, i + 12, "sentence") for i in (0, 14, 27, 43)]


class FixedReading(Stage):
    """A stand-in learned reading with fixed probabilities, to make the band explicit."""

    name = "model"
    version = "test"
    role = Role.READING

    def __init__(self, probabilities: Sequence[float]) -> None:
        super().__init__()
        self.probabilities = list(probabilities)

    def judge(self, case: ClaimCase) -> Finding | None:
        if case.label is not None:  # a check decided: the reading keeps its label
            return None
        p = self.probabilities[case.index]
        return Finding(Label.SUPPORTED if p >= 0.5 else Label.UNSUPPORTED, "fixed", p)


class FixedCheck(Stage):
    """A stand-in check that contradicts one claim."""

    version = "test"

    def __init__(self, name: str, index: int) -> None:
        super().__init__()
        self.name = name  # type: ignore[misc]
        self.index = index

    def judge(self, case: ClaimCase) -> Finding | None:
        if case.index != self.index:
            return None
        return Finding(Label.CONTRADICTED, f"Contradicted ({self.name})", 0.05)


def cascade(
    first: Sequence[Stage], judge: LLMJudgeVerifier, band: tuple[float, float] = (0.3, 0.8)
) -> VerifierChain:
    second = JudgeStage(SecondReadingParams(band=band), reader=judge)
    return VerifierChain([*first, second], name="cascade")


def test_only_in_band_claims_go_to_the_judge() -> None:
    reply = (
        '{"label": "contradicted", "probability": 0.02, "justification": "no", '
        '"supporting_chunk_ids": []}'
    )
    llm = ScriptedLLM([reply])
    with scripted_provider(llm) as model:
        chain = cascade([FixedReading([0.05, 0.45, 0.7, 0.98])], LLMJudgeVerifier(model))
        verdicts = verify_answer(chain, CLAIMS, [[] for _ in CLAIMS]).verdicts
    assert len(llm.calls) == 2
    judged = {c["content"].split(">>>\n")[1].split("\n")[0] for call in llm.calls for c in call[1:]}
    assert judged == {CLAIMS[1].text, CLAIMS[2].text}
    assert [v.decided_by for v in verdicts] == ["model", "judge", "judge", "model"]
    assert [v.label for v in verdicts] == [
        Label.UNSUPPORTED,
        Label.CONTRADICTED,
        Label.CONTRADICTED,
        Label.SUPPORTED,
    ]
    assert all(v.verifier == "cascade" for v in verdicts)


def test_failed_judge_keeps_the_local_verdict() -> None:
    llm = ScriptedLLM(["garbage", "still garbage"])
    with scripted_provider(llm) as model:
        chain = cascade([FixedReading([0.6])], LLMJudgeVerifier(model))
        [verdict] = verify_answer(chain, CLAIMS[:1], [[]]).verdicts
    assert verdict.label is Label.SUPPORTED and verdict.decided_by == "model"
    assert "Judge:" in verdict.justification
    assert verdict.judge_calls == 2  # the failed judge is still paid


def test_band_is_validated() -> None:
    with pytest.raises(ValidationError, match="band"):
        SecondReadingParams(band=(0.9, 0.1))


def test_a_claim_a_check_decided_is_not_sent_to_the_judge() -> None:
    """Only claims whose reading is uncertain are asked about: a value that clashes with the
    evidence is a checked fact, in the band or not."""
    llm = ScriptedLLM([])
    with scripted_provider(llm) as model:
        chain = cascade(
            [FixedCheck("specifics", 0), FixedCheck("polarity", 1), FixedReading([0.4, 0.45])],
            LLMJudgeVerifier(model),
        )
        verdicts = verify_answer(chain, CLAIMS[:2], [[], []]).verdicts
    assert llm.calls == []
    assert [v.decided_by for v in verdicts] == ["specifics", "polarity"]


@pytest.mark.slow
def test_the_cascade_equals_the_local_verifier_outside_its_band(
    sample_index_dir: Path, embedder: SentenceTransformerEmbedder
) -> None:
    """The same answer (falsehoods and faithful restatements of the sample vault together, so
    the answer-level reading moves some labels) through the local chain and through the
    cascade: every claim the judge was not asked about has the local verdict, label,
    probability and deciding stage alike; the judge is asked about exactly the claims the
    learned model labelled inside the band."""
    retriever = HybridRetriever(VaultIndex(sample_index_dir, embedder))
    texts = [claim for claim, _, _ in FALSEHOODS[:4]] + PARAPHRASES[:6]
    local = build_verifier(DetectionSettings(), embedder)
    alone = verdicts(texts, retriever, local)
    by_model = [v for v in alone if v.decided_by == "model"]
    assert by_model and len(by_model) < len(alone)
    band = (by_model[0].probability, by_model[0].probability)  # one claim's p: non-vacuous
    llm = ScriptedLLM([verdict_json("supported", 0.9, ())])
    with scripted_provider(llm) as model:
        settings = DetectionSettings(
            verifier="cascade", cascade_band=band, judge=JudgeSettings(model=model)
        )
        cascaded = verdicts(texts, retriever, build_verifier(settings, embedder))
    asked = [i for i, v in enumerate(alone) if v.decided_by == "model" and v.probability == band[0]]
    assert [i for i, v in enumerate(cascaded) if v.judge_calls] == asked
    assert len(llm.calls) == len(asked)
    for index, (mine, theirs) in enumerate(zip(alone, cascaded, strict=True)):
        if index in asked:
            assert theirs.decided_by == "judge"
        else:
            assert (theirs.label, theirs.probability, theirs.decided_by) == (
                mine.label,
                mine.probability,
                mine.decided_by,
            )


class SuspectReading(FixedReading):
    """A learned reading that flags its answer as suspect on one claim, keeping its label."""

    def __init__(self, probabilities: Sequence[float], suspect: int) -> None:
        super().__init__(probabilities)
        self.suspect = suspect

    def judge(self, case: ClaimCase) -> Finding | None:
        found = super().judge(case)
        if found is None or case.index != self.suspect:
            return found
        return Finding(found.label, found.explanation, found.probability, answer_suspect=True)


def test_the_claims_of_a_suspect_answer_go_to_the_judge_outside_the_band() -> None:
    """Issue 31 item 5: a suspect answer is sent to the second reader where one is configured;
    its claims keep their labels until the reader decides."""
    supported = (
        '{"label": "supported", "probability": 0.9, "justification": "yes", '
        '"supporting_chunk_ids": []}'
    )
    llm = ScriptedLLM([supported, supported])
    with scripted_provider(llm) as model:
        chain = cascade([SuspectReading([0.95, 0.9], suspect=1)], LLMJudgeVerifier(model))
        verified = verify_answer(chain, CLAIMS[:2], [[], []])
    assert len(llm.calls) == 2  # both claims of the suspect answer, though above the band
    assert verified.suspect and not verified.hallucinated
    assert [v.answer_suspect for v in verified.verdicts] == [False, True]
