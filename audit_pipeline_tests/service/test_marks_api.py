"""Marks over HTTP and from the report (issue 32, item 1): ``POST /marks`` needs the token,
the served report takes the token as Basic credentials, and its mark control, clicked in a real
headless Chromium, records the mark through the served API; opened as a file, the same click
copies the ready command instead.

The browser is Debian's ``chromium`` driven by Playwright through its executable path (never a
downloaded browser); CI installs it (``.ci/run``) and sets ``AUDIT_TEST_REQUIRE_CHROMIUM``, so
there the browser tests run, never skip.
"""

from __future__ import annotations

import base64
import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from audit_pipeline.config import load_config
from audit_pipeline.warehouse.store import Warehouse
from audit_pipeline_tests.service.servers import running_api

TOKEN = "marks-s3cret"
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@pytest.fixture
def audited(
    audited_policy_workspace: tuple[Path, str, dict[str, str]],
) -> tuple[Path, str, dict[str, str]]:
    return audited_policy_workspace


def _marks(config_path: Path) -> list[dict[str, object]]:
    frame = Warehouse(load_config(config_path).duckdb_path).query(
        "SELECT * FROM v_marks ORDER BY seq"
    )
    return frame.to_dict("records")


def _basic(user: str, password: str) -> dict[str, str]:
    encoded = base64.b64encode(f"{user}:{password}".encode()).decode()
    return {"Authorization": f"Basic {encoded}"}


