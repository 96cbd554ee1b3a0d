"""A small SKOSMOS REST server on 127.0.0.1 for tests: lookup and data, with a delay."""

from __future__ import annotations

import contextlib
import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

VOCAB = "tally"
BASE_URI = "http://vocab.tallyhawk.example/"


@dataclass
class Thesaurus:
    """label (case-folded) -> concept URIs; URI -> (prefLabel, definition, altLabel)."""

    labels: dict[str, list[str]]
    concepts: dict[str, tuple[str, str, str]]
    delay_s: float = 0.0
    requests: list[str] = field(default_factory=list)


def turtle(uri: str, label: str, definition: str, alt: str) -> str:
    return (
        "@prefix skos: <http://www.w3.org/2004/02/skos/core#> .\n"
        f'<{uri}> a skos:Concept ; skos:prefLabel "{label}"@en ; skos:altLabel "{alt}"@en ;\n'
        f'  skos:definition "{definition}"@en ;\n'
        f"  skos:broader <{BASE_URI}root> .\n"
        f'<{BASE_URI}root> skos:prefLabel "Root"@en .\n'
    )


@contextmanager
def skosmos_server(thesaurus: Thesaurus) -> Iterator[str]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

        def do_GET(self) -> None:
            thesaurus.requests.append(self.path)
            time.sleep(thesaurus.delay_s)
            url = urlsplit(self.path)
            query = {k: v[0] for k, v in parse_qs(url.query).items()}
            if url.path == f"/rest/v1/{VOCAB}/lookup":
                uris = thesaurus.labels.get(query.get("label", "").casefold(), [])
                if not uris:
                    return self._send(404, "text/plain", "Could not find label")
                results = [{"uri": u, "prefLabel": thesaurus.concepts[u][0]} for u in uris]
                return self._send(200, "application/json", json.dumps({"result": results}))
            if url.path == f"/rest/v1/{VOCAB}/data" and query.get("uri") in thesaurus.concepts:
                body = turtle(query["uri"], *thesaurus.concepts[query["uri"]])
                return self._send(200, "text/turtle", body)
            self._send(404, "text/plain", "not found")

        def _send(self, status: int, kind: str, body: str) -> None:
            data = body.encode()
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                self.wfile.write(data)  # fails when the client gave up (a timeout test)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
