"""Close rewrites: a claim that repeats one evidence sentence with a few words changed.

When a claim keeps most of an evidence sentence word for word, the words it changed are the
whole story, and a word-level diff names them exactly: an inserted or dropped "not", a word
swapped for its opposite ("approved" -> "rejected", "before" -> "after", "with" -> "without"),
another month or number, a quantifier swapped ("all" -> "some"), or a number or name added
that the evidence never mentions. Such an edit is a checked fact, like a differing number, so
it decides the verdict instead of only feeding the learned model, and its span is where the
report points inside the claim.

Edits that change other words (a synonym, a reordered clause, a dropped qualifier) are not
judged here: a faithful paraphrase looks just like that.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher
from functools import lru_cache

from audit_pipeline.specifics.quantities import Key, Quantity, quantities, shares
from audit_pipeline.text import wordlists
from audit_pipeline.text.tokens import stem
from audit_pipeline.verification.signals import ANTONYMS, DENYING_WORDS, NEGATION_WORDS

# A close rewrite: most of the claim's words come unchanged, in order, from the one sentence;
# or the claim keeps nearly all of the sentence and adds to it.
# These shares and counts are not stage parameters: the edits are part of the alignment
# analysis (``features.py``), computed once per batch and read by the rewrite check and by the
# learned reading (its error spans and justification) alike, so both must see the same edits;
# a change here is a code change, which changes the verifier's identity (``digests.py``).
CLOSE_SHARE = 0.75
KEPT_SENTENCE_SHARE = 0.85
MIN_CLAIM_SHARE = 0.5
MIN_WORDS = 5
# A stretch longer than this is a dropped or rephrased clause, not a swapped word.
MAX_SWAP_WORDS = 4

_WORD = re.compile(r"[A-Za-z0-9]+(?:['’][A-Za-z]+)?(?:[.,:/-][A-Za-z0-9]+)*")  # noqa: RUF001
# Words whose swap for another of the same list is a judged edit (files in
# ``verification/words/``): another month or unit states another value, another quantifier
# or modal verb weakens or widens what the evidence says.
_MONTHS = wordlists.words("verification", "months")
_QUANTIFIERS = wordlists.words("verification", "quantifiers")
# A swapped unit next to an unchanged number ("15 minutes" -> "15 hours") is another quantity.
_UNITS = frozenset(stem(unit) for unit in wordlists.words("verification", "units"))
_MODALS = wordlists.words("verification", "modals")
_NUMBER = re.compile(r"\d")
_DIGITS = re.compile(r"\d+(?:\.\d+)?")


@dataclass(frozen=True)
class RewriteEdit:
    """One changed stretch of a close rewrite, located in the claim (character offsets)."""

    kind: str  # negation | opposite | month | number | quantifier | modality | addition
    start: int
    end: int
    old: str
    new: str

    @property
    def contradicts(self) -> bool:
        """Negations, opposites, other months and numbers state the contrary; the rest is
        unsupported (an added fact, a weakened or widened quantifier, "must" made "may")."""
        return self.kind in ("negation", "opposite", "month", "number")

    def describe(self) -> str:
        if not self.old:
            return f"adds {self.new!r} to the evidence sentence"
        if not self.new:
            return f"drops {self.old!r} from the evidence sentence"
        return f"changes {self.old!r} to {self.new!r}"


@lru_cache(maxsize=256)
def evidence_words(text: str) -> frozenset[str]:
    """The lowercased words of an evidence text and their stems (memoised: an answer's claims
    share it), so "Acrovirt's" is known where the evidence says "the Acrovirt"."""
    words = {m.group().lower() for m in _WORD.finditer(text)}
    return frozenset(words | {stem(w) for w in words})


def _negations(words: Iterable[str]) -> int:
    """Negations of a stretch, a word that denies in itself ("prohibited") counting as one."""
    return sum(
        1 for w in words if w in NEGATION_WORDS or w.endswith("n't") or stem(w) in DENYING_WORDS
    )


def _plain_words(words: Iterable[str]) -> int:
    """Words of a stretch other than negations: "do not" has one, "if this doesn't work" three
    (a clause added, not a statement negated)."""
    return sum(
        1
        for w in words
        if w not in NEGATION_WORDS and not w.endswith("n't") and stem(w) not in DENYING_WORDS
    )


def _opposite(old: Sequence[str], new: Sequence[str]) -> bool:
    """A word swapped for its opposite; a word that denies in itself ("prohibited") is counted
    as a negation instead, so "not allowed" for it is no flip."""
    old_stems = {stem(w) for w in old} | set(old)
    return any(
        (ANTONYMS.get(stem(w)) in old_stems or ANTONYMS.get(w) in old_stems)
        and stem(w) not in DENYING_WORDS
        and ANTONYMS.get(stem(w)) not in DENYING_WORDS
        for w in new
    )


def _classify(
    old: list[str], new: list[str], new_surface: list[str], known: frozenset[str], first: bool
) -> str:
    """The kind of one replaced / inserted / deleted stretch, or "" when not judged.

    ``first``: the stretch starts the claim, where a capital letter says nothing.
    """
    unseen = [
        surface
        for index, (word, surface) in enumerate(zip(new, new_surface, strict=True))
        if word not in known
        and stem(word) not in known
        and (_NUMBER.search(word) or (surface[:1].isupper() and not (first and index == 0)))
    ]
    if len(old) > MAX_SWAP_WORDS or len(new) > MAX_SWAP_WORDS:
        return "addition" if unseen and not old else ""
    if _negations(old) % 2 != _negations(new) % 2:
        # "prohibited" -> "not allowed" turns nothing round; "prohibited" -> "allowed" does.
        if _plain_words(old) + _plain_words(new) <= 2:
            return "negation"
    elif _opposite(old, new):
        return "opposite"
    months_old, months_new = _MONTHS.intersection(old), _MONTHS.intersection(new)
    if months_new and months_old and months_new != months_old:
        return "month"
    numbers_old = set(_DIGITS.findall(" ".join(old)))
    numbers_new = set(_DIGITS.findall(" ".join(new)))
    if numbers_old and numbers_new and numbers_old != numbers_new:
        return "number"
    units_old, units_new = _UNITS.intersection(map(stem, old)), _UNITS.intersection(map(stem, new))
    if units_old and units_new and units_old != units_new:
        return "number"
    swapped_old, swapped_new = _QUANTIFIERS.intersection(old), _QUANTIFIERS.intersection(new)
    if swapped_old and swapped_new and swapped_old != swapped_new:
        return "quantifier"
    modal_old, modal_new = _MODALS.intersection(old), _MODALS.intersection(new)
    if modal_old and modal_new and modal_old != modal_new:
        return "modality"
    return "addition" if unseen else ""


@lru_cache(maxsize=1024)
def _stated(text: str) -> tuple[Quantity, ...]:
    """Every amount and share of ``text``, read once: a claim is set against many evidence
    sentences, each with several replaced stretches."""
    return (*quantities(text), *shares(text))


def _amounts(text: str, start: int, end: int) -> set[Key]:
    """The measured amounts (on pint's base scale, or as a percentage) ``text`` states
    between ``start`` and ``end``."""
    return {
        key
        for quantity in _stated(text)
        if quantity.start < end and start < quantity.end
        for key in quantity.keys
        if key[0].startswith(("b:", "n:%"))
    }


def _same_amount(
    claim: str, start: int, end: int, sentence: str, old_start: int, old_end: int
) -> bool:
    """A replaced stretch that states the evidence's amount in other words or units ("a year"
    for "12 months", "0.5 g" for "500 mg", "half" for "50%"): a restatement, not an edit.
    Exactly the amount (``base_amount``'s keys), not a near one: "31,536,005 seconds" for
    "31,536,000 seconds" is an edit."""
    return bool(_amounts(claim, start, end) & _amounts(sentence, old_start, old_end))


def rewrite_edits(
    claim: str, sentence: str, evidence_words: frozenset[str]
) -> tuple[RewriteEdit, ...] | None:
    """The judged edits of ``claim`` against ``sentence``; ``None`` if it is no close rewrite.

    ``evidence_words`` are the lowercased words of all the claim's evidence: an added number or
    name counts only when the evidence nowhere mentions it.
    """
    claim_tokens = [(m.group(), m.start(), m.end()) for m in _WORD.finditer(claim)]
    if len(claim_tokens) < MIN_WORDS:
        return None
    new_words = [t.lower() for t, _, _ in claim_tokens]
    sentence_tokens = [(m.group(), m.start(), m.end()) for m in _WORD.finditer(sentence)]
    old_words = [t.lower() for t, _, _ in sentence_tokens]
    matcher = SequenceMatcher(None, old_words, new_words, autojunk=False)
    opcodes = matcher.get_opcodes()
    kept = sum(j2 - j1 for tag, _, _, j1, j2 in opcodes if tag == "equal")
    claim_share, sentence_share = kept / len(new_words), kept / max(1, len(old_words))
    if claim_share < CLOSE_SHARE and not (
        sentence_share >= KEPT_SENTENCE_SHARE and claim_share >= MIN_CLAIM_SHARE
    ):
        return None
    # Words taken out in one place and put back in another: a reordered clause ("Within 10
    # metres ..., smoking is prohibited"), not a change.
    dropped = Counter(
        w for tag, i1, i2, _, _ in opcodes if tag != "equal" for w in old_words[i1:i2]
    )
    added = Counter(w for tag, _, _, j1, j2 in opcodes if tag != "equal" for w in new_words[j1:j2])
    moved = dropped & added
    edits: list[RewriteEdit] = []
    for tag, i1, i2, j1, j2 in opcodes:
        if tag == "equal":
            continue
        if all(moved[w] for w in (*old_words[i1:i2], *new_words[j1:j2])):
            continue
        if tag == "replace" and _same_amount(
            claim, claim_tokens[j1][1], claim_tokens[j2 - 1][2],
            sentence, sentence_tokens[i1][1], sentence_tokens[i2 - 1][2],
        ):  # fmt: skip
            continue
        surface = [t for t, _, _ in claim_tokens[j1:j2]]
        kind = _classify(old_words[i1:i2], new_words[j1:j2], surface, evidence_words, j1 == 0)
        if not kind:
            continue
        if j2 > j1:
            start, end = claim_tokens[j1][1], claim_tokens[j2 - 1][2]
        else:  # a dropped word: point at the word that now stands in its place
            anchor = claim_tokens[min(j1, len(claim_tokens) - 1)]
            start, end = anchor[1], anchor[2]
        old = " ".join(old_words[i1:i2])
        edits.append(RewriteEdit(kind, start, end, old, claim[start:end] if j2 > j1 else ""))
    return tuple(edits)


def closest_rewrite(
    claim: str, sentences: Sequence[str], evidence_words: frozenset[str]
) -> tuple[RewriteEdit, ...]:
    """The judged edits against the evidence sentence the claim rewrites most closely.

    A claim that copies one sentence exactly (no judged edit against it) has none, even if it
    is also a close rewrite of another sentence.
    """
    best: tuple[RewriteEdit, ...] | None = None
    for sentence in sentences:
        edits = rewrite_edits(claim, sentence, evidence_words)
        if edits is None:
            continue
        if not edits:
            return ()
        if best is None or len(edits) < len(best):
            best = edits
    return best or ()
