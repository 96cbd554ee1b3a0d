"""A claim that closely rewrites an evidence sentence: the words it changed decide.

A close rewrite that negates the sentence, swaps a word for its opposite, a month or a number,
flips a yes/no field, or that the entailment model reads as a clear contradiction (a changed
condition, direction or quantifier) contradicts it; one that adds a number or name the evidence
lacks, or weakens a quantifier, is unsupported. ``features.py`` finds the edits.
"""

from __future__ import annotations

import re

from audit_pipeline.records.verdicts import Label
from audit_pipeline.verification.checks.finding import Finding
from audit_pipeline.verification.features import Alignment
from audit_pipeline.verification.signals import MEANING_SHIFTS, MODAL_OR_NEGATION
from audit_pipeline.verification.specifics_check import Grounding

_WORDS = re.compile(r"\w+")


class RewriteCheck:
    name = "rewrite"

    def find(self, alignment: Alignment) -> Finding | None:
        conflict = _rewrite_conflict(alignment)
        if conflict:
            return Finding(Label.CONTRADICTED, self.name, conflict)
        if _unsupported_rewrite(alignment):
            return Finding(Label.UNSUPPORTED, self.name, "; ".join(alignment.notes))
        return None


# A conflict only means "contradicted" when the evidence sentence it was found against is about
# the same thing as the claim; otherwise the claim is merely unsupported.
ALIGNED_COSINE = 0.6
ALIGNED_COVERAGE = 0.6
# The entailment model's contradiction reading alone decides only for a close rewrite of an
# evidence sentence that it reads as a clear contradiction (a changed condition, direction or
# quantifier), where no other check knows better (``local.py`` explains why not elsewhere).
NLI_HARD_CONTRADICTED = 0.9
NLI_HARD_COVERAGE = 0.85
# A close rewrite of an evidence sentence that brings in a name the evidence never uses ("in
# Paris" where it says Berlin, "as confirmed by X") is unsupported whatever the answer-level
# model says. Measured: RAGTruth F1 -0.004 (noise), vault entity-swap probes 0.42 -> 0.96.
NAME_REWRITE_COVERAGE = 0.7


def _rewrite_conflict(alignment: Alignment) -> str:
    """Why a close rewrite or a flag contradicts the evidence ("" when nothing does): a close
    rewrite that negates an evidence sentence or swaps a word for its opposite, a month or a
    number; an opposite word against a well-aligned sentence; a flipped yes/no field; a close
    rewrite the entailment model reads as a clear contradiction (a changed condition, direction
    or quantifier: "unless" for "when", "down to" for "up to"). The model's reading is vetoed
    where a check knows better: the claim states a value of the evidence in other units (it
    read "60 minutes" for "1 hour" as a contradiction), or it only words a negation or modal
    the evidence's way round otherwise ("cannot" for "must not": the polarity check agrees)."""
    features = alignment.features
    aligned = features["cos_max"] >= ALIGNED_COSINE or features["lex_best"] >= ALIGNED_COVERAGE
    if alignment.conflicts and (aligned or features["field_flipped"] > 0):
        return "; ".join(alignment.conflicts)
    if (
        features["nli_contradicted"] >= NLI_HARD_CONTRADICTED
        and features["lex_best"] >= NLI_HARD_COVERAGE
        and alignment.best_sentence is not None
        and not verbatim(alignment)
        and not (alignment.stance_agrees and _only_modal_change(alignment))
        and _shifts_meaning(alignment)
        and not _restated_values(alignment)
    ):
        return (
            f"the entailment model reads it as a contradiction of "
            f"{alignment.best_sentence.text!r} ({features['nli_contradicted']:.2f})"
        )
    return ""


def _restated_values(alignment: Alignment) -> bool:
    """The claim states one of the evidence's values in other words or units."""
    return any(
        f.status is Grounding.GROUNDED
        and f.specific.is_value
        and f.counterpart
        and f.counterpart.lower() not in f.specific.surface.lower()
        and f.specific.surface.lower() not in f.counterpart.lower()
        for f in alignment.specifics
    )


def _shifts_meaning(alignment: Alignment) -> bool:
    """The claim and its closest sentence differ in a condition, direction, comparison or
    quantifier word: the changes the entailment model reads reliably. Other rewordings ("has to
    be reported" for "is reported") it has read as contradictions."""
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


def verbatim(alignment: Alignment) -> bool:
    """The claim repeats its best evidence sentence word for word (case, punctuation and
    Markdown aside). The entailment model has read such copies as contradictions (a table row,
    a list item quoted by the vault bot's extractive fallback); a copy cannot contradict its
    source, so the model's reading alone does not make it contradicted."""
    best = alignment.best_sentence
    return best is not None and _WORDS.findall(alignment.claim.casefold()) == _WORDS.findall(
        best.text.casefold()
    )


def _unsupported_rewrite(alignment: Alignment) -> bool:
    """A close rewrite that adds a number or name the evidence lacks, or swaps a quantifier;
    or a claim mostly made of evidence words that brings in a name the evidence never uses."""
    features = alignment.features
    return bool(alignment.rewrite) or (
        features["ent_unseen"] > 0 and features["lex_best"] >= NAME_REWRITE_COVERAGE
    )
