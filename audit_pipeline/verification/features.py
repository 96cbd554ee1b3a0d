"""Claim-versus-evidence features for the local verifier.

Each claim is aligned with its best evidence sentences (embedding similarity plus word
overlap), and the features describe what the alignment leaves unexplained: content words the
evidence never uses, numbers or names it does not contain, a negation or antonym flip against
the best-aligned sentence, and words the evidence only ever uses negated ("casual: no"). A
learned model turns them into a probability; they are computed the same way at training and
at audit time, from the same code.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from itertools import pairwise

import numpy as np

from audit_pipeline.records.evidence import EvidencePassage
from audit_pipeline.specifics.quantities import (
    Quantity,
    is_near,
    quantities,
    quantity_keys,
    unit_conflicts,
)
from audit_pipeline.text import wordlists
from audit_pipeline.text.sentences import sentence_spans
from audit_pipeline.text.tokens import content_stems, content_words, raw_tokens, stem
from audit_pipeline.verification.batch import Batch
from audit_pipeline.verification.entailment import EntailmentModel
from audit_pipeline.verification.fields import FieldCheck, boolean_fields, check_fields
from audit_pipeline.verification.lexicon import is_descriptive, rarity
from audit_pipeline.verification.rewrites import RewriteEdit, closest_rewrite, evidence_words
from audit_pipeline.verification.signals import (
    ANTONYMS,
    ATTRIBUTION_WORDS,
    DENYING_WORDS,
    HEDGES,
    NAME_ALIASES,
    TEMPORAL_WORDS,
    acronym_expansions,
    negation_count,
    proper_names,
    surface_words,
)
from audit_pipeline.verification.specifics_check import (
    Reworded,
    in_evidence_wording,
    specifics_analysis,
)
from audit_pipeline.verification.windows import claim_window, evidence_sentences

FEATURE_NAMES: tuple[str, ...] = (
    "cos_max",
    "cos_second",
    "cos_top3_mean",
    "lex_best",
    "lex_top2",
    "lex_all",
    "uncovered_all",
    "uncovered_long",
    "uncovered_rarity",
    "uncovered_rare",
    "uncovered_descriptive",
    "bigram_novel",
    "content_words",
    "num_claim",
    "num_unseen",
    "num_unseen_far",
    "num_conflict",
    "num_elsewhere",
    "num_unit_conflict",
    "ent_claim",
    "ent_unseen",
    "ent_elsewhere",
    "uncovered_run",
    "neg_claim",
    "neg_mismatch",
    "neg_only_conflict",
    "antonym_flip",
    "field_confirmed",
    "field_flipped",
    "field_unknown",
    "hedges",
    "no_evidence",
    "attribution_unseen",
    "temporal_unseen",
    "nli_unsupported",
    "nli_contradicted",
)


# How many of the best-covering evidence sentences a claim is diffed against. Not a stage
# parameter: the edits are part of this analysis, computed once per batch and read by the
# rewrite check and the learned reading (its error spans) alike; a change here is a code
# change, which changes the verifier's identity (``digests.py``).
REWRITE_CANDIDATES = 3


@dataclass
class EvidenceSentence:
    """One sentence (or record line) of an evidence passage, with its lexical profile."""

    text: str
    chunk_id: str
    stems: frozenset[str]
    negated: bool
    quantity_keys: frozenset[tuple[str, float]]
    vector_row: int = -1
    words: frozenset[str] = frozenset()  # surface words, for the framing features


@dataclass
class Alignment:
    """The features of one claim plus what a justification needs to cite."""

    features: dict[str, float]
    best_sentence: EvidenceSentence | None
    supporting_chunk_ids: tuple[str, ...]
    unseen_quantities: tuple[str, ...] = ()
    unseen_names: tuple[str, ...] = ()
    conflicts: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    claim: str = ""
    # The judged word edits when the claim is a close rewrite of one evidence sentence.
    rewrite: tuple[RewriteEdit, ...] = ()

    def vector(self) -> np.ndarray:
        return np.array([self.features[name] for name in FEATURE_NAMES], dtype=np.float64)


_WORDS = re.compile(r"\w+")


def verbatim(alignment: Alignment) -> bool:
    """The claim repeats its best evidence sentence word for word (case, punctuation and
    Markdown aside). The entailment model has read such copies as contradictions (a table row,
    a list item quoted by the vault bot's extractive fallback); a copy cannot contradict its
    source, so the model's reading alone does not make it contradicted."""
    best = alignment.best_sentence
    return best is not None and _WORDS.findall(alignment.claim.casefold()) == _WORDS.findall(
        best.text.casefold()
    )


def split_evidence(text: str, chunk_id: str) -> list[EvidenceSentence]:
    out: list[EvidenceSentence] = []
    for start, end in sentence_spans(text, wrapped=True):
        sentence = text[start:end]
        out.append(
            EvidenceSentence(
                text=sentence,
                chunk_id=chunk_id,
                stems=frozenset(content_stems(sentence)),
                negated=negation_count(sentence) > 0,
                quantity_keys=frozenset(quantity_keys(sentence)),
                words=frozenset(surface_words(sentence)),
            )
        )
    return out


def _compounds(text: str) -> set[str]:
    """Adjacent word pairs glued together, so "take out" covers "takeout"."""
    words = [token.lower() for token in raw_tokens(text)]
    return {a + b for a, b in pairwise(words)} | {
        "".join(ch for ch in w if ch.isalnum()) for w in words
    }


# Prefixes that negate a word ("inexperienced"): ``verification/words/negating_prefixes.txt``.
_NEGATING_PREFIXES = wordlists.sequence("verification", "negating_prefixes")


def _prefix_flips(
    claim_stems: Sequence[str], evidence_stems: frozenset[str] | set[str]
) -> list[str]:
    """ "experienced" against "inexperienced" (and the reverse): a flip by negating prefix."""
    flips: list[str] = []
    for word in dict.fromkeys(claim_stems):
        if word in evidence_stems or len(word) < 4:
            continue
        for prefix in _NEGATING_PREFIXES:
            if prefix + word in evidence_stems or (
                word.startswith(prefix)
                and word[len(prefix) :] in evidence_stems
                and len(word) - len(prefix) >= 4
            ):
                flips.append(word)
                break
    return flips


def _coverage(stems: Sequence[str], covered: set[str] | frozenset[str]) -> float:
    if not stems:
        return 1.0
    return sum(1 for s in stems if s in covered) / len(stems)


@dataclass(frozen=True)
class _View:
    """What every feature group looks at: the claim, its evidence, and the alignment."""

    claim: str
    stems: list[str]
    unique: list[str]
    sentences: Sequence[EvidenceSentence]
    best: EvidenceSentence
    top2: list[EvidenceSentence]
    evidence_text: str
    evidence_tokens: set[str]
    glued: set[str]
    covered: set[str]

    @property
    def top_stems(self) -> frozenset[str]:
        return self.top2[0].stems | self.top2[-1].stems


def _no_evidence_features(claim: str, unique: list[str]) -> dict[str, float]:
    features = dict.fromkeys(FEATURE_NAMES, 0.0)
    features.update(
        no_evidence=1.0,
        content_words=math.log1p(len(unique)),
        uncovered_all=float(len(unique)),
        bigram_novel=1.0,
        num_claim=float(len(quantities(claim))),
        ent_claim=float(len(proper_names(claim))),
        neg_claim=float(negation_count(claim) > 0),
    )
    features.update(_framing_features(claim, [], None))
    return features


def _framing_features(
    claim: str, sentences: Sequence[EvidenceSentence], best: EvidenceSentence | None
) -> dict[str, float]:
    """Framing the evidence lacks: an attribution its aligned sentence does not make, and
    time words ("last week", "Friday") that no evidence sentence uses."""
    words = surface_words(claim)
    best_words = best.words if best is not None else frozenset()
    # Most claims have no time word: look into the evidence only for those that do.
    unseen = [w for w in words & TEMPORAL_WORDS if not any(w in s.words for s in sentences)]
    return {
        "attribution_unseen": float(
            bool(words & ATTRIBUTION_WORDS) and not (best_words & ATTRIBUTION_WORDS)
        ),
        "temporal_unseen": float(len(unseen)),
    }


def _coverage_features(view: _View) -> dict[str, float]:
    """How much of the claim's wording the evidence accounts for, and what kind is missing."""
    uncovered = [s for s in view.unique if s not in view.covered]
    missing = set(uncovered)
    uncovered_words = list(
        dict.fromkeys(w for w in content_words(view.claim) if stem(w) in missing)
    )
    rarities = [rarity(w) for w in uncovered_words]
    claim_bigrams = set(pairwise(view.stems))
    evidence_bigrams: set[tuple[str, str]] = set()
    for sentence in view.sentences:
        evidence_bigrams.update(pairwise(content_stems(sentence.text)))
    run = longest = 0
    for word in view.stems:
        run = run + 1 if word not in view.covered else 0
        longest = max(longest, run)
    return {
        "lex_all": _coverage(view.unique, view.covered),
        "uncovered_all": float(len(uncovered)),
        "uncovered_long": float(sum(1 for s in uncovered if len(s) >= 6)),
        "uncovered_rarity": float(sum(rarities)),
        "uncovered_rare": float(sum(1 for r in rarities if r >= 0.9)),
        "uncovered_descriptive": float(sum(1 for w in uncovered_words if is_descriptive(w))),
        "bigram_novel": (
            len(claim_bigrams - evidence_bigrams) / len(claim_bigrams) if claim_bigrams else 0.0
        ),
        "content_words": math.log1p(len(view.unique)),
        "uncovered_run": float(longest),
        "hedges": float(sum(1 for s in view.stems if s in HEDGES)),
    }


def _quantity_features(
    view: _View,
) -> tuple[dict[str, float], list[Quantity], list[Quantity], list[str]]:
    """Numbers, times and amounts: missing, merely close, or conflicting with aligned text.

    A claim measurement that the aligned sentences state in the same unit with another value
    ("36 months" against "24 months") is a clash: the evidence answers the question the claim
    answers, differently.
    """
    all_keys: set[tuple[str, float]] = set().union(*(s.quantity_keys for s in view.sentences))
    top_keys = view.best.quantity_keys | view.top2[-1].quantity_keys
    claim_quantities = quantities(view.claim)
    unseen = [q for q in claim_quantities if not (q.keys & all_keys)]
    # A number absent from the evidence while the aligned sentences state numbers: a conflict.
    conflicts = unseen if top_keys else []
    # Found in the evidence, but not where the claim aligns: a number moved to another fact.
    elsewhere = [q for q in claim_quantities if (q.keys & all_keys) and not (q.keys & top_keys)]
    aligned = [
        q for s in dict.fromkeys((view.best.text, view.top2[-1].text)) for q in quantities(s)
    ]
    clashes = [
        f"{q.surface!r} where the evidence says {unit_conflicts(q, aligned)[0].surface!r}"
        for q in unseen
        if unit_conflicts(q, aligned)
    ]
    features = {
        "num_claim": float(len(claim_quantities)),
        "num_unseen": float(len(unseen)),
        "num_unseen_far": float(sum(1 for q in unseen if not is_near(q, all_keys))),
        "num_conflict": float(len(conflicts)),
        "num_elsewhere": float(len(elsewhere)),
        "num_unit_conflict": float(len(clashes)),
    }
    return features, unseen, conflicts, clashes


def _name_features(view: _View) -> tuple[dict[str, float], list[str]]:
    """Capitalised names the evidence never mentions (allowing aliases and acronyms)."""
    names = list(dict.fromkeys(proper_names(view.claim)))
    lowered = view.evidence_text.lower()
    spelled_out = {
        word
        for acronym, words in acronym_expansions(view.claim).items()
        if acronym in view.evidence_tokens
        for word in words
    }
    unseen = [
        n
        for n in names
        if n not in view.evidence_tokens
        and stem(n) not in view.covered
        and n.replace("-", "") not in view.glued
        and n not in spelled_out
        and not any(
            re.search(rf"\b{re.escape(alias)}\b", lowered)
            for alias in NAME_ALIASES.get(n.rstrip("."), ())
        )
    ]
    elsewhere = [n for n in names if n not in unseen and stem(n) not in view.top_stems]
    features = {
        "ent_claim": float(len(names)),
        "ent_unseen": float(len(unseen)),
        "ent_elsewhere": float(len(elsewhere)),
    }
    return features, unseen


def _polarity_features(view: _View) -> tuple[dict[str, float], list[str], int, FieldCheck]:
    """Negation, antonym and yes/no-field disagreements with the aligned evidence."""
    claim_negated = negation_count(view.claim) > 0
    # Words the evidence only ever mentions in negated sentences, asserted without negation.
    negated_only = 0
    if not claim_negated:
        for word in view.unique:
            holders = [s for s in view.sentences if word in s.stems]
            if holders and all(s.negated for s in holders):
                negated_only += 1
    top = view.top_stems
    # A word that denies in itself ("prohibited") against a negated claim ("not allowed") is
    # the same statement, not an opposite.
    flips = [
        w
        for w in view.unique
        if w in ANTONYMS
        and ANTONYMS[w] in top
        and w not in top
        and not (claim_negated and DENYING_WORDS & {w, ANTONYMS[w]})
    ]
    flips.extend(_prefix_flips(view.stems, top))
    fields = check_fields(view.claim, boolean_fields([s.text for s in view.sentences]))
    features = {
        "neg_claim": float(claim_negated),
        "neg_mismatch": float(claim_negated != view.best.negated),
        "neg_only_conflict": float(negated_only),
        "antonym_flip": float(len(flips)),
        "field_confirmed": float(fields.confirmed),
        "field_flipped": float(len(fields.false_asserted) + len(fields.true_denied)),
        "field_unknown": float(len(fields.unknown_stated)),
    }
    return features, flips, negated_only, fields


def align_claim(
    claim: str,
    claim_vector: np.ndarray,
    sentences: Sequence[EvidenceSentence],
    sentence_vectors: np.ndarray,
) -> Alignment:
    """Features of one claim against its evidence sentences (vectors row-aligned)."""
    stems = content_stems(claim)
    unique = list(dict.fromkeys(stems))
    if not sentences:
        return Alignment(_no_evidence_features(claim, unique), None, (), claim=claim)

    # Alignment: embedding similarity plus the share of the claim's words each sentence has.
    cosine = sentence_vectors @ claim_vector
    lexical = np.array([_coverage(unique, s.stems) for s in sentences])
    order = np.argsort(-(cosine + lexical))
    top2 = [sentences[int(i)] for i in order[:2]]
    evidence_text = "\n".join(s.text for s in sentences)
    glued = _compounds(evidence_text)
    view = _View(
        claim=claim,
        stems=stems,
        unique=unique,
        sentences=sentences,
        best=top2[0],
        top2=top2,
        evidence_text=evidence_text,
        evidence_tokens={token.lower() for token in raw_tokens(evidence_text)},
        glued=glued,
        covered=set().union(*(s.stems for s in sentences)) | {stem(g) for g in glued},
    )
    cos_sorted = np.sort(cosine)[::-1]
    features = {
        "cos_max": float(cos_sorted[0]),
        "cos_second": float(cos_sorted[min(1, len(cos_sorted) - 1)]),
        "cos_top3_mean": float(cos_sorted[:3].mean()),
        "lex_best": float(lexical[int(order[0])]),
        "lex_top2": _coverage(unique, view.top_stems),
        "no_evidence": 0.0,
    }
    features.update(_coverage_features(view))
    quantity_features, unseen_quantities, number_conflicts, clashes = _quantity_features(view)
    features.update(quantity_features)
    name_features, unseen_names = _name_features(view)
    features.update(name_features)
    polarity_features, flips, negated_only, fields = _polarity_features(view)
    features.update(polarity_features)
    features.update(_framing_features(claim, sentences, view.best))

    # The claim as a close rewrite of its most similar sentences by word coverage.
    candidates = [sentences[int(i)].text for i in np.argsort(-lexical)[:REWRITE_CANDIDATES]]
    rewrite = closest_rewrite(claim, candidates, evidence_words(evidence_text))
    # An added number or name counts when the name and quantity checks above (which know
    # aliases, acronyms and spelled-out numbers) also miss it, or when it replaces one or two
    # words of the sentence (a swapped name: "Germany" -> "April").
    unseen = [q.surface.lower() for q in unseen_quantities] + [n.lower() for n in unseen_names]
    rewrite = tuple(
        edit
        for edit in rewrite
        if edit.kind != "addition"
        or any(u in claim[edit.start : edit.end].lower() for u in unseen)
        or (
            0 < len(edit.old.split()) <= 2
            and not edit.new.isupper()
            and not any(ch.isdigit() for ch in edit.new)
        )
    )

    # Hard conflicts make a claim "contradicted" when it is well aligned; notes only explain.
    # A number that differs is the specifics check's to judge (with units and what it is
    # about); here it is only noted.
    conflicts = [f"states the opposite of {text!r}" for text in fields.false_asserted]
    conflicts.extend(f"denies {text!r}" for text in fields.true_denied)
    conflicts.extend(f"{w!r} flips the evidence" for w in flips)
    notes = [f"number {q.surface!r} is not in the aligned evidence" for q in number_conflicts]
    notes.extend(
        f"states {text!r}, which the evidence leaves unknown" for text in fields.unknown_stated
    )
    notes.extend(f"measurement clash: {clash}" for clash in clashes)
    conflicts.extend(edit.describe() for edit in rewrite if edit.contradicts)
    notes.extend(edit.describe() for edit in rewrite if not edit.contradicts)
    if negated_only:
        notes.append("asserts words the evidence only uses negated")
    return Alignment(
        features,
        view.best,
        tuple(dict.fromkeys(s.chunk_id for s in top2)),
        unseen_quantities=tuple(q.surface for q in unseen_quantities),
        unseen_names=tuple(unseen_names),
        conflicts=tuple(conflicts),
        notes=tuple(notes),
        claim=claim,
        rewrite=rewrite,
    )


def _evidence_sentences(
    evidence: Sequence[Sequence[EvidencePassage]],
) -> list[list[EvidenceSentence]]:
    """Each claim's evidence cut into sentences (a passage shared by claims is cut once; a
    sentence repeated across passages is kept once)."""
    per_claim: list[list[EvidenceSentence]] = []
    parsed: dict[tuple[str, str], list[EvidenceSentence]] = {}
    for passages in evidence:
        sentences: list[EvidenceSentence] = []
        seen: set[str] = set()
        for passage in passages:
            key = (passage.chunk_id, passage.text)
            if key not in parsed:
                parsed[key] = split_evidence(passage.text, passage.chunk_id)
            for sentence in parsed[key]:
                if sentence.text not in seen:
                    seen.add(sentence.text)
                    sentences.append(sentence)
        per_claim.append(sentences)
    return per_claim


def alignment_analysis(batch: Batch) -> list[Alignment]:
    """Every claim of ``batch`` aligned with its evidence: the features the learned reading
    scores, and what the rewrite and entailment checks read (best sentence, edits, conflicts).

    Values the evidence states in other words are read in its words first (``Reworded``, from
    the specifics analysis), so "60 minutes" aligns with "1 hour". Every claim and evidence
    sentence is embedded in one pass, and the entailment model reads every claim against its
    claim-focused window in one pass.
    """
    claims = [claim.text for claim in batch.claims]
    per_claim = _evidence_sentences(batch.evidence)
    findings = batch.analysis(specifics_analysis)
    read = [
        in_evidence_wording(claim, found) for claim, found in zip(claims, findings, strict=True)
    ]
    all_texts = [r.text for r in read] + [s.text for sentences in per_claim for s in sentences]
    vectors = batch.embedder.embed(all_texts)
    claim_vectors = vectors[: len(claims)]
    offset = len(claims)
    out: list[Alignment] = []
    for i, sentences in enumerate(per_claim):
        sentence_vectors = vectors[offset : offset + len(sentences)]
        offset += len(sentences)
        alignment = align_claim(read[i].text, claim_vectors[i], sentences, sentence_vectors)
        out.append(_in_original_words(alignment, read[i]))
    _add_entailment(batch.entailment, [r.text for r in read], per_claim, out)
    return out


def _add_entailment(
    entailment: EntailmentModel,
    claims: Sequence[str],
    per_claim: Sequence[Sequence[EvidenceSentence]],
    alignments: Sequence[Alignment],
) -> None:
    """The cross-encoder's reading of each claim against its claim-focused window."""
    windows = [
        claim_window(
            claim, evidence_sentences([s.text for s in sentences]), entailment.window_words
        )
        for claim, sentences in zip(claims, per_claim, strict=True)
    ]
    scores = entailment.score(list(zip(windows, claims, strict=True)))
    for index, alignment in enumerate(alignments):
        alignment.features["nli_unsupported"] = 1.0 - float(scores.entailed[index])
        alignment.features["nli_contradicted"] = float(scores.contradicted[index])


def _in_original_words(alignment: Alignment, read: Reworded) -> Alignment:
    """An alignment computed on the reworded claim, pointing into the original claim."""
    if read.text == read.original:
        return alignment
    rewrite = []
    for edit in alignment.rewrite:
        start, end = read.to_original(edit.start, edit.end)
        rewrite.append(replace(edit, start=start, end=end, new=read.original[start:end]))
    return replace(alignment, claim=read.original, rewrite=tuple(rewrite))
