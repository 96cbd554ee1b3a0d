"""Modality and agent: the same act, obliged where the evidence permits, or done by someone else.

"The kitchen manager writes each dish's allergen matrix" against "The head chef writes the
matrix", or "Staff must use hand sanitiser" against "Hand sanitiser may be used": every word of
the act is in the evidence, so similarity and the cross-encoder read support. The clauses
(``polarity.read_clause``: the dependency parse's predicate, deontic mode and arguments) are
compared slot by slot with the evidence clause about the same act (same predicate, most of the
claim's other words in the passage):

- **modality**: the claim obliges where the evidence only permits, releases where it obliges,
  permits where it forbids (and the contrary pairs of ``polarity``); a permission the claim
  makes optional ("may ... if they choose") releases.
- **agent**: the party that does the act (the active subject, or the passive's "by" agent)
  shares no word with the evidence's ("the pharmacist on duty" against "the superintendent
  pharmacist"), or "we" against "you". "We" or "you" against a named party could be the same
  party ("Harbourline" for "we"), so those are not compared.

Either clears when any evidence clause about the act agrees (the claim's party does it too, the
mode is the claim's), so a passage that states both sides never makes a clash.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import TYPE_CHECKING

from audit_pipeline.specifics.language import parse_many
from audit_pipeline.text import wordlists
from audit_pipeline.text.tokens import content_stems, stem
from audit_pipeline.verification.batch import Batch
from audit_pipeline.verification.bounds import bounds_of
from audit_pipeline.verification.evidence_units import EvidenceUnit, evidence_unit_analysis
from audit_pipeline.verification.polarity import (
    PERMIT_FORBID,
    Clause,
    clause_heads,
    limited,
    read_clause,
    same_predicate,
)
from audit_pipeline.verification.signals import ATTRIBUTION_WORDS
from audit_pipeline.verification.slot_clash import SlotClash

if TYPE_CHECKING:
    from spacy.tokens import Doc, Token

# Share of the claim clause's words about the act (its arguments without the party) the
# evidence passage must say, and at least how many ("each dish's allergen matrix" is "the
# matrix" of a passage that introduced it); one is enough where the party is the same.
MIN_ACT_SHARE = 1 / 3
MIN_ACT_WORDS = 1
# Phrases that leave a permitted act to the actor's choice: "may ... if they choose" releases.
_OPTIONAL = wordlists.sequence("verification", "optional_phrases")
# Mode pairs (claim, evidence) where the claim says what the evidence does not: the contrary
# pairs of polarity either way round, an obligation where the evidence permits, and an option
# where it obliges.
_CLASHING_MODES = frozenset(
    {
        ("O+", "O-"),
        ("O-", "O+"),
        ("P+", "P-"),
        ("P-", "P+"),
        ("O+", "P-"),
        ("P-", "O+"),
        ("O+", "P+"),
    }
)
# Modals that speak of what is possible rather than what is permitted.
_EPISTEMIC = frozenset({"could", "might"})
_MODE_WORDS = {"O+": "must", "O-": "need not", "P+": "may", "P-": "must not"}
_WE = frozenset({"we", "us"})
# Adverbs that add a party to the one a clause elsewhere names.
_ADDED = frozenset({"also", "too"})
_ATTRIBUTION = frozenset(stem(w) for w in ATTRIBUTION_WORDS) | {"say", "tell"}
# The dependencies of a verb that makes a statement of its own.
_STATEMENT_DEPS = frozenset({"ROOT", "conj", "ccomp", "parataxis"})


@dataclass(frozen=True)
class Frame:
    """A clause and who does its act: ``doer`` the party's content stems, ``kind`` "we", "you",
    "party" (named by nouns) or "" (unknown: another pronoun, no party, or a clause that says
    what something is rather than who does something); ``theme`` the content stems of what the
    act is done to (the object, the passive's subject, what one is "responsible for")."""

    clause: Clause
    doer: frozenset[str]
    kind: str
    doer_text: str
    theme: frozenset[str] = frozenset()
    head: int = -1  # the clause head's token index in the parsed text
    acted_on: bool = False  # the clause names what its act is done to (a pronoun counts)


def _stems_under(token: Token | None) -> frozenset[str]:
    if token is None:
        return frozenset()
    return frozenset(content_stems(" ".join(t.text for t in token.subtree)))


def _child(token: Token, *deps: str) -> Token | None:
    return next((c for c in token.children if c.dep_ in deps), None)


def _is_passive(head: Token) -> bool:
    return any(c.dep_ in ("nsubjpass", "auxpass") for c in head.children)


def _theme_token(head: Token) -> Token | None:
    """What the act is done to: the object, the passive's subject, what a party is
    "responsible for"."""
    if _is_passive(head):
        return _child(head, "nsubjpass")
    if head.lemma_ == "be":
        complement = _child(head, "acomp")
        about = _child(complement, "prep") if complement is not None else None
        return _child(about, "pobj") if about is not None else None
    return _child(head, "dobj")


def _frame(head: Token) -> Frame:
    theme = _theme_token(head)
    acted_on = theme is not None
    frame = _parties(head, read_clause(head), _stems_under(theme), acted_on)
    return replace(frame, head=head.i, acted_on=acted_on)


def _parties(head: Token, clause: Clause, theme: frozenset[str], acted_on: bool) -> Frame:
    """The clause's frame with who does its act."""
    party: Token | None = None
    if _is_passive(head):
        agent = _child(head, "agent")
        party = _child(agent, "pobj") if agent is not None else None
    elif head.lemma_ == "be":
        # "X is responsible for Y" names a party; "the excess is £450" names none.
        if not acted_on:  # "trips are free" says what they are, not who does
            return Frame(clause, frozenset(), "", "")
        party = _child(head, "nsubj")
    else:
        party = _child(head, "nsubj")
    if party is None:
        return Frame(clause, frozenset(), "", "", theme)
    if any(c.lower_ in _ADDED for c in head.children if c.dep_ == "advmod"):
        # "must also be approved by the board": a party added to another, not instead of it.
        return Frame(clause, frozenset(), "", party.text, theme)
    if party.pos_ == "PRON":
        lowered = party.lower_
        kind = "we" if lowered in _WE else "you" if lowered == "you" else ""
        return Frame(clause, frozenset(), kind, party.text, theme)
    text = " ".join(t.text for t in party.subtree)
    return Frame(clause, frozenset(content_stems(text)), "party", text, theme)


def _heads(doc: Doc) -> list[Token]:
    """The clause heads of ``polarity`` and every other verb with a subject of its own that
    states something ("...; the Customer pays them" after a semicolon), not a relative or
    adverbial clause ("the same causes as buildings cover")."""
    heads = clause_heads(doc)
    heads += [
        t
        for t in doc
        if t not in heads
        and t.pos_ in ("VERB", "AUX")
        and t.dep_ in _STATEMENT_DEPS
        and any(c.dep_ in ("nsubj", "nsubjpass") for c in t.children)
    ]
    return heads


@lru_cache(maxsize=8192)
def frames_of(text: str) -> tuple[Frame, ...]:
    """The clauses of ``text`` with their parties (cached: evidence sentences recur)."""
    doc = parse_many([text])[0]
    return tuple(_frame(head) for head in _heads(doc))


def _act(frame: Frame) -> frozenset[str]:
    return frame.clause.arguments - frame.doer


def _act_shared(frame: Frame, unit: EvidenceUnit) -> int:
    return len(_act(frame) & (unit.stems | (unit.about or frozenset())))


def _limited(text: str) -> bool:
    """Whether ``text`` limits what it permits or forbids (``polarity.limited``, or a value
    the bounds reading finds bounded)."""
    return limited(text) or bool(bounds_of(text))


def matches(frame: Frame, units: Sequence[EvidenceUnit]) -> list[tuple[Frame, EvidenceUnit]]:
    """The evidence clauses about the claim clause's act: same predicate, in a passage that
    says enough of its other words (a third of them, or one where the party is the same)."""
    found: list[tuple[Frame, EvidenceUnit]] = []
    for unit in units:
        shared = _act_shared(frame, unit)
        if shared < MIN_ACT_WORDS:
            continue
        enough = shared >= MIN_ACT_SHARE * len(_act(frame))
        found.extend(
            (other, unit)
            for other in frames_of(unit.text)
            if same_predicate(_verbs(frame.clause), _verbs(other.clause))
            and (enough or frame.doer & other.doer)
        )
    return found


def _verbs(clause: Clause) -> Clause:
    """The clause with its own predicates only: ``polarity`` adds "can" for a permission modal,
    which would make "staff have to let their manager know" the act of any "staff may ..."."""
    return replace(clause, predicates=clause.predicates - {"can"})


def _claim_mode(frame: Frame, claim: str) -> str:
    mode = frame.clause.mode
    words = set(frame.clause.text.lower().split())
    # "may need to", "could set a precedent": a possibility, not what a policy obliges or
    # permits.
    if words & _EPISTEMIC or (mode == "O+" and "can" in frame.clause.predicates):
        return ""
    lowered = claim.lower()
    if mode == "P+" and any(phrase in lowered for phrase in _OPTIONAL):
        return "O-"
    return mode


def _modality_clash(
    claim: str, frames: Sequence[Frame], units: Sequence[EvidenceUnit]
) -> SlotClash | None:
    for frame in frames:
        mode = _claim_mode(frame, claim)
        if not mode:
            continue
        modal = [
            (o, u)
            for o, u in matches(frame, units)
            if o.clause.mode
            and not (
                {mode, o.clause.mode} == PERMIT_FORBID and (_limited(claim) or _limited(u.text))
            )
        ]
        if not modal or any((mode, o.clause.mode) not in _CLASHING_MODES for o, _ in modal):
            continue
        other, unit = modal[0]
        return SlotClash(
            "modality",
            _MODE_WORDS[mode],
            _MODE_WORDS[other.clause.mode],
            unit.text,
            unit.chunk_id,
        )
    return None


def _different_parties(a: Frame, b: Frame) -> bool | None:
    """True: two parties; False: the same one; None: cannot tell."""
    if {a.kind, b.kind} == {"we", "you"}:
        return True
    if a.kind in ("we", "you") or b.kind in ("we", "you"):
        return False if a.kind == b.kind else None
    if not a.kind or not b.kind or not a.doer or not b.doer:
        return None
    return not a.doer & b.doer


def _same_theme(claim: Frame, other: Frame, unit: EvidenceUnit) -> bool:
    """Whether two clauses do the same act to the same thing: both name what it is done to
    (an intransitive "the plane went down" against "the aircraft went down" names no act a
    party could be swapped in); the evidence's theme shares a word with the claim's and names
    nothing the claim leaves out ("day trips" are not "residential trips"; "the matrix" may be
    "each dish's allergen matrix"); where one is a pronoun ("the Customer pays them"), the
    passage must say half the claim's words about the act."""
    if not (claim.acted_on and other.acted_on):
        return False
    if claim.theme and other.theme:
        said = claim.clause.stems | claim.theme
        return bool(claim.theme & other.theme) and other.theme <= said
    return _act_shared(claim, unit) >= max(MIN_ACT_WORDS, 0.5 * len(_act(claim)))


def _known_elsewhere(frame: Frame, units: Sequence[EvidenceUnit], unit: EvidenceUnit) -> bool:
    """Whether the claim's party is one the evidence knows, and not one the clashing sentence
    names itself: "the plane" against "the aircraft", "the jury" against "the jurors ... the
    jury room" are one party in other words, "the kitchen manager" against "the head chef" of
    a vault that names both is another. "We" and "you" are always known."""
    if frame.kind != "party":
        return True
    known = frozenset().union(*(u.stems | (u.about or frozenset()) for u in units))
    return frame.doer <= known and not frame.doer <= unit.stems


def _agent_clash(
    claim: str, frames: Sequence[Frame], units: Sequence[EvidenceUnit]
) -> SlotClash | None:
    said = frozenset(content_stems(claim))
    for frame in frames:
        # Who said something is attribution, not who does the act ("officials said" for
        # "the minister said" is framing, read by the learned reading).
        if not frame.kind or frame.clause.predicates & _ATTRIBUTION:
            continue
        # The same act: the same predicate word (a group of ``polarity``'s equivalents is
        # for modes; "approve" and "free" are not one act).
        readings = [
            (o, u, _different_parties(frame, o))
            for o, u in matches(frame, units)
            if frame.clause.predicates & o.clause.predicates and _same_theme(frame, o, u)
        ]
        if any(different is False for _, _, different in readings):
            continue
        clash = next(
            (
                (o, u)
                for o, u, different in readings
                if different
                and _known_elsewhere(frame, units, u)
                # "Field crews follow NFPA 70E for electrical work practices" names the
                # evidence's "electrical work practices" itself: another role, not a rival.
                and not (o.doer and o.doer <= said)
            ),
            None,
        )
        if clash is not None:
            other, unit = clash
            return SlotClash("agent", frame.doer_text, other.doer_text, unit.text, unit.chunk_id)
    return None


@dataclass(frozen=True)
class StructureReading:
    """The modality and agent clashes of one claim (None where its slots agree or cannot be
    compared)."""

    modality: SlotClash | None = None
    agent: SlotClash | None = None


def check_structure(claim: str, units: Sequence[EvidenceUnit]) -> StructureReading:
    frames = frames_of(claim)
    if not frames or not units:
        return StructureReading()
    parse_many([u.text for u in units])  # the new ones in one batch
    return StructureReading(
        _modality_clash(claim, frames, units), _agent_clash(claim, frames, units)
    )


def structure_analysis(batch: Batch) -> list[StructureReading]:
    """The modality and agent readings of every claim of ``batch`` against its evidence."""
    unit_sets = batch.analysis(evidence_unit_analysis)
    return [
        check_structure(claim.text, units)
        for claim, units in zip(batch.claims, unit_sets, strict=True)
    ]
