from collections.abc import Sequence

import pytest

from audit_pipeline.claims import Claim, make_claim
from audit_pipeline.records.evidence import EvidencePassage
from audit_pipeline.verification import CascadeVerifier, Label, LLMJudgeVerifier, Verdict
from audit_pipeline_tests.verification.fake_llm import ScriptedLLM, scripted_provider

RESPONSE = "Alpha is one. Beta is two. Gamma is three. Delta is four."
CLAIMS = [make_claim(RESPONSE, i, i + 12, "sentence") for i in (0, 14, 27, 43)]


class FixedVerifier:
    """A stand-in local verifier with fixed probabilities, to make the band explicit."""

    name = "fixed"
    version = "1"

    def __init__(self, probabilities: Sequence[float], decided_by: Sequence[str] = ()) -> None:
        self.probabilities = list(probabilities)
        self.decided_by = list(decided_by) or ["model"] * len(self.probabilities)

    def verify(
        self, claims: Sequence[Claim], evidence: Sequence[Sequence[EvidencePassage]]
    ) -> list[Verdict]:
        return [
            Verdict(
                label=Label.SUPPORTED if p >= 0.5 else Label.UNSUPPORTED,
                probability=p,
                justification="fixed",
                supporting_chunk_ids=(),
                verifier=self.name,
                verifier_version=self.version,
                decided_by=who,
            )
            for p, who in zip(self.probabilities[: len(claims)], self.decided_by, strict=False)
        ]


def test_only_in_band_claims_go_to_the_judge() -> None:
    reply = (
        '{"label": "contradicted", "probability": 0.02, "justification": "no", '
        '"supporting_chunk_ids": []}'
    )
    llm = ScriptedLLM([reply])
    with scripted_provider(llm) as model:
        cascade = CascadeVerifier(
            FixedVerifier([0.05, 0.45, 0.7, 0.98]), LLMJudgeVerifier(model), band=(0.3, 0.8)
        )
        verdicts = cascade.verify(CLAIMS, [[] for _ in CLAIMS])
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
        cascade = CascadeVerifier(FixedVerifier([0.6]), LLMJudgeVerifier(model), band=(0.3, 0.8))
        [verdict] = cascade.verify(CLAIMS[:1], [[]])
    assert verdict.label is Label.SUPPORTED and verdict.decided_by == "model"
    assert "Judge:" in verdict.justification


def test_band_is_validated() -> None:
    with pytest.raises(ValueError):
        CascadeVerifier(FixedVerifier([]), FixedVerifier([]), band=(0.9, 0.1))


def test_a_claim_a_check_decided_is_not_sent_to_the_judge() -> None:
    """Only claims whose specifics are grounded and whose reading is uncertain are asked
    about: a value that clashes with the evidence is a checked fact, in the band or not."""
    llm = ScriptedLLM([])
    with scripted_provider(llm) as model:
        cascade = CascadeVerifier(
            FixedVerifier([0.4, 0.45], ["specifics", "polarity"]),
            LLMJudgeVerifier(model),
            band=(0.3, 0.8),
        )
        verdicts = cascade.verify(CLAIMS[:2], [[], []])
    assert llm.calls == []
    assert [v.decided_by for v in verdicts] == ["specifics", "polarity"]
