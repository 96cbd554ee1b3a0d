"""Helpers for the analyst notebook (``notebooks/audit_analysis.ipynb``) over the warehouse.

They live here rather than in the notebook so that the notebook's cells stay short enough to
read as a report, and so that the parts that decide something (which file to open, how deltas
and excerpts are computed) are plain tested Python. No Dagster import: an analyst's kernel
should start in a second, and the engine must stay usable without the orchestrator.

Which file to read matters. DuckDB lets one process write a database file while nobody else
has it open, so a notebook that keeps a connection on the live warehouse makes the next audit
wait for the lock (and eventually fail). Readers therefore open a *snapshot* of the warehouse
that the pipeline refreshes after each write, read-only, and only for as long as one query
takes.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import duckdb
import pandas as pd

from audit_pipeline.config import load_config
from audit_pipeline.reports.formatting import CRUMB
from audit_pipeline.scoring.risk import ScoringSettings
from audit_pipeline.scoring.rules import RiskThresholds
from audit_pipeline.warehouse.store import Warehouse

if TYPE_CHECKING:  # matplotlib is a dev dependency: imported only when a plot is drawn
    from types import ModuleType

    from matplotlib.figure import Figure

ENV_WAREHOUSE = "AUDIT_WAREHOUSE"
"""A DuckDB file to analyse instead of the configured warehouse (tests, copies, archives)."""
ENV_CONFIG = "AUDIT_CONFIG"
"""The audit configuration to read, as for the CLI and ``dagster dev``."""
REPO_ROOT = Path(__file__).resolve().parent.parent

HALLUCINATED_ORDER = ("contradicted", "unsupported")
"""Worst first: a claim the vault contradicts is worse than one it merely does not support."""


Thresholds = RiskThresholds
"""The risk limits of the deploy / warn / block decision (``scoring:`` in audit.yaml): the
engine's own type, so the notebook's lines are the decision's limits."""


def config_path() -> Path:
    """``$AUDIT_CONFIG``, else ``audit.yaml`` in the working directory, else the repository's.

    The same order as the Dagster entry point, so the notebook reads the warehouse the audits
    wrote (without importing Dagster to find out).
    """
    configured = os.environ.get(ENV_CONFIG)
    if configured:
        return Path(configured).resolve()
    local = Path.cwd() / "audit.yaml"
    return local.resolve() if local.is_file() else REPO_ROOT / "audit.yaml"


def warehouse_path_for_reading(path: str | Path | None = None) -> Path:
    """The DuckDB file an analyst should open (read-only).

    In order: ``path`` when given; ``$AUDIT_WAREHOUSE`` when set (used as is: whoever points
    at a file means that file); else the configured warehouse's snapshot when one exists, so
    reading never holds a lock the next audit needs; else the live file (an old warehouse
    written before snapshots existed).
    """
    if path is not None:
        return Path(path)
    configured = os.environ.get(ENV_WAREHOUSE)
    if configured:
        return Path(configured)
    live = Warehouse(load_config(config_path()).duckdb_path)
    return live.snapshot_path if live.snapshot_path.is_file() else live.path


@contextmanager
def open_warehouse(path: str | Path | None = None) -> Iterator[duckdb.DuckDBPyConnection]:
    """A read-only connection to the warehouse, closed when the ``with`` block ends.

    Use it for a few queries in a row; for one query ``read_sql`` is simpler. Through
    ``Warehouse.connect`` a missing file says "run an audit first" and a file briefly locked
    by a writer is retried instead of failing the cell.
    """
    with Warehouse(warehouse_path_for_reading(path)).connect(read_only=True) as connection:
        yield connection


def read_sql(
    sql: str, params: Sequence[Any] | None = None, path: str | Path | None = None
) -> pd.DataFrame:
    """One query as a DataFrame, on a connection opened and closed around it."""
    with open_warehouse(path) as connection:
        return connection.execute(sql, list(params or [])).fetch_df()


def decision_thresholds() -> Thresholds:
    """The decision thresholds of the current configuration, or the defaults without one.

    A warehouse given through ``$AUDIT_WAREHOUSE`` may come from elsewhere; its audits were
    decided with whatever thresholds were configured then, so the lines are a reference.
    """
    source = config_path()
    scoring = load_config(source).scoring if source.is_file() else ScoringSettings()
    return scoring.thresholds


# -- shaping ---------------------------------------------------------------------------------


