"""A scripted OpenAI-compatible chat-completions server on loopback, for the `openai` backend.

Each request to `/v1/chat/completions` takes the next scripted `Scripted` response (status, body,
an optional delay, extra headers); when the script runs out, the last one repeats. Every request
is recorded with its headers and decoded body. Standard library only; threaded; 127.0.0.1 only.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Scripted:
    status: int = 200
    body: bytes = b""
    delay: float = 0.0
    headers: dict[str, str] = field(default_factory=dict)


@dataclass
class Seen:
    path: str
    headers: dict[str, str]
    body: Any


def completion(content: str) -> Scripted:
    body = {"id": "chatcmpl-1", "object": "chat.completion", "model": "qwen2.5-coder",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 10, "total_tokens": 20}}
    return Scripted(200, json.dumps(body).encode())


def error(status: int, message: str) -> Scripted:
    return Scripted(status, json.dumps({"error": {"message": message, "type": "invalid_request_error"}}).encode())


class StubServer:
    def __init__(self) -> None:
        self.script: list[Scripted] = []
        self.seen: list[Seen] = []
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"

    def then(self, *responses: Scripted) -> "StubServer":
        with self._lock:
            self.script.extend(responses)
        return self

    def __enter__(self) -> "StubServer":
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=5)

    def _next(self) -> Scripted:
        with self._lock:
            return self.script.pop(0) if len(self.script) > 1 else self.script[0]

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                return

            def do_GET(self) -> None:  # recorded too: a followed redirect would arrive as a GET
                with server._lock:
                    server.seen.append(Seen(self.path, dict(self.headers.items()), None))
                self.send_response(404)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                try:
                    body: Any = json.loads(raw)
                except ValueError:
                    body = raw.decode("utf-8", "replace")
                with server._lock:
                    server.seen.append(Seen(self.path, dict(self.headers.items()), body))
                scripted = server._next()
                if scripted.delay:
                    server._stop.wait(scripted.delay)
                try:
                    self.send_response(scripted.status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(scripted.body)))
                    for name, value in scripted.headers.items():
                        self.send_header(name, value)
                    self.end_headers()
                    for start in range(0, len(scripted.body), 1 << 20):
                        self.wfile.write(scripted.body[start:start + (1 << 20)])
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client stopped reading (a body too large, a timeout)

        return Handler
