"""A real OpenAI-compatible embeddings server on 127.0.0.1, for tests of provider embeddings.

It answers ``POST /v1/embeddings`` as a provider does (``{"data": [{"index", "embedding"}]}``),
in a deterministic hashed bag of words, so that vector search over its vectors finds texts that
share words with the query. Tests switch it between healthy, failing (HTTP 500), hanging
(longer than the client's timeout) and rejecting the key (401, quoting the key as some
providers do), and count the requests it received. Calls reach it through litellm for real
(``model="openai/NAME", api_base=server.api_base``).
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from typing import Any, Literal

from benchmarks.chat_server import ChatServer, ReceivedRequest, ServerReply

Mode = Literal["ok", "error", "hang", "unauthorized"]


def hashed_vector(text: str, dimension: int) -> list[float]:
    """Each word adds ±1 to one of ``dimension`` buckets (by its hash): texts sharing words
    point the same way."""
    vector = [0.0] * dimension
    for word in re.findall(r"\w+", text.lower()):
        digest = hashlib.sha256(word.encode()).digest()
        vector[int.from_bytes(digest[:4], "big") % dimension] += 1.0 if digest[4] % 2 else -1.0
    return vector


@dataclass
class EmbeddingsServer:
    """The server and the switches a test turns; ``dimension`` may change under a model."""

    server: ChatServer
    dimension: int = 48
    mode: Mode = "ok"
    hang_s: float = 2.0

    @property
    def api_base(self) -> str:
        return f"{self.server.url}/v1"

    @property
    def count(self) -> int:
        return self.server.count

    def inputs(self) -> list[list[str]]:
        """The texts of every embeddings request, in order."""
        return [request.json()["input"] for request in self.server.requests]

    def respond(self, request: ReceivedRequest) -> ServerReply:
        if request.path != "/v1/embeddings":
            return ServerReply(404, {"error": {"message": f"no route {request.path}"}})
        body = request.json()
        if self.mode == "error":
            return ServerReply(500, {"error": {"message": "embedding backend crashed"}})
        if self.mode == "hang":
            return ServerReply(200, _reply(body, self.dimension), delay_s=self.hang_s)
        if self.mode == "unauthorized":
            key = request.headers.get("authorization", "").removeprefix("Bearer ")
            message = f"Incorrect API key provided: {key}"
            return ServerReply(401, {"error": {"message": message, "type": "invalid_api_key"}})
        return ServerReply(200, _reply(body, self.dimension))


def _reply(body: dict[str, Any], dimension: int) -> dict[str, Any]:
    texts = [body["input"]] if isinstance(body["input"], str) else list(body["input"])
    data = [
        {"object": "embedding", "index": index, "embedding": hashed_vector(text, dimension)}
        for index, text in enumerate(texts)
    ]
    return {
        "object": "list",
        "model": body["model"],
        "data": data[::-1],  # order is the client's job: entries carry their index
        "usage": {"prompt_tokens": len(texts), "total_tokens": len(texts)},
    }


def start_embeddings_server(dimension: int = 48) -> EmbeddingsServer:
    """A started server; the caller stops it with ``.server.stop()``."""
    holder: list[EmbeddingsServer] = []
    chat = ChatServer(lambda request: holder[0].respond(request))
    holder.append(EmbeddingsServer(chat, dimension))
    chat.start()
    return holder[0]
