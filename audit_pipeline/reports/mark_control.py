"""The report's mark control: on each claim, a label, a note and a button that records the
analyst's mark when the report is served by ``audit-pipeline serve``, and otherwise copies the
ready ``audit-pipeline mark`` command.

The page stays self-contained and keeps a strict Content-Security-Policy: its one script is
this package's ``templates/mark_control.js``, allowed by its SHA-256 hash (so no text the
report shows, model output included, can ever run), and it may talk to nothing but the server
it came from (``connect-src 'self'``: the served API's ``POST /reports/<audit>/marks``). The
control's audit and claim ids travel in escaped ``data-`` attributes; the script puts them in
the command quoted for a POSIX shell.
"""

from __future__ import annotations

import base64
import hashlib
from functools import cache
from pathlib import Path

from markupsafe import Markup

SCRIPT_PATH = Path(__file__).with_name("templates") / "mark_control.js"


@cache
def mark_script() -> str:
    return SCRIPT_PATH.read_text(encoding="utf-8")


def script_element() -> Markup:
    """The script element, exactly the text the policy's hash allows."""
    return Markup(f"<script>{mark_script()}</script>")


def content_security_policy() -> str:
    digest = base64.b64encode(hashlib.sha256(mark_script().encode("utf-8")).digest()).decode()
    return (
        "default-src 'none'; style-src 'unsafe-inline'; img-src data:; "
        f"script-src 'sha256-{digest}'; connect-src 'self'; form-action 'none'; base-uri 'none'"
    )
