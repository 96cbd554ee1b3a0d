"""A close rewrite of an evidence sentence that the entailment model reads as a clear
contradiction: a changed condition, direction, comparison or quantifier ("unless" for "when",
"down to" for "up to", "some" for "every").

The cross-encoder's contradiction reading alone decides only here, where the claim rewrites
one evidence sentence closely and differs from it in one of those words: elsewhere it has read
faithful rewordings ("has to be reported" for "is reported") as contradictions. It is vetoed
where another analysis knows better: the claim states a value of the evidence in other units
(it read "60 minutes" for "1 hour" as a contradiction), repeats the sentence word for word, or
only words a negation or modal the evidence's way round ("cannot" for "must not": the polarity
analysis agrees), or states a condition in its other form ("only if" for "not ... unless").
"""

from __future__ import annotations

import re

from pydantic import Field

from audit_pipeline.records.verdicts import Label
from audit_pipeline.verification.entailment import entailment_files
from audit_pipeline.verification.features import Alignment, alignment_analysis, verbatim
from audit_pipeline.verification.polarity import polarity_analysis
from audit_pipeline.verification.signals import MEANING_SHIFTS, MODAL_OR_NEGATION, negation_count
from audit_pipeline.verification.specifics_check import (
    Grounding,
    SpecificFinding,
    specifics_analysis,
)
from audit_pipeline.verification.stages.base import stage
from audit_pipeline.verification.stages.cases import ClaimCase
from audit_pipeline.verification.stages.check import Check, CheckParams, Flaw

_WORDS = re.compile(r"\w+")


class EntailmentParams(CheckParams):
    # The model's contradiction probability, and the share of the claim's words its closest
    # evidence sentence holds, from which a close rewrite reads as a clear contradiction.
    contradicted: float = Field(default=0.9, ge=0.0, le=1.0)
    coverage: float = Field(default=0.85, ge=0.0, le=1.0)


@stage
class EntailmentCheck(Check[EntailmentParams]):
    name = "entailment"
    version = "2"
    Params = EntailmentParams

    def files(self) -> dict[str, str]:
        return entailment_files()

    def find(self, case: ClaimCase) -> Flaw | None:
        params = self.params
        alignment = case.analysis(alignment_analysis)
        features = alignment.features
        best = alignment.best_sentence
        if (
            features["nli_contradicted"] < params.contradicted
            or features["lex_best"] < params.coverage
            or best is None
            or verbatim(alignment)
        ):
            return None
        if case.analysis(polarity_analysis).agrees and _only_modal_change(alignment):
            return None
        if not _shifts_meaning(alignment) or _restated_values(case.analysis(specifics_analysis)):
            return None
        if _condition_restated(alignment.claim, best.text):
            return None
        return Flaw(
            Label.CONTRADICTED,
            f"the entailment model reads it as a contradiction of "
            f"{best.text!r} ({features['nli_contradicted']:.2f})",
        )


def _restated_values(findings: tuple[SpecificFinding, ...]) -> bool:
    """The claim states one of the evidence's values in other words or units."""
    return any(
        f.status is Grounding.GROUNDED
        and f.specific.is_value
        and f.counterpart
        and f.counterpart.lower() not in f.specific.surface.lower()
        and f.specific.surface.lower() not in f.counterpart.lower()
        for f in findings
    )


_ONLY_IF = re.compile(r"\bonly (?:if|when|while|with|after|once)\b", re.IGNORECASE)
_UNLESS = re.compile(r"\bunless\b", re.IGNORECASE)


def _condition_restated(claim: str, evidence: str) -> bool:
    """ "may be refrozen only if it has been cooked" says what "is not refrozen unless it has
    been cooked" says: a condition in its other form, one side negated and the other not. The
    model reads the pair as a contradiction (the words differ in "only", "unless" and "not")."""
    for one, other in ((claim, evidence), (evidence, claim)):
        if _ONLY_IF.search(one) and _UNLESS.search(other) and not _UNLESS.search(one):
            return (negation_count(one) == 0) != (negation_count(other) == 0)
    return False


def _shifts_meaning(alignment: Alignment) -> bool:
    """The claim and its closest sentence differ in a condition, direction, comparison or
    quantifier word: the changes the entailment model reads reliably."""
    best = alignment.best_sentence
    if best is None:
        return False
    changed = set(_WORDS.findall(alignment.claim.casefold())) ^ set(
        _WORDS.findall(best.text.casefold())
    )
    return bool(changed & MEANING_SHIFTS)


def _only_modal_change(alignment: Alignment) -> bool:
    """The claim and its closest sentence differ only in negation and modal words."""
    best = alignment.best_sentence
    if best is None:
        return False

    def content(text: str) -> set[str]:
        words = set(_WORDS.findall(text.casefold()))
        return {w for w in words if w not in MODAL_OR_NEGATION and not w.endswith("n't")}

    return content(alignment.claim) == content(best.text)
