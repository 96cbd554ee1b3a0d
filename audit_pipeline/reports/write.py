"""Write an audit's HTML and Markdown reports next to each other, atomically.

Reports are served straight from the output directory (CI artefacts, a static file server), so
a reader must never see half a file: each report is written to a temporary file in the same
directory and moved into place with ``os.replace``, which is atomic on POSIX and Windows. A
failed render leaves the previous report of that audit untouched.
"""

from __future__ import annotations

import os
import re
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from audit_pipeline.reports.data import load_report_data
from audit_pipeline.reports.html import render_html
from audit_pipeline.reports.markdown_report import render_markdown
from audit_pipeline.scoring.rules import DEFAULT_THRESHOLDS, RiskThresholds
from audit_pipeline.warehouse.store import Warehouse

if TYPE_CHECKING:
    from audit_pipeline.config import AuditConfig
    from audit_pipeline.scoring.audit_outcome import AuditOutcome
    from audit_pipeline.scoring.gates import GateResult

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]")


@dataclass(frozen=True)
class ReportPaths:
    html: Path
    markdown: Path


def write_report(
    warehouse: Warehouse,
    audit_id: str,
    out_dir: str | Path,
    *,
    summary: Mapping[str, Any] | None = None,
    thresholds: RiskThresholds = DEFAULT_THRESHOLDS,
    repeats: Mapping[str, Any] | None = None,
    gates: Sequence[GateResult] = (),
) -> ReportPaths:
    """Render both reports of ``audit_id`` into ``out_dir/<audit_id>/`` (see
    ``report_dir_name``).

    ``summary`` is the engine's summary of the audit (see ``reports.report_summary``); without
    it the figures are derived from the warehouse rows. ``repeats`` (``combine_repeats`` of a
    ``--repeat N`` run) adds the flakiness table: each prompt's fail count and class.
    ``gates`` are listed in the header, each with its status and detail.
    """
    data = load_report_data(warehouse, audit_id)
    now = datetime.now(UTC)
    options: dict[str, Any] = {
        "summary": summary,
        "thresholds": thresholds,
        "generated_at": now,
        "repeats": repeats,
        "gates": gates,
    }
    html = render_html(data, **options)
    markdown = render_markdown(data, **options)
    folder = Path(out_dir) / report_dir_name(audit_id)
    folder.mkdir(parents=True, exist_ok=True)
    paths = ReportPaths(html=folder / "report.html", markdown=folder / "report.md")
    write_atomic(paths.html, html)
    write_atomic(paths.markdown, markdown)
    return paths


def write_outcome_report(
    warehouse: Warehouse,
    outcome: AuditOutcome,
    config: AuditConfig,
    repeats: Mapping[str, Any] | None = None,
) -> ReportPaths:
    """The report of a scored audit, with the engine's summary and the configured thresholds.

    The one place the asset and ``audit-pipeline report`` both go through, so a report
    rewritten from the CLI shows the same figures and zones as the one the audit wrote.
    """
    return write_report(
        warehouse,
        outcome.audit_id,
        config.reports_dir,
        summary={**outcome.summary, "by_category": outcome.by_category},
        thresholds=config.scoring.thresholds,
        repeats=repeats,
        gates=outcome.gates,
    )


def report_dir_name(audit_id: str) -> str:
    """The audit id as one safe path component: it is data (it embeds the target's name), so
    separators and other odd characters become ``_`` and it can never climb out of the
    output directory. Ordinary ids (``20261123T080000Z-vault_bot-1a2b3c4d``) are unchanged."""
    name = _UNSAFE.sub("_", audit_id).lstrip(".")
    if not name:
        raise ValueError(f"audit id cannot be used as a directory name: {audit_id!r}")
    return name


def write_atomic(path: Path, text: str) -> None:
    """Write ``text`` (UTF-8) to ``path`` so readers see the old file or the new one only."""
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="\n") as stream:
            stream.write(text)
            stream.flush()
            os.fsync(stream.fileno())
        os.chmod(temporary, 0o644)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