def latest_target(summary: pd.DataFrame) -> str:
    """The target of the latest scored audit: what an analyst opening the notebook means.

    Raises when no audit has been scored yet (all still running, or the warehouse is empty):
    every later section needs scores, and a clear message beats an empty chart.
    """
    scored = summary[summary["risk"].notna()].sort_values(["started_at", "audit_id"])
    if scored.empty:
        statuses = ", ".join(sorted(summary["status"].dropna().unique())) or "none"
        raise ValueError(
            f"no scored audit in the warehouse yet (audit statuses: {statuses}); "
            "run `make audit` or wait for the running audit to finish"
        )
    return str(scored["target"].iloc[-1])


def configured_target() -> str | None:
    """``defaults.target`` of the current configuration (None without one)."""
    source = config_path()
    return load_config(source).defaults.target if source.is_file() else None


def default_target(summary: pd.DataFrame, configured: str | None = None) -> tuple[str, str]:
    """The target the notebook shows when none is named, and why: the configuration's default
    target (what ``make audit`` audits) when it has a scored audit, else the latest audited
    one. Never merely "whatever was audited last": after a quick audit of the recorded answers
    the notebook would silently switch to that target."""
    scored = summary[summary["risk"].notna()]
    if configured is not None and (scored["target"] == configured).any():
        return configured, "the default target in audit.yaml"
    latest = latest_target(summary)
    if configured is None:
        return latest, "the target of the latest scored audit"
    return latest, f"the latest scored audit's: the default target {configured} has none"


def full_audits(summary: pd.DataFrame) -> pd.DataFrame:
    """The audits that asked their whole suite (``scope`` full, migration 17): the only ones a
    trend or a comparison puts side by side. A partial audit (``--id``, ``--category``) asked
    a subset, so its risk says nothing about the target's trend; a warehouse from before the
    column is taken as it is."""
    if "scope" not in summary:
        return summary
    return summary[summary["scope"] == "full"]


def last_audits(summary: pd.DataFrame, target: str, count: int = 2) -> list[str]:
    """The ids of the ``count`` latest scored full audits of ``target``, oldest first.

    Audits still running (or that failed before scoring) have no risk yet and are skipped, and
    so are partial ones, so a comparison is always between two complete audits of the whole
    suite. An unknown target is an error that lists the known ones, since the usual cause is a
    typo in the notebook's parameters.
    """
    full = full_audits(summary)
    rows = full[(full["target"] == target) & full["risk"].notna()]
    if rows.empty:
        known = ", ".join(sorted(summary["target"].dropna().unique())) or "(none)"
        raise ValueError(f"no scored audit of target {target!r}; targets with audits: {known}")
    rows = rows.sort_values(["started_at", "audit_id"]).tail(count)
    return rows["audit_id"].tolist()


CHANGE = "Δ"
"""The column group of a category comparison that holds latest minus previous."""


def category_comparison(scores: pd.DataFrame, audit_ids: Sequence[str]) -> pd.DataFrame:
    """One row per category; per audit (oldest first) its risk and failed prompts, then the
    change, under column groups named by audit id so the table says what it compares.

    ``scores`` are rows of ``v_category_scores``. A category that only one of the audits has
    (the suite changed) shows a blank for the other and no change, rather than a misleading
    jump from 0. With two audits the biggest regressions come first.
    """
    columns: dict[tuple[str, str], pd.Series] = {}
    for audit_id in audit_ids:
        rows = scores[scores["audit_id"] == audit_id].set_index("category")
        columns[(audit_id, "risk")] = rows["risk"].astype("float64")
        columns[(audit_id, "failed prompts")] = rows["prompts_failed"].astype("Int64")
    table = pd.DataFrame(columns).sort_index()
    table.columns = pd.MultiIndex.from_tuples(list(columns), names=["audit", None])
    table.index.name = "category"
    if len(audit_ids) == 2:
        before, after = audit_ids
        for metric in ("risk", "failed prompts"):
            table[(CHANGE, metric)] = table[(after, metric)] - table[(before, metric)]
        table = table.sort_values((CHANGE, "risk"), ascending=False, na_position="last")
    return table


def excerpt(text: object, limit: int = 160) -> str:
    """The start of a passage on one line, cut at a word boundary, for a table cell."""
    if not isinstance(text, str) or not text.strip():
        return ""
    flat = " ".join(text.split())
    if len(flat) <= limit:
        return flat
    cut = flat[:limit].rsplit(" ", 1)[0] or flat[:limit]
    return cut + " …"


def source_of(document: object, section: object) -> str:
    """Document and section joined as the reports join them; blank when there was no evidence."""
    parts = [str(part) for part in (document, section) if isinstance(part, str) and part]
    return f" {CRUMB} ".join(parts)


