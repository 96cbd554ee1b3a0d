"""Does a claim deny what its evidence asserts, or assert what the evidence rules out?

"I do not enforce multi-factor authentication" shares nearly every word with "MFA is required
for all workforce access": word overlap and sentence embeddings call it supported, and a
cross-encoder trained on little negation reads past the "not". Here each clause of the claim
(a verb with its subject, from the dependency parse) gets a polarity: negated by a "not",
"never" or "n't" on its verb, by "no" on its subject or object, or by a verb that denies in
itself ("prohibit", "disable"). The evidence clause that says most of the same words is found,
and given its polarity the same way; a negation elsewhere in it ("with no exceptions") does not
count. A claim clause whose polarity differs from a well-aligned evidence clause is a
contradiction, unless the claim's own extra words carry the difference ("stored in a
*different* region" for "not stored in the same region") or the evidence only covers part of
what it says.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING

from audit_pipeline.specifics.language import parse_many
from audit_pipeline.text import wordlists
from audit_pipeline.text.tokens import STOPWORDS, content_stems, stem
from audit_pipeline.verification.batch import Batch
from audit_pipeline.verification.evidence_units import EvidenceUnit, evidence_unit_analysis
from audit_pipeline.verification.fields import is_field_line
from audit_pipeline.verification.signals import ANTONYMS, DENYING_WORDS, HEDGES, NEGATION_WORDS

if TYPE_CHECKING:
    from spacy.tokens import Doc, Token

# Share of the claim clause's content words the evidence clause must say, and how many; a
# clause of fewer words ("the amount can vary") says too little to be held against another.
# Not stage parameters: the polarity reading is one analysis of the batch, shared by the
# polarity check and the entailment check (which lets a modal claim stated the evidence's way
# round stand), so both read it with the same values; a change here is a code change, which
# changes the verifier's identity (``digests.py``).
MIN_COVERAGE = 0.75
MIN_SHARED = 2
MIN_CLAUSE_WORDS = 3
# The word lists are files in ``verification/words/`` (read by ``text/wordlists.py``).
# Words that turn a statement round by themselves: a claim that adds one of these to the
# evidence's words may be a faithful restatement of a negated sentence.
_TURNING = frozenset(stem(word) for word in wordlists.words("verification", "turning"))
# Predicates that state the same thing in policy language: a clause is compared only with a
# clause whose predicate is the same word or one of its group ("I do not enforce MFA" against
# "MFA is required"; "SMS can be used" against "SMS is not permitted").
_PREDICATE_GROUPS = tuple(
    frozenset(stem(word) for word in group)
    for group in wordlists.groups("verification", "predicate_groups")
)
# Auxiliaries that make a clause a permission ("can", "may").
_PERMISSION_MODALS = wordlists.words("verification", "permission_modals")
_NAME_ENTITIES = frozenset({"ORG", "PERSON", "GPE", "LOC", "FAC", "PRODUCT", "NORP"})
# Deontic words: what a policy obliges ("must", "is required to") and what it permits ("may",
# "is allowed to"). "Must not" forbids (P-), "need not" only releases (O-); they differ.
_OBLIGING_MODALS = wordlists.words("verification", "obliging_modals")
_OBLIGING_WORDS = frozenset(stem(w) for w in wordlists.words("verification", "obliging"))
_PERMITTING_WORDS = frozenset(stem(w) for w in wordlists.words("verification", "permitting"))
_FORBIDDING_WORDS = frozenset(stem(w) for w in wordlists.words("verification", "forbidding"))
_MODAL_WORDS = (
    _OBLIGING_WORDS
    | _PERMITTING_WORDS
    | _FORBIDDING_WORDS
    | {stem(w) for w in wordlists.words("verification", "modal_frame")}
)
PERMIT_FORBID = frozenset({"P+", "P-"})
# Deontic modes that cannot both hold of the same act.
_CONTRARY_MODES = frozenset(
    {frozenset({"O+", "O-"}), frozenset({"P+", "P-"}), frozenset({"O+", "P-"})}
)
# Words that carry a clause's verb with it: its auxiliaries ("must not be re-energized" has its
# "not" on the auxiliary "be").
_VERB_GROUP = frozenset({"aux", "auxpass", "cop", "prt"})
_ARGUMENTS = frozenset({"nsubj", "nsubjpass", "dobj", "attr", "expl"})
_NEGATIVE_PRONOUNS = wordlists.words("verification", "negative_pronouns")
_LIMIT_WORDS = wordlists.words("verification", "limit_words")
_BOUND_PHRASES = wordlists.pairs("verification", "bound_phrases")
# A number as a bound phrase's value: "no more than 8", "up to £2,000", "63 °C or above".
_BOUNDED = re.compile(
    "|".join(
        [
            rf"\b{re.escape(p.removesuffix(' ...'))}\s+[£$€]?\d"
            for p in _BOUND_PHRASES
            if p.endswith("...")
        ]
        + [rf"\d[^.;,]{{0,24}}?\s{re.escape(p)}\b" for p in _BOUND_PHRASES if not p.endswith("...")]
    ),
    re.IGNORECASE,
)


@dataclass(frozen=True)
class PolarityFinding:
    """A claim clause whose polarity differs from the evidence clause about the same thing."""

    claim_clause: str
    evidence: str
    chunk_id: str
    claim_negated: bool  # True: the claim denies what the evidence asserts
    # The stance words of both clauses ("is not required" against "is required").
    claim_words: str = ""
    evidence_words: str = ""

    def describe(self) -> str:
        snippet = self.evidence if len(self.evidence) <= 140 else self.evidence[:137] + "..."
        said = f"'{self.claim_words}' where the evidence says '{self.evidence_words}': "
        named = said if self.claim_words and self.evidence_words else ""
        if self.claim_negated:
            return f"denies what the evidence states ({named}{snippet!r})"
        return f"states what the evidence rules out ({named}{snippet!r})"


@dataclass(frozen=True)
class Clause:
    text: str
    stems: frozenset[str]
    negated: bool
    predicates: frozenset[str]  # the head's stem, and "can" when a permission modal goes with it
    # What the clause obliges or permits ("O+" must, "O-" need not, "P+" may, "P-" must not), or
    # "" for a plain statement; ``arguments`` are its words without the modal ones.
    mode: str = ""
    arguments: frozenset[str] = frozenset()
    names: frozenset[str] = frozenset()  # stems of the named entities among its words
    # The words that say its stance, in order: the verb group with its negation, modal and
    # complement ("is not required", "must not take", "nobody may"), for a reason to quote.
    stance: str = ""


def same_predicate(a: Clause, b: Clause) -> bool:
    if a.predicates & b.predicates:
        return True
    return any(a.predicates & group and b.predicates & group for group in _PREDICATE_GROUPS)


def _is_negation(token: Token) -> bool:
    lowered = token.lower_
    return token.dep_ == "neg" or lowered in ("never", "not", "n't") or lowered.endswith("n't")


def _has_subject(token: Token) -> bool:
    return any(c.dep_ in ("nsubj", "nsubjpass") for c in token.children)


def clause_heads(doc: Doc) -> list[Token]:
    heads: list[Token] = []
    for token in doc:
        if token.dep_ == "ROOT" or (
            token.dep_ == "conj"
            and token.pos_ in ("VERB", "AUX")
            and any(c.dep_ in ("nsubj", "nsubjpass") for c in token.children)
        ):
            heads.append(token)
    return heads


def read_clause(head: Token) -> Clause:
    """The head's words (without the coordinated clauses that have a subject of their own:
    those are statements of their own) and the polarity of the head."""
    words: list[Token] = []
    stack = [head]
    while stack:
        token = stack.pop()
        words.append(token)
        stack.extend(
            child
            for child in token.children
            if not (child.dep_ == "conj" and child.pos_ in ("VERB", "AUX") and _has_subject(child))
        )
    group = [head, *(c for c in head.children if c.dep_ in _VERB_GROUP)]
    # "Samples are not to be collected": the copula's complement carries the verb and its "not".
    if head.lemma_ == "be":
        for complement in (c for c in head.children if c.dep_ == "xcomp"):
            group += [complement, *(c for c in complement.children if c.dep_ in _VERB_GROUP)]
    negators = [c for member in group for c in member.children if _is_negation(c)]
    negative_arguments = [
        child
        for child in head.children
        if child.dep_ in _ARGUMENTS
        and (
            child.lower_ in _NEGATIVE_PRONOUNS
            or any(
                grand.dep_ == "det" and grand.lower_ in ("no", "neither")
                for grand in child.children
            )
        )
    ]
    negations = len(negators) + len(negative_arguments)
    if stem(head.lemma_.lower()) in DENYING_WORDS or stem(head.lower_) in DENYING_WORDS:
        negations += 1
    acomp = [c for c in head.children if c.dep_ in ("acomp", "oprd")]
    if any(stem(c.lower_) in DENYING_WORDS for c in acomp):
        negations += 1
    stance_tokens = {t.i: t for t in (*group, *negators, *negative_arguments, *acomp)}
    words.sort(key=lambda t: t.i)
    # Names are left out: a restatement names the company or omits it at will.
    stems = frozenset(
        stem(t.lower_)
        for t in words
        if (t.is_alpha or t.like_num)
        and t.lower_ not in STOPWORDS
        and t.lower_ not in NEGATION_WORDS
        and not _is_negation(t)
    )
    text = " ".join(t.text for t in words)
    mode = _mode(head, group, negations % 2 == 1)
    # What is obliged or permitted is named by its objects ("cash, precious metals or
    # jewellery"); the verbs ("include", "send") are the modal frame.
    verbs = {stem(head.lemma_.lower()), stem(head.lower_)} | {
        stem(c.lower_) for c in head.children if c.dep_ == "xcomp"
    }
    arguments = stems - _MODAL_WORDS - verbs
    names = frozenset(stem(t.lower_) for t in words if t.ent_type_ in _NAME_ENTITIES)
    predicates = {stem(head.lemma_.lower()), stem(head.lower_)}
    predicates.update(
        stem(c.lower_) for c in head.children if c.dep_ in ("acomp", "oprd", "xcomp", "attr")
    )
    if any(c.lower_ in _PERMISSION_MODALS for c in head.children if c.dep_ == "aux"):
        predicates.add("can")
    return Clause(
        text,
        stems - HEDGES,
        negations % 2 == 1,
        frozenset(predicates),
        mode,
        arguments - HEDGES,
        names,
        " ".join(
            stance_tokens[i].text for i in sorted(stance_tokens) if not stance_tokens[i].is_punct
        ),
    )


def _mode(head: Token, group: Sequence[Token], negated: bool) -> str:
    """The clause's deontic mode: what it obliges or permits, and whether it denies that."""
    auxiliaries = {t.lower_ for t in group[1:] if t.dep_ in ("aux", "auxpass")}
    if head.lemma_ == "be" and "to" in auxiliaries:
        auxiliaries.add("must")  # "are to be collected": an instruction
    words = {stem(head.lemma_.lower()), stem(head.lower_)} | {
        stem(c.lower_)
        for c in head.children
        if c.dep_ in ("acomp", "oprd")
        # "free to bring" permits; "free of charge", "free for members" is a price.
        and (c.lower_ != "free" or any(g.dep_ == "xcomp" for g in c.children))
    }
    has_complement = any(c.dep_ == "xcomp" for c in head.children)
    if words & _FORBIDDING_WORDS:
        # "prohibited" is already counted as a negation: odd, it forbids; even ("not
        # prohibited"), it permits.
        return "P-" if negated else "P+"
    if auxiliaries & _OBLIGING_MODALS:
        return "P-" if negated else "O+"  # "must not" forbids
    if auxiliaries & _OBLIGING_WORDS:
        return "O-" if negated else "O+"  # "need not submit": "need" as an auxiliary
    if words & _OBLIGING_WORDS or (stem(head.lower_) == "have" and has_complement):
        return "O-" if negated else "O+"  # "need not", "not required to" only release
    if auxiliaries & _PERMISSION_MODALS or words & _PERMITTING_WORDS:
        return "P-" if negated else "P+"
    return ""


