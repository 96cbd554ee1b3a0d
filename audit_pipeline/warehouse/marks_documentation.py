"""What migrations 20 and 21 add, and what analysts read about it (DuckDB comments): the
analysts' marks, the verifier's own verdict kept beside one a mark set, the marks with what
superseded them, the verifier's quality measured on the marks, and the features a calibration
fitted on.

The quality view is written here as SQL because its Wilson intervals repeat one expression per
figure: ``wilson`` writes it once.
"""

from __future__ import annotations

# z of a two-sided 95 % interval.
Z = 1.959964


def wilson(hits: str, total: str, side: str) -> str:
    """The SQL of one bound (``side`` "-" low, "+" high) of the Wilson score interval of
    ``hits`` out of ``total`` (NULL when ``total`` is 0)."""
    p = f"({hits})::DOUBLE / nullif({total}, 0)"
    n = f"nullif({total}, 0)"
    return (
        f"(({p} + {Z * Z}/(2*{n}) {side} {Z}*sqrt({p}*(1-{p})/{n} + {Z * Z}/(4*{n}*{n})))"
        f" / (1 + {Z * Z}/{n}))"
    )


MARKS_TABLE = """
CREATE TABLE marks (
    seq              BIGINT NOT NULL DEFAULT nextval('marks_seq'),
    mark_id          VARCHAR PRIMARY KEY,
    marked_at        TIMESTAMPTZ NOT NULL,
    marked_by        VARCHAR NOT NULL,
    audit_id         VARCHAR NOT NULL,
    claim_id         VARCHAR NOT NULL,
    target           VARCHAR,
    prompt_id        VARCHAR NOT NULL,
    turn             INTEGER NOT NULL,
    claim_text       VARCHAR NOT NULL,
    verdict_key      VARCHAR,
    evidence_state   VARCHAR NOT NULL,
    label_given      VARCHAR,
    decided_by_given VARCHAR,
    label_marked     VARCHAR NOT NULL
        CHECK (label_marked IN ('supported', 'unsupported', 'contradicted')),
    note             VARCHAR,
    source           VARCHAR NOT NULL
)
"""

MARKS_VIEW = """
CREATE VIEW v_marks AS
SELECT m.*,
       lead(m.mark_id) OVER later AS superseded_by,
       lead(m.marked_at) OVER later AS superseded_at,
       lead(m.mark_id) OVER later IS NULL AS live
FROM marks m
WINDOW later AS (PARTITION BY m.prompt_id, m.turn, m.claim_text ORDER BY m.seq)
"""

# Per label (and "hallucination": any flagging label against unsupported or contradicted),
# per deciding stage and for the whole chain (decided_by NULL).
QUALITY_VIEW = f"""
CREATE VIEW v_verifier_quality AS
WITH live AS (
    SELECT * FROM v_marks WHERE live AND label_given IS NOT NULL
), pairs AS (
    SELECT coalesce(l.decided_by_given, 'none') AS stage, lab.label,
           CASE WHEN lab.label = 'hallucination'
                THEN l.label_given IN ('unsupported', 'contradicted', 'stale')
                ELSE l.label_given = lab.label END AS said,
           CASE WHEN lab.label = 'hallucination'
                THEN l.label_marked IN ('unsupported', 'contradicted')
                ELSE l.label_marked = lab.label END AS truly
    FROM live l
    CROSS JOIN (VALUES ('hallucination'), ('supported'), ('unsupported'), ('contradicted'))
        AS lab(label)
), totals AS (
    SELECT label, count(*) FILTER (WHERE truly) AS truly_marked FROM pairs GROUP BY label
), counts AS (
    SELECT CASE WHEN grouping(stage) = 1 THEN NULL ELSE stage END AS decided_by, label,
           count(*) AS marked_claims,
           count(*) FILTER (WHERE said) AS given,
           count(*) FILTER (WHERE said AND truly) AS correct
    FROM pairs GROUP BY GROUPING SETS ((stage, label), (label))
)
SELECT c.decided_by, c.label, c.marked_claims, c.given, c.correct,
       t.truly_marked,
       c.correct::DOUBLE / nullif(c.given, 0) AS precision,
       {wilson("c.correct", "c.given", "-")} AS precision_low,
       {wilson("c.correct", "c.given", "+")} AS precision_high,
       c.correct::DOUBLE / nullif(t.truly_marked, 0) AS recall,
       {wilson("c.correct", "t.truly_marked", "-")} AS recall_low,
       {wilson("c.correct", "t.truly_marked", "+")} AS recall_high
FROM counts c JOIN totals t USING (label)
"""

