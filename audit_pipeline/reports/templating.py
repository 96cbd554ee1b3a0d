"""The one Jinja environment the HTML report is rendered with.

Model, suite and vault text is untrusted, so escaping is not left to each placeholder:
autoescaping is on for every template, and ``finalize`` escapes each ``{{ value }}`` with
``html.escape(quote=True)`` (the ``&quot;`` and ``&#x27;`` forms the report has always used)
before autoescaping sees it. Only ``Markup`` passes through unescaped: macro output and the
charts' SVG, which escape their own inputs. ``StrictUndefined`` turns a misspelt name into an
error instead of an empty cell. Templates stay away from ``~``, ``join``, ``replace`` and
``format`` on data: those escape with markupsafe's entity forms, safe but not the ones above.
"""

from __future__ import annotations

from html import escape
from typing import Any

from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape
from markupsafe import Markup

from audit_pipeline.reports.formatting import (
    CRUMB,
    DASH,
    excerpt,
    label_text,
    num,
    pct,
    plain_excerpt,
    plain_justification,
    short_hash,
    when,
)


def _escaped(value: object) -> object:
    """Every placeholder's value as escaped text (None as nothing); markup as it is."""
    if hasattr(value, "__html__"):
        return value
    return Markup(escape("" if value is None else str(value), quote=True))


ENV = Environment(
    loader=PackageLoader("audit_pipeline.reports", "templates"),
    autoescape=select_autoescape(["html.j2"], default=True, default_for_string=True),
    undefined=StrictUndefined,
    finalize=_escaped,
    trim_blocks=True,
    lstrip_blocks=True,
    keep_trailing_newline=True,
)
ENV.filters.update(
    excerpt=excerpt,
    label_text=label_text,
    num=num,
    pct=pct,
    plain_excerpt=plain_excerpt,
    plain_justification=plain_justification,
    short_hash=short_hash,
    when=when,
)
ENV.globals.update(CRUMB=CRUMB, DASH=DASH)


def render(template: str, **context: Any) -> str:
    """``template`` (a name under ``reports/templates``) rendered with ``context``."""
    return ENV.get_template(template).render(**context)