def _clauses(doc: Doc) -> list[Clause]:
    return [read_clause(head) for head in clause_heads(doc)]


@lru_cache(maxsize=8192)
def clauses_of(text: str) -> tuple[Clause, ...]:
    """The clauses of an evidence sentence, read once for all the claims it is compared with."""
    return tuple(_clauses(parse_many([text])[0]))


def _coverage(claim: Clause, other: Clause) -> tuple[float, int] | None:
    """How much of what the claim clause says the evidence clause says too, or None when they
    are not about the same act: two deontic clauses are compared on their arguments (what is
    obliged or permitted, by whom), other clauses only when their predicates agree. Ties go to
    the clause that shares more words."""
    # A name the evidence clause leaves out (the company's own) neither counts for nor against.
    omitted = claim.names - other.stems
    if claim.mode and other.mode and claim.arguments - omitted:
        said = claim.arguments - omitted
        shared = len(said & other.arguments)
        return (shared / len(said), shared) if shared >= MIN_SHARED else None
    if not same_predicate(claim, other):
        return None
    said = claim.stems - omitted
    shared = len(said & other.stems)
    return (shared / len(said), shared) if said and shared >= MIN_SHARED else None


def _limits(text: str) -> frozenset[str]:
    """The limit words and bounded numbers of ``text`` ("only", "no more than 8")."""
    words = {w.strip(".,;:") for w in text.lower().split()}
    found = {m.group().lower() for m in _BOUNDED.finditer(text)}
    return frozenset((words & _LIMIT_WORDS) | found)


