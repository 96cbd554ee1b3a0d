"""The offline claim extractor: sentences and clauses of the response, minus non-claims.

It is the default because it needs no model and no network, is deterministic (claim ids stay
stable across re-runs, so unchanged answers are not re-verified), and keeps exact spans.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from audit_pipeline.claims.claim import make_claim
from audit_pipeline.claims.filters import (
    LEADING_INTERJECTION,
    citation_holes,
    fallback_holes,
    is_non_factual,
    suggestion_holes,
)
from audit_pipeline.records.claims import Claim
from audit_pipeline.specifics.language import parse_many
from audit_pipeline.text.scripts import unread_script
from audit_pipeline.text.sentences import Span, clause_spans, sentence_spans, trim, word_count

_BULLET = re.compile(r"^\s*(?:[-*+•‣◦▪]|\d{1,3}[.)]|[A-Za-z][.)])\s+")
_QUOTE = re.compile(r"^\s*(?:>\s*)+")
_HEADING = re.compile(r"^\s*#{1,6}\s")
_RULE = re.compile(r"^\s*(?:[-*_]\s*){3,}$")
_TABLE_SEPARATOR = re.compile(r"^\s*\|?\s*:?-{2,}:?\s*(?:\|\s*:?-{2,}:?\s*)*\|?\s*$")
_FENCE = re.compile(r"^\s*(?:```|~~~)")
_WRAPPERS = (("**", "**"), ("__", "__"), ("*", "*"), ("`", "`"), ('"', '"'), ("“", "”"))


def _mask(text: str, holes: Sequence[Span]) -> str:
    """Blank out holes (same length, so offsets stay valid) before looking for boundaries."""
    chars = list(text)
    for start, end in holes:
        for i in range(start, end):
            if chars[i] != "\n":
                chars[i] = " "
    return "".join(chars)


def _outside_holes(start: int, end: int, holes: Sequence[Span]) -> list[Span]:
    segments = [(start, end)]
    for hole_start, hole_end in sorted(holes):
        next_segments: list[Span] = []
        for seg_start, seg_end in segments:
            if hole_end <= seg_start or hole_start >= seg_end:
                next_segments.append((seg_start, seg_end))
                continue
            next_segments.append((seg_start, max(seg_start, hole_start)))
            next_segments.append((min(seg_end, hole_end), seg_end))
        segments = next_segments
    return [segment for segment in segments if segment[0] < segment[1]]


def _strip_edges(text: str, start: int, end: int) -> Span:
    """Drop dangling separators, table pipes, and emphasis or quotes wrapping the whole span.

    A marker is removed only when the same marker closes the span, so ``**Bold** text`` keeps
    its asterisks while ``**Whole item**.`` becomes ``Whole item``.
    """
    start, end = trim(text, start, end)
    while end > start and text[end - 1] in ",;:–-|":  # noqa: RUF001
        end = trim(text, start, end - 1)[1]
    while start < end and text[start] == "|":
        start = trim(text, start + 1, end)[0]
    for opener, closer in _WRAPPERS:
        if not text.startswith(opener, start):
            continue
        body_end = end
        while body_end > start and text[body_end - 1] in ".!?":
            body_end -= 1
        inner_start, inner_end = start + len(opener), body_end - len(closer)
        if (
            inner_end > inner_start
            and text.startswith(closer, inner_end)
            and closer not in text[inner_start:inner_end]
        ):
            return trim(text, inner_start, inner_end)
    return start, end


def _is_heading(line: str, is_item: bool) -> bool:
    stripped = line.strip()
    if _HEADING.match(stripped):
        return True
    if is_item or re.search(r"[.!?]$", stripped.rstrip("*_ ")):
        return False
    if re.fullmatch(r"\*\*[^*]+\*\*:?|__[^_]+__:?", stripped):
        return True
    return word_count(stripped) <= 6 and not re.search(r"\d", stripped)


def content_lines(text: str) -> Iterator[tuple[int, int, bool]]:
    """(start, end, is_list_item) of each line that may hold claims, markers removed."""
    in_code = False
    position = 0
    for line in text.split("\n"):
        line_start, line_end = position, position + len(line)
        position = line_end + 1
        if _FENCE.match(line):
            in_code = not in_code
            continue
        if in_code or not line.strip() or _RULE.match(line) or _TABLE_SEPARATOR.match(line):
            continue
        quote = _QUOTE.match(line)
        offset = quote.end() if quote else 0
        bullet = _BULLET.match(line, offset)
        is_item = bullet is not None
        if bullet:
            offset = bullet.end()
        if _is_heading(line[offset:], is_item):
            continue
        yield line_start + offset, line_end, is_item


class SentenceClaimExtractor:
    """Sentence- and clause-level claims with exact character spans, of Latin-script text
    (an answer mostly in another script yields none: ``text/scripts.py``).

    ``fallback_sentences`` are the bot's configured "I don't know" answers: they, and generic
    refusal patterns, are never claims. Sentences of at least ``clause_min_words`` words are
    split into clauses (kind ``"clause"``) so a verdict points at the wrong part of a long
    sentence rather than at all of it.
    """

    name = "sentence"
    # 2: denials are claims, verbless clause pieces merge, bare numbers dropped; 3: an answer
    # mostly in a script other than Latin yields no claim (it was read, wrongly, wherever a
    # digit made a segment look like one).
    version = "3"

    def __init__(
        self,
        fallback_sentences: Sequence[str] = (),
        *,
        split_clauses: bool = True,
        clause_min_words: int = 12,
        min_words: int = 2,
    ) -> None:
        self.fallback_sentences = tuple(fallback_sentences)
        self.split_clauses = split_clauses
        self.clause_min_words = clause_min_words
        self.min_words = min_words

    def extract(self, response: str) -> list[Claim]:
        if unread_script(response) is not None:
            # Its rules are for Latin-script prose: an Arabic or Hebrew answer is not read at
            # all rather than cut where a digit happens to stand (completeness counts it).
            return []
        holes = (
            citation_holes(response)
            + fallback_holes(response, self.fallback_sentences)
            + suggestion_holes(response)
        )
        masked = _mask(response, holes)
        claims: list[Claim] = []
        for line_start, line_end, is_item in content_lines(masked):
            sentences = sentence_spans(masked, line_start, line_end)
            for sent_start, sent_end in sentences:
                kind = "item" if is_item and len(sentences) == 1 else "sentence"
                claims.extend(self._claims_of_sentence(response, sent_start, sent_end, holes, kind))
        return claims

    def _claims_of_sentence(
        self, response: str, start: int, end: int, holes: Sequence[Span], kind: str
    ) -> Iterator[Claim]:
        long_sentence = self.split_clauses and word_count(response[start:end]) >= (
            self.clause_min_words
        )
        if is_non_factual(
            response[start:end], self.fallback_sentences, check_refusal=not long_sentence
        ):
            return
        interjection = LEADING_INTERJECTION.match(response, start, end)
        if interjection:
            start = interjection.end()
        segments = [
            segment
            for segment in _outside_holes(start, end, holes)
            if re.search(r"[A-Za-z0-9]", response[segment[0] : segment[1]])
        ]
        if len(segments) > 1:
            kind = "clause"
        for seg_start, seg_end in segments:
            pieces = [(seg_start, seg_end)]
            if self.split_clauses and word_count(response[seg_start:seg_end]) >= (
                self.clause_min_words
            ):
                pieces = with_predicates(response, clause_spans(response, seg_start, seg_end))
            for piece_start, piece_end in pieces:
                span = _strip_edges(response, piece_start, piece_end)
                text = response[span[0] : span[1]]
                if word_count(text) < self.min_words and not re.search(r"\d", text):
                    continue
                if not re.search(r"[^\W\d_]", text):  # "3.": no word says what it is about
                    continue
                if is_non_factual(text, self.fallback_sentences):
                    continue
                piece_kind = "clause" if len(pieces) > 1 else kind
                yield make_claim(response, span[0], span[1], piece_kind)


def with_predicates(text: str, pieces: list[Span]) -> list[Span]:
    """Clause pieces of one sentence, each with a verb of its own: a piece with none ("only in
    region X", "with no exceptions") says nothing alone, so it stays with the clause before it
    (the first piece with the one after it) and keeps that clause's subject and verb."""
    if len(pieces) < 2:
        return pieces
    docs = parse_many([text[start:end] for start, end in pieces])
    merged: list[Span] = []
    pending: int | None = None  # the start of a leading piece with no verb
    for (start, end), doc in zip(pieces, docs, strict=True):
        has_verb = any(token.pos_ in ("VERB", "AUX") for token in doc)
        if pending is not None:
            start, pending = pending, None
        if has_verb or not merged:
            if not has_verb:
                pending = start
                continue
            merged.append((start, end))
        else:
            merged[-1] = (merged[-1][0], end)
    if pending is not None:  # no piece had a verb: the sentence stays whole
        merged.append((pending, pieces[-1][1]))
    return merged
