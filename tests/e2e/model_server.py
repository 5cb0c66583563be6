"""A small OpenAI-compatible chat-completions server on loopback, for the end-to-end test.

The real Copilot CLI, run with `COPILOT_OFFLINE=true COPILOT_PROVIDER_BASE_URL=<url>/v1`, talks
to this server instead of a real model. It answers scripted replies (first matching rule, else
a default), streams them as server-sent events when asked to, and records every request body so
a test can see exactly what the model was shown.

Standard library only; threaded; bound to 127.0.0.1 on a free port; `stop()` (or leaving the
`with` block) shuts it down.
"""

from __future__ import annotations

import json
import threading
import time
import uuid
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Callable

Matcher = Callable[[dict[str, Any]], bool]


@dataclass
class Rule:
    """Answer `reply` to a request `matches` accepts (at most `times` times; None = always),
    after `delay` seconds (a slow model) unless the server is released or stopped first."""

    matches: Matcher
    reply: str
    times: int | None = None
    delay: float = 0.0


@dataclass
class Recorded:
    path: str
    method: str
    body: Any
    at: float = field(default_factory=time.time)

    def text(self) -> str:
        """Everything the model was shown, as one string (for `in` assertions)."""
        return json.dumps(self.body, ensure_ascii=False)


def request_text(body: dict[str, Any]) -> str:
    """The concatenated message contents of a chat-completions request."""
    parts: list[str] = []
    for message in body.get("messages") or []:
        content = message.get("content")
        if isinstance(content, str):
            parts.append(content)
        elif isinstance(content, list):
            parts.extend(str(p.get("text", "")) for p in content if isinstance(p, dict))
    return "\n".join(parts)


class ModelServer:
    def __init__(self, default_reply: str = "OK.", record_file: Path | None = None) -> None:
        self.default_reply = default_reply
        self.rules: list[Rule] = []
        self.requests: list[Recorded] = []
        self.record_file = record_file
        self._lock = threading.Lock()
        self._released = threading.Event()  # cuts every scripted delay short
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler_class())
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, name="model-server", daemon=True)
        # None: any model name is served. A set: a request for another model gets Ollama's 404.
        self.models: set[str] | None = None

    # -- lifecycle ----------------------------------------------------------------------------
    @property
    def port(self) -> int:
        return int(self._httpd.server_address[1])

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self) -> "ModelServer":
        self._thread.start()
        return self

    def release(self) -> None:
        """Answer every delayed request now (a test that is done waiting)."""
        self._released.set()

    def stop(self) -> None:
        self.release()
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=5)

    def __enter__(self) -> "ModelServer":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- scripting ----------------------------------------------------------------------------
    def when(self, matches: Matcher, reply: str, times: int | None = None, delay: float = 0.0) -> None:
        with self._lock:
            self.rules.append(Rule(matches, reply, times, delay))

    def chat_requests(self) -> list[Recorded]:
        with self._lock:
            return [r for r in self.requests if r.path.endswith("/chat/completions")]

    def _choose(self, body: dict[str, Any]) -> Rule | None:
        with self._lock:
            for rule in self.rules:
                if rule.times is not None and rule.times <= 0:
                    continue
                try:
                    hit = rule.matches(body)
                except Exception:
                    hit = False
                if hit:
                    if rule.times is not None:
                        rule.times -= 1
                    return rule
        return None

    def _record(self, entry: Recorded) -> None:
        with self._lock:
            self.requests.append(entry)
            if self.record_file is not None:
                with self.record_file.open("a", encoding="utf-8") as handle:
                    handle.write(json.dumps({"path": entry.path, "method": entry.method, "body": entry.body}) + "\n")

    # -- HTTP ---------------------------------------------------------------------------------
    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:  # quiet
                return

            def _send_json(self, status: int, value: Any) -> None:
                data = json.dumps(value).encode("utf-8")
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:
                server._record(Recorded(self.path, "GET", None))
                if self.path.rstrip("/").endswith("/models"):
                    self._send_json(200, {"object": "list", "data": [
                        {"id": "gpt-5-mini", "object": "model", "owned_by": "omp-tests"},
                    ]})
                    return
                self._send_json(404, {"error": {"message": f"no route {self.path}"}})

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                try:
                    body = json.loads(raw or b"{}")
                except json.JSONDecodeError:
                    body = {"_raw": raw.decode("utf-8", "replace")}
                server._record(Recorded(self.path, "POST", body))
                if not self.path.rstrip("/").endswith("/chat/completions"):
                    self._send_json(404, {"error": {"message": f"no route {self.path}"}})
                    return
                if server.models is not None and body.get("model") not in server.models:
                    self._send_json(404, {"error": {"message": f"model '{body.get('model')}' not found",
                                                    "type": "not_found_error"}})
                    return
                rule = server._choose(body)
                reply = rule.reply if rule else server.default_reply
                if rule and rule.delay:
                    server._released.wait(rule.delay)
                model = str(body.get("model") or "gpt-5-mini")
                if body.get("stream"):
                    self._stream(model, reply, body)
                else:
                    self._send_json(200, _completion(model, reply))

            def _stream(self, model: str, reply: str, body: dict[str, Any]) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Cache-Control", "no-cache")
                self.send_header("Connection", "close")
                self.end_headers()
                ident = "chatcmpl-" + uuid.uuid4().hex[:12]
                created = int(time.time())
                chunks = [reply[i : i + 64] for i in range(0, len(reply), 64)] or [""]
                first = True
                for piece in chunks:
                    delta: dict[str, Any] = {"content": piece}
                    if first:
                        delta["role"] = "assistant"
                        first = False
                    self._event(_chunk(ident, created, model, delta, None))
                final = _chunk(ident, created, model, {}, "stop")
                if (body.get("stream_options") or {}).get("include_usage"):
                    final["usage"] = _usage(reply)
                self._event(final)
                self.wfile.write(b"data: [DONE]\n\n")
                self.wfile.flush()
                self.close_connection = True

            def _event(self, value: dict[str, Any]) -> None:
                self.wfile.write(b"data: " + json.dumps(value).encode("utf-8") + b"\n\n")
                self.wfile.flush()

        return Handler


def _usage(reply: str) -> dict[str, int]:
    return {"prompt_tokens": 100, "completion_tokens": max(1, len(reply) // 4), "total_tokens": 100 + max(1, len(reply) // 4)}


def _chunk(ident: str, created: int, model: str, delta: dict[str, Any], finish: str | None) -> dict[str, Any]:
    return {
        "id": ident,
        "object": "chat.completion.chunk",
        "created": created,
        "model": model,
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }


def _completion(model: str, reply: str) -> dict[str, Any]:
    return {
        "id": "chatcmpl-" + uuid.uuid4().hex[:12],
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [{"index": 0, "message": {"role": "assistant", "content": reply}, "finish_reason": "stop"}],
        "usage": _usage(reply),
    }


if __name__ == "__main__":  # manual exploration: python tests/e2e/model_server.py [record.jsonl]
    import sys

    srv = ModelServer(record_file=Path(sys.argv[1]) if len(sys.argv) > 1 else None).start()
    print(srv.base_url, flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        srv.stop()