def limited(text: str) -> bool:
    """Whether ``text`` limits what it permits or forbids (``words/limit_words.txt``, or a
    bound on a number): "can take no more than 8" says what "must not take more than 8" says,
    "may ... only once" what "must not ... more than once" says."""
    return bool(_limits(text))


def _limited_pair(claim: Clause, other: Clause) -> bool:
    """A permission and a prohibition limited otherwise ("no more than 8" against "more than
    8"): neither contrary nor the same way round; the bound is the ``direction`` check's to
    compare. Where both say the same bound ("work above 600 volts is permitted" against "...
    is prohibited"), the bound says what the act is about and the modes are contrary."""
    if frozenset({claim.mode, other.mode}) != PERMIT_FORBID:
        return False
    mine, theirs = _limits(claim.text), _limits(other.text)
    return bool(mine | theirs) and mine != theirs


def _contrary(claim: Clause, other: Clause) -> bool:
    if claim.mode and other.mode:
        return frozenset({claim.mode, other.mode}) in _CONTRARY_MODES
    return claim.negated != other.negated


def _turns(extra: frozenset[str], other: frozenset[str]) -> bool:
    """An extra word that turns the statement round by itself, or the opposite of a word of
    the other side ("not optional" against "required")."""
    return any(word in _TURNING or ANTONYMS.get(word) in other for word in extra)


