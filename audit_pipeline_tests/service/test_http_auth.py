"""The bearer token of the HTTP API: every route but /health needs it, the scheme in any case,
and an empty token refuses to start instead of serving without one."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from audit_pipeline.service.errors import ServiceConfigError
from audit_pipeline.service.http_api import create_app
from audit_pipeline_tests.cli.helpers import cli
from audit_pipeline_tests.helpers import write_audit_config
from audit_pipeline_tests.service.servers import running_api


def test_every_route_but_health_needs_the_token(
    tmp_path: Path, sample_index_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AUDIT_API_TOKEN", "s3cret")
    config = write_audit_config(tmp_path, sample_index_dir)
    with running_api(config) as api:
        assert httpx.get(f"{api.url}/health").status_code == 200
        for path in ("/docs", "/openapi.json", "/redoc", "/no-such-route"):
            refused = httpx.get(f"{api.url}{path}")
            assert refused.status_code == 401, path
            assert refused.headers["www-authenticate"] == "Bearer"
        body = {"config_path": "nope.yaml"}
        assert httpx.post(f"{api.url}/evaluate", json=body).status_code == 401
        wrong = {"Authorization": "Bearer nope"}
        assert httpx.post(f"{api.url}/evaluate", json=body, headers=wrong).status_code == 401
        not_bearer = {"Authorization": "Basic s3cret"}
        assert httpx.post(f"{api.url}/evaluate", json=body, headers=not_bearer).status_code == 401
        for header in ("Bearer s3cret", "bearer s3cret", "BEARER  s3cret"):
            given = {"Authorization": header}
            reply = httpx.post(f"{api.url}/evaluate", json=body, headers=given)
            assert reply.status_code == 404, header  # past the token: the file is missing
        docs = httpx.get(f"{api.url}/openapi.json", headers={"Authorization": "bearer s3cret"})
        assert docs.status_code == 200


def test_an_empty_token_refuses_to_start(
    tmp_path: Path, sample_index_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = write_audit_config(tmp_path, sample_index_dir)
    monkeypatch.setenv("AUDIT_API_TOKEN", " ")
    with pytest.raises(ServiceConfigError, match="AUDIT_API_TOKEN is set but empty"):
        create_app(config)
    served = cli(config, "serve", "--port", "1", env={"AUDIT_API_TOKEN": ""}, timeout=120)
    assert served.returncode == 2
    assert "error: $AUDIT_API_TOKEN is set but empty" in served.stderr
    assert "Traceback" not in served.stderr
