"""Reading form (issue 31, item 6): invisible characters and compatibility forms never change
what a check reads, and spans map back into the text as written."""

from __future__ import annotations

import unicodedata

from hypothesis import given
from hypothesis import strategies as st

from audit_pipeline.text.normalize import normalize, reading_form

# Zero-width space, non-joiner, joiner, word joiner, soft hyphen, the bidi embeddings,
# overrides and isolates, the byte-order mark: all Unicode format characters (Cf).
INVISIBLE = [
    "\u200b", "\u200c", "\u200d", "\u2060", "\u00ad", "\u202a", "\u202b", "\u202c",
    "\u202d", "\u202e", "\u2066", "\u2067", "\u2068", "\u2069", "\ufeff",
]  # fmt: skip
WORDS = st.text(alphabet=st.characters(codec="ascii", categories=("L", "N")), min_size=1)
SENTENCES = st.lists(WORDS, min_size=1, max_size=8).map(" ".join)


@given(
    SENTENCES,
    st.lists(st.tuples(st.integers(min_value=0), st.sampled_from(INVISIBLE)), max_size=6),
)
def test_invisible_characters_change_nothing_a_check_reads(text: str, inserts: list) -> None:
    written = text
    for position, char in inserts:
        at = position % (len(written) + 1)
        written = written[:at] + char + written[at:]
    assert reading_form(written) == text


@given(SENTENCES, st.integers(min_value=0), st.sampled_from(INVISIBLE))
def test_a_span_of_the_reading_form_maps_onto_the_same_words_as_written(
    text: str, position: int, char: str
) -> None:
    at = position % (len(text) + 1)
    written = text[:at] + char + text[at:]
    read = normalize(written)
    for start in range(len(read.text)):
        for end in range(start + 1, len(read.text) + 1):
            first, last = read.to_original(start, end)
            assert reading_form(written[first:last]) == read.text[start:end]


@given(st.text(max_size=40))
def test_the_reading_form_is_stable_and_free_of_format_characters(text: str) -> None:
    read = reading_form(text)
    assert reading_form(read) == read
    assert not any(unicodedata.category(char) == "Cf" for char in read)
    assert len(normalize(text).origins) in (0, len(read) + 1)


def test_compatibility_forms_are_folded() -> None:
    assert reading_form("\uff34\uff2c\uff33 \uff11.\uff12") == "TLS 1.2"  # full-width
    assert reading_form("99\u00a0days") == "99 days"  # no-break space
    assert reading_form("ﬁve") == "five"  # ligature