@pytest.mark.slow
def test_post_marks_needs_the_token_and_records(
    audited: tuple[Path, str, dict[str, str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    config_path, audit_id, claims = audited
    body = {"audit_id": audit_id, "claim_id": claims["ENC-1"], "label": "contradicted"}
    monkeypatch.delenv("AUDIT_API_TOKEN", raising=False)
    with running_api(config_path) as api:  # no token configured: marks are refused
        refused = httpx.post(f"{api.url}/marks", json=body)
        assert refused.status_code == 403 and "AUDIT_API_TOKEN" in refused.json()["detail"]
    monkeypatch.setenv("AUDIT_API_TOKEN", TOKEN)
    count = len(_marks(config_path))
    with running_api(config_path) as api:
        assert httpx.post(f"{api.url}/marks", json=body).status_code == 401
        wrong = {"Authorization": "Bearer nope"}
        assert httpx.post(f"{api.url}/marks", json=body, headers=wrong).status_code == 401
        auth = {"Authorization": f"Bearer {TOKEN}"}
        bad = httpx.post(f"{api.url}/marks", json={**body, "label": "fine"}, headers=auth)
        assert bad.status_code == 422
        unknown = httpx.post(f"{api.url}/marks", json={**body, "claim_id": "x"}, headers=auth)
        assert unknown.status_code == 404 and "no claim 'x'" in unknown.json()["detail"]
        split = httpx.post(f"{api.url}/marks", json={**body, "by": "a\nb"}, headers=auth)
        assert split.status_code == 422 and "by:" in split.json()["detail"]
        assert len(_marks(config_path)) == count  # nothing recorded by a refused request
        made = httpx.post(
            f"{api.url}/marks",
            json={**body, "note": "TLS 1.0 is allowed", "by": "erin"},
            headers=auth,
        )
        assert made.status_code == 201, made.text
        answer = made.json()
        assert answer["label_given"] == "supported" and answer["label_marked"] == "contradicted"
        # The served report: Basic credentials carry the token; another origin is refused.
        page = f"{api.url}/reports/{audit_id}/"
        challenge = httpx.get(page)
        assert challenge.status_code == 401
        assert 'Basic realm="audit-pipeline reports"' in challenge.headers.get_list(
            "www-authenticate"
        )
        served = httpx.get(page, headers=_basic("frank", TOKEN))
        assert served.status_code == 200 and "mark-control" in served.text
        assert "script-src 'sha256-" in served.headers["content-security-policy"]
        assert httpx.get(page, headers=_basic("frank", "nope")).status_code == 401
        foreign = httpx.post(
            f"{page}marks",
            json=body,
            headers={**_basic("frank", TOKEN), "Origin": "https://x.example"},
        )
        assert foreign.status_code == 403
        other = httpx.post(
            f"{api.url}/reports/elsewhere/marks", json=body, headers=_basic("frank", TOKEN)
        )
        assert other.status_code == 403  # the body names another audit than the path
    rows = _marks(config_path)
    assert len(rows) == count + 1
    last = rows[-1]
    assert (last["marked_by"], last["source"], last["label_marked"]) == (
        "erin",
        "api",
        "contradicted",
    )
    assert last["note"] == "TLS 1.0 is allowed"


def _browser_or_skip() -> None:
    if not os.path.exists(CHROMIUM) and not os.environ.get("AUDIT_TEST_REQUIRE_CHROMIUM"):
        pytest.skip("Debian's chromium is not installed (.ci/run installs it)")


@pytest.fixture
def chromium() -> Iterator[object]:
    _browser_or_skip()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
        try:
            yield browser
        finally:
            browser.close()


def _control(claim_id: str) -> str:
    return f'.mark-control[data-claim="{claim_id}"]'


@pytest.mark.slow
def test_a_click_in_the_served_report_records_the_mark(
    audited: tuple[Path, str, dict[str, str]], monkeypatch: pytest.MonkeyPatch, chromium: object
) -> None:
    config_path, audit_id, claims = audited
    monkeypatch.setenv("AUDIT_API_TOKEN", TOKEN)
    before = len(_marks(config_path))
    with running_api(config_path) as api:
        context = chromium.new_context(  # type: ignore[attr-defined]
            http_credentials={"username": "grace", "password": TOKEN}
        )
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
        page.goto(f"{api.url}/reports/{audit_id}")  # redirected to the page under /reports/
        # ENC-2 is the flagged claim: its card's control proposes "supported" (a false alarm).
        control = page.locator(_control(claims["ENC-2"])).first
        assert control.locator("select").input_value() == "supported"
        control.locator(".mark-note").fill("the 2026 key policy says six months")
        control.locator("button").click()
        status = control.locator(".mark-status")
        status.filter(has_text="recorded").wait_for(timeout=20_000)
        assert "recorded m-" in status.inner_text()
        # A miss on a grounded claim, under a name typed into "Marking as".
        page.fill("#mark-by", "heidi")
        # ACC-2's prompt passed: its claims are listed, folded, under the passing prompts.
        page.locator(f"details:has({_control(claims['ACC-2'])}) > summary").first.click()
        other = page.locator(_control(claims["ACC-2"])).first
        other.locator("select").select_option("unsupported")
        other.locator("button").click()
        other.locator(".mark-status").filter(has_text="recorded").wait_for(timeout=20_000)
        context.close()
    assert errors == []
    rows = _marks(config_path)[before:]
    assert [(r["marked_by"], r["source"], r["label_marked"], r["claim_id"]) for r in rows] == [
        ("grace", "report", "supported", claims["ENC-2"]),
        ("heidi", "report", "unsupported", claims["ACC-2"]),
    ]
    assert rows[0]["note"] == "the 2026 key policy says six months"
    assert rows[0]["label_given"] == "contradicted"


def test_opened_as_a_file_the_control_copies_the_command(
    audited: tuple[Path, str, dict[str, str]], chromium: object
) -> None:
    config_path, audit_id, claims = audited
    report = load_config(config_path).reports_dir / audit_id / "report.html"
    before = len(_marks(config_path))
    context = chromium.new_context()  # type: ignore[attr-defined]
    context.grant_permissions(["clipboard-read", "clipboard-write"])
    page = context.new_page()
    page.goto(report.as_uri())
    page.fill("#mark-by", "ivan o'brien")
    control = page.locator(_control(claims["ENC-2"])).first
    control.locator(".mark-note").fill("it's fine")
    control.locator("button").click()
    command = control.locator(".mark-command")
    command.wait_for(state="visible", timeout=10_000)
    expected = (
        f"audit-pipeline mark '{audit_id}' '{claims['ENC-2']}' --label supported "
        "--note 'it'\\''s fine' --by 'ivan o'\\''brien'"
    )
    assert command.inner_text() == expected
    control.locator(".mark-status").filter(has_text="copied to the clipboard").wait_for(
        timeout=10_000
    )
    assert page.evaluate("navigator.clipboard.readText()") == expected
    context.close()
    assert len(_marks(config_path)) == before  # nothing recorded from a file
