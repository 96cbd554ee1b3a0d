"""The release gates as the report header lists them: every gate's status and detail, and
which one set the decision (the rule every surface prints).

The badge alone gives the first rule that failed; an audit can fail three gates at once, and a
reader of the report must see all of them, as the CLI prints them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from audit_pipeline.scoring.gates import GateResult
from audit_pipeline.scoring.rules import gate_rule


@dataclass(frozen=True)
class GateRow:
    name: str
    status: str  # PASS, WARN or ERROR, as the CLI prints it
    detail: str
    sets_decision: bool  # this gate's rule is the decision's


def gate_rows(gates: Sequence[GateResult], rule: str | None) -> list[GateRow]:
    """The gates in their fixed order; the first whose rule is the decision's is marked."""
    marked = False
    rows = []
    for gate in gates:
        sets = not marked and gate.status != "pass" and bool(rule) and gate_rule(gate) == rule
        marked = marked or sets
        rows.append(GateRow(gate.name, gate.status.upper(), gate.detail, sets))
    return rows
