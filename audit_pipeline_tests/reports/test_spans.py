"""Span segmentation: untrusted offsets never lose, duplicate or reorder response text."""

from __future__ import annotations

from audit_pipeline.reports.highlight_spans import Mark, error_ranges, place, runs, segments

TEXT = "Keys rotate quarterly. Backups are kept forever."


def mark(start: int, end: int, ref: str, label: str = "unsupported") -> Mark:
    return Mark(start, end, ref, ref.lower(), label)


def test_segments_join_back_to_the_text_and_carry_their_claims() -> None:
    parts = segments(TEXT, [mark(0, 21, "C1", "contradicted"), mark(12, 35, "C2")])

    assert "".join(p.text for p in parts) == TEXT
    assert [(p.text, [m.ref for m in p.marks]) for p in parts] == [
        ("Keys rotate ", ["C1"]),
        ("quarterly", ["C1", "C2"]),
        (". Backups are ", ["C2"]),
        ("kept forever.", []),
    ]
    assert parts[1].label == "contradicted"  # the most severe label wins an overlap
    assert [m.ref for m in parts[1].closing] == ["C1"]
    assert [m.ref for m in parts[2].closing] == ["C2"]


def test_unusable_marks_are_ignored() -> None:
    parts = segments(TEXT, [mark(-3, 4, "C1"), mark(5, 500, "C2"), mark(9, 2, "C3")])

    assert [p.text for p in parts] == [TEXT]
    assert parts[0].marks == ()


def test_place_clamps_offsets_and_falls_back_to_the_claim_text() -> None:
    assert place(TEXT, -5, 4, "Keys") == (0, 4)
    assert place(TEXT, 40, 999, None) == (40, len(TEXT))
    assert place(TEXT, 30, 10, "kept forever") == (35, 47)
    assert place(TEXT, 900, 950, "kept forever") == (35, 47)
    assert place(TEXT, 900, 950, "not in the text") is None
    assert place(TEXT, None, None, None) is None
    assert place("", 0, 10, "x") is None


def test_place_prefers_the_claim_text_over_offsets_that_select_something_else() -> None:
    assert place(TEXT, 0, 12, "kept forever") == (35, 47)  # offsets point elsewhere
    assert place(TEXT, 35, 47, "kept forever") == (35, 47)
    assert place(TEXT, 23, 47, "Backups are retained forever") == (23, 47)  # paraphrased


def test_runs_merge_adjacent_highlights_for_formats_that_cannot_nest() -> None:
    parts = segments(TEXT, [mark(0, 12, "C1"), mark(12, 21, "C2"), mark(35, 47, "C3")])

    assert [(lit, text, [m.ref for m in closing]) for lit, text, closing in runs(parts)] == [
        (True, "Keys rotate quarterly", ["C1", "C2"]),
        (False, ". Backups are ", []),
        (True, "kept forever", ["C3"]),
        (False, ".", []),
    ]


def test_error_spans_are_clipped_flag_their_segments_and_join_when_they_overlap() -> None:
    parts = segments(TEXT, [mark(0, 22, "C1")], [(12, 18), (15, 21), (-4, 2), (40, 90), (9, 3)])

    assert "".join(p.text for p in parts) == TEXT
    assert [(p.text, p.error, [m.ref for m in p.marks]) for p in parts] == [
        ("Ke", True, ["C1"]),
        ("ys rotate ", False, ["C1"]),
        ("quarterly", True, ["C1"]),
        (".", False, ["C1"]),
        (" Backups are kept ", False, []),
        ("forever.", True, []),  # clipped to the text (keeping it in a claim is the caller's job)
    ]


def test_error_ranges_move_claim_offsets_onto_the_response_or_drop_them() -> None:
    claim = "Backups are kept forever."
    placed = (23, 48)
    assert error_ranges(TEXT, placed, claim, [(12, 16)]) == [(35, 39)]  # "kept"
    assert error_ranges(TEXT, placed, claim, [(-3, 7), (17, 99)]) == [(23, 30), (40, 48)]
    # Placed by its text elsewhere than its offsets said: the words are found in the highlight.
    assert error_ranges(TEXT, (23, 48), "are kept", [(4, 8)]) == [(35, 39)]
    # A paraphrased claim whose words are not in the highlight marks nothing.
    assert error_ranges(TEXT, placed, "Backups are retained forever", [(12, 20)]) == []
    assert error_ranges(TEXT, placed, claim, [(5, 5), (9, 2)]) == []