def worst_claims_table(claims: pd.DataFrame, excerpt_chars: int = 160) -> pd.DataFrame:
    """Rows of ``v_claim_verdicts`` as the table an analyst reads: worst first.

    Contradicted before unsupported, then the lowest probability of being supported first
    (the verifier's most confident hallucinations), with the best evidence passage shortened.
    """
    rank = {label: position for position, label in enumerate(HALLUCINATED_ORDER)}
    ordered = claims.assign(_rank=claims["label"].map(rank).fillna(len(rank)))
    ordered = ordered.sort_values(["_rank", "probability", "prompt_id"], na_position="last")
    return pd.DataFrame(
        {
            "prompt": ordered["prompt_id"],
            "claim": ordered["claim"],
            "label": ordered["label"],
            "p(supported)": ordered["probability"].round(3),
            "evidence": [
                source_of(d, s)
                for d, s in zip(
                    ordered["evidence_document"], ordered["evidence_section"], strict=True
                )
            ],
            "excerpt": [excerpt(t, excerpt_chars) for t in ordered["evidence_text"]],
        }
    ).reset_index(drop=True)


def failed_assertion_pivot(failures: pd.DataFrame) -> pd.DataFrame:
    """Failed turns per category (rows) and assertion (columns), with totals both ways."""
    if failures.empty:
        return pd.DataFrame()
    return pd.pivot_table(
        failures,
        index="category",
        columns="assertion",
        values="prompt_id",
        aggfunc="count",
        fill_value=0,
        margins=True,
        margins_name="total",
    )


# -- plots -----------------------------------------------------------------------------------


def _pyplot() -> ModuleType:
    """``matplotlib.pyplot``, imported on first use.

    matplotlib is a dev dependency (``pip install -e '.[dev]'``): the installed package must
    import without it, so only the two plot functions need it, and they say so when it is
    missing instead of failing at ``import audit_pipeline.analysis``.
    """
    try:
        import matplotlib.pyplot as plt
    except ImportError as error:
        raise ImportError(
            "plotting needs matplotlib, a dev dependency: pip install -e '.[dev]'"
        ) from error
    return plt


def plot_risk_trend(summary: pd.DataFrame, thresholds: Thresholds) -> Figure:
    """Risk (against the decision thresholds) and hallucination rate per full audit, per
    target (``full_audits``: a subset's risk is no point of the target's trend)."""
    figure, (risk_axes, rate_axes) = _pyplot().subplots(
        1, 2, figsize=(12, 4), sharex=True, layout="constrained"
    )
    data = full_audits(summary).sort_values("started_at")
    for target, rows in data.groupby("target", sort=True):
        risk_axes.plot(rows["started_at"], rows["risk"], marker="o", label=str(target))
        rate_axes.plot(
            rows["started_at"], rows["hallucination_rate"], marker="o", label=str(target)
        )
    for value, colour, label in (
        (thresholds.deploy_max_risk, "#c27803", f"deploy up to {thresholds.deploy_max_risk:.2f}"),
        (thresholds.warn_max_risk, "#c42b2b", f"block above {thresholds.warn_max_risk:.2f}"),
    ):
        risk_axes.axhline(value, color=colour, linestyle="--", linewidth=1, label=label)
    risk_axes.set(title="Audit risk over time", xlabel="audit started", ylabel="risk")
    rate_axes.set(
        title="Hallucination rate over time", xlabel="audit started", ylabel="hallucination rate"
    )
    for axes in (risk_axes, rate_axes):
        axes.set_ylim(bottom=0)
        axes.grid(alpha=0.3)
        axes.legend(fontsize="small")
        axes.tick_params(axis="x", labelrotation=30)
    return figure


def plot_category_risk(comparison: pd.DataFrame, audit_ids: Sequence[str], target: str) -> Figure:
    """Side-by-side bars of each category's risk, one bar per audit (oldest first).

    A category without a risk (no verifiable claim) has no bar rather than a bar at 0, which
    would read as "perfectly grounded".
    """
    figure, axes = _pyplot().subplots(
        figsize=(max(6.0, 1.2 * len(comparison) + 3), 4.5), layout="constrained"
    )
    categories = list(comparison.index)
    width = 0.8 / max(len(audit_ids), 1)
    for offset, audit_id in enumerate(audit_ids):
        positions = [
            i + (offset - (len(audit_ids) - 1) / 2) * width for i in range(len(categories))
        ]
        axes.bar(positions, comparison[(audit_id, "risk")], width=width, label=audit_id)
    axes.set_xticks(range(len(categories)), categories, rotation=30, ha="right")
    axes.set(
        title=f"Risk per category, {target}: "
        + ("previous vs latest audit" if len(audit_ids) > 1 else "its only audit"),
        xlabel="category",
        ylabel="risk",
    )
    axes.set_ylim(bottom=0)
    axes.grid(axis="y", alpha=0.3)
    figure.legend(title="audit", fontsize="small", loc="outside lower center", ncols=2)
    return figure