MARK_FEATURES_TABLE = """
CREATE TABLE mark_features (
    audit_id      VARCHAR NOT NULL,
    prompt_id     VARCHAR NOT NULL,
    turn          INTEGER NOT NULL,
    features_key  VARCHAR NOT NULL,
    claims        VARCHAR NOT NULL,
    computed_at   TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (audit_id, prompt_id, turn, features_key)
)
"""

MARKS_DOCUMENTATION: dict[str, str] = {
    "TABLE marks": "Analysts' marks: one row per mark an analyst made on a claim's verdict "
    "(audit-pipeline mark, a marks file, POST /marks or the served report). Rows are never "
    "deleted or changed: a later mark on the same claim supersedes (v_marks).",
    "COLUMN marks.seq": "The order marks were recorded in (the marks sensor's cursor).",
    "COLUMN marks.marked_by": "Who marked it (--by, the file's by column, the request's by "
    "or the served report's user; default the login name).",
    "COLUMN marks.prompt_id": "With turn and claim_text the claim key the mark applies to in "
    "later audits, of any target.",
    "COLUMN marks.verdict_key": "The verdict key of the verdict marked (claims and evidence of "
    "its answer and the verifier identity).",
    "COLUMN marks.evidence_state": "Digest of the claim's own evidence set when marked (chunk "
    "ids and text hashes): the mark applies only while a later verdict of the claim has the "
    "same; a vault edit under the claim retires it, a verifier upgrade does not.",
    "COLUMN marks.label_given": "The verifier's label when the mark was made (the verifier's "
    "own, also where an earlier mark had set the verdict).",
    "COLUMN marks.decided_by_given": "The stage of the verifier chain that had decided that "
    "label (verdicts.decided_by).",
    "COLUMN marks.label_marked": "The label the analyst gives: supported, unsupported or "
    "contradicted.",
    "COLUMN marks.source": "Where the mark came from: cli, file, api or report.",
    "COLUMN verdicts.decided_by": "The stage of the verifier chain that set the label: "
    "specifics, polarity, direction, modality, agent, condition, scope, rewrite, entailment "
    "(checks), model (the learned reading), judge or "
    "reader (a second stage), staleness, glossary, mark (an analyst's mark), or a plugin's; "
    "none when no stage decided.",
    "COLUMN verdicts.verifier_verdict": "JSON: the verifier chain's own verdict where an "
    "analyst's mark changed it (decided_by = mark, or a note that a mark no longer applies); "
    "carry-over reuses this one and applies the marks of the day again. NULL otherwise.",
    "VIEW v_marks": "Every mark with the one that superseded it (superseded_by, "
    "superseded_at: a later mark on the same claim key) and live = true for the latest.",
    "VIEW v_verifier_quality": "The verifier's precision and recall on the claims analysts "
    "marked (live marks only), per label (hallucination = any flagging label against "
    "unsupported or contradicted) and per deciding stage (decided_by; NULL = the whole "
    "chain), with 95 % Wilson intervals. given: marked claims the stage labelled so; "
    "correct: of those, the analyst agreed; truly_marked: marked claims of that label "
    "whatever decided them (a stage's recall is its share of them).",
    "TABLE mark_features": "What audit-pipeline calibrate fitted on: per marked answer, each "
    "claim's alignment features, the label the checks gave it before the learned model and "
    "the other inputs the model's labelling reads (JSON in claims), under the code's features "
    "key; computed once from the audit's claims and evidence.",
}