@dataclass(frozen=True)
class PolarityReading:
    """What the evidence says of the claim's stance: a clause it states the other way round
    (``contrary``), and whether a negated or modal claim clause is stated the same way round
    (``agrees``: "Lines cannot be re-energized" against "A line must not be re-energized")."""

    contrary: PolarityFinding | None = None
    agrees: bool = False


def check_polarity(claim: str, units: Sequence[EvidenceUnit]) -> PolarityReading:
    """The first clause of ``claim`` that a well-aligned evidence clause states the other way
    round, and whether its negated or modal clauses are stated the same way round."""
    if not units:
        return PolarityReading()
    claim_clauses = [
        c for c in _clauses(parse_many([claim])[0]) if len(c.stems) >= MIN_CLAUSE_WORDS
    ]
    if not claim_clauses:
        return PolarityReading()
    candidates = [
        u
        for u in units
        if not is_field_line(u.text)
        and any(len(c.stems & u.stems) >= MIN_SHARED for c in claim_clauses)
    ]
    if not candidates:
        return PolarityReading()
    parse_many([u.text for u in candidates])  # the new ones in one batch
    agrees = False
    for clause in claim_clauses:
        best: tuple[tuple[float, int], Clause, EvidenceUnit] | None = None
        for unit in candidates:
            for other in clauses_of(unit.text):
                coverage = _coverage(clause, other)
                if coverage is not None and (best is None or coverage > best[0]):
                    best = (coverage, other, unit)
        if best is None or best[0][0] < MIN_COVERAGE:
            continue
        _, other, unit = best
        if _limited_pair(clause, other):
            continue
        if not _contrary(clause, other):
            agrees = agrees or clause.negated or bool(clause.mode)
            continue
        if _turns(clause.stems - other.stems, other.stems) or _turns(
            other.stems - clause.stems, clause.stems
        ):
            continue
        denies = clause.negated if not (clause.mode and other.mode) else clause.mode in ("O-", "P-")
        found = PolarityFinding(
            clause.text, unit.text, unit.chunk_id, denies, clause.stance, other.stance
        )
        return PolarityReading(found)
    return PolarityReading(agrees=agrees)


def polarity_analysis(batch: Batch) -> list[PolarityReading]:
    """The polarity reading of every claim of ``batch`` against its evidence; the evidence
    units that share words with a claim are parsed in one batch first."""
    claims = [claim.text for claim in batch.claims]
    unit_sets = batch.analysis(evidence_unit_analysis)
    wanted: set[str] = set()
    for claim, units in zip(claims, unit_sets, strict=True):
        stems = frozenset(content_stems(claim))
        wanted.update(u.text for u in units if len(stems & u.stems) >= MIN_SHARED)
    parse_many(sorted(wanted))
    return [check_polarity(claim, units) for claim, units in zip(claims, unit_sets, strict=True)]
