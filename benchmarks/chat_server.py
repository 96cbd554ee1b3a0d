"""A real HTTP server on 127.0.0.1, answering from a Python function.

The target benchmarks (``targets``, ``soak``) and the tests run it; it lives here because the
benchmarks import nothing from the test suite. Each caller describes the server's behaviour as
``respond(request) -> ServerReply``; the server records every request it received so callers
can check what was sent and how often.
"""

from __future__ import annotations

import contextlib
import json
import socket
import struct
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass(frozen=True)
class ReceivedRequest:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)


@dataclass(frozen=True)
class ServerReply:
    status: int = 200
    body: Any = field(default_factory=dict)  # bytes are sent as-is, anything else as JSON
    delay_s: float = 0.0
    headers: dict[str, str] = field(default_factory=dict)
    # Drop the connection with a TCP reset instead of answering (a crashed upstream, a proxy
    # killing the socket): the client sees a transport error, never a status.
    reset: bool = False


Responder = Callable[[ReceivedRequest], ServerReply]


class ChatServer:
    def __init__(self, respond: Responder) -> None:
        self.respond = respond
        self.requests: list[ReceivedRequest] = []
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def setup(self) -> None:
                super().setup()
                # Headers and body go out in two writes; without this, Nagle's algorithm and
                # the client's delayed ACK add ~40 ms to every keep-alive response.
                self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length", "0"))
                received = ReceivedRequest(
                    "POST",
                    self.path,
                    {key.lower(): value for key, value in self.headers.items()},
                    self.rfile.read(length),
                )
                with server._lock:
                    server.requests.append(received)
                reply = server.respond(received)
                if reply.delay_s:
                    time.sleep(reply.delay_s)
                if reply.reset:
                    self._reset()
                    return
                body = reply.body if isinstance(reply.body, bytes) else json.dumps(reply.body)
                data = body if isinstance(body, bytes) else body.encode()
                self.send_response(reply.status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for key, value in reply.headers.items():
                    self.send_header(key, value)
                self.end_headers()
                # The client may have given up (timeout, size limit): expected in tests.
                with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                    self.wfile.write(data)

            def _reset(self) -> None:
                """Close with SO_LINGER 0: the kernel sends RST instead of FIN."""
                linger = struct.pack("ii", 1, 0)
                self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, linger)
                self.close_connection = True
                self.connection.close()

            def log_message(self, format: str, *args: Any) -> None:
                pass

        class Server(ThreadingHTTPServer):
            request_queue_size = 128  # listen backlog: 16+ clients connecting at once
            daemon_threads = True

        self._server = Server(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    @property
    def count(self) -> int:
        with self._lock:
            return len(self.requests)

    def start(self) -> ChatServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()


def openai_completion(content: str, model: str = "local-model") -> dict[str, Any]:
    """A chat.completion body as an OpenAI-compatible server returns it."""
    return {
        "id": "chatcmpl-test",
        "object": "chat.completion",
        "created": 1_700_000_000,
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content},
                "finish_reason": "stop",
            }
        ],
        "usage": {"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18},
    }
