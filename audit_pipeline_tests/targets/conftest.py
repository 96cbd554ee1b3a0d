from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

from benchmarks.chat_server import ChatServer, Responder


@pytest.fixture
def chat_server() -> Iterator[Callable[[Responder], ChatServer]]:
    """Start real HTTP servers on 127.0.0.1 for the test; all are stopped afterwards."""
    started: list[ChatServer] = []

    def start(respond: Responder) -> ChatServer:
        server = ChatServer(respond).start()
        started.append(server)
        return server

    yield start
    for server in started:
        server.stop()
