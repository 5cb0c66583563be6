"""The `openai` reviewer: one chat-completions call to an OpenAI-compatible server (docs/reviewers.md).

Ollama, llama.cpp's server, LM Studio and vLLM all serve `POST <base>/chat/completions`. omp
sends the prompt as one user message, temperature 0, model `memory-review-model`, and the JSON
Schema of `omp.review.v1` (omp/data/omp.review.v1.schema.json) as `response_format`, so a server
that constrains its output (llama.cpp turns a schema into a grammar) can only answer in shape. A
server that refuses `response_format` (400/422 naming it) is asked once more without it.

What is sent where:
- the base URL is `memory-reviewer-url`; plain `http` only to this machine (127.0.0.0/8, ::1,
  localhost), `https` anywhere else — checked by `omp config set` and again here, since the
  value may come from the environment or a hand-edited file;
- the API key, if any, is `OMP_REVIEWER_API_KEY` from `G/reviewer.env`, else from the
  environment (reviewer.env wins, as it does for every reviewer: omp.review.reviewers); never
  from a project file (no config key holds it). It goes in the `Authorization` header only, and
  is cut out of every message that leaves this module;
- redirects are refused (urllib would follow one with the key to wherever it points), and a
  loopback call bypasses any proxy (a proxy would take the transcript off the machine).

The standard library only (urllib): no new dependency, and nothing loaded until a review calls it.
The response is read in chunks against one deadline (`memory-review-timeout`) and at most
`MAX_RESPONSE_BYTES` of it.

Outcomes: an answer → a ReviewerReply; anything else → ReviewerUnavailable (retryable: the
session is queued), its message one redacted line holding the server's own words, its hint the
fix: an unknown model (404, or a 400 naming the model) names `omp config set
memory-review-model`; 401/403 name `OMP_REVIEWER_API_KEY` in reviewer.env; 5xx, a refused
connection, a timeout, a body that is no completion or too large are retried later.
"""

from __future__ import annotations

import http.client
import json
import socket
import time
import urllib.error
import urllib.request
from functools import lru_cache
from importlib import resources
from typing import Any, Callable, Mapping

from omp.process import reviewer_env_file
from omp.review import backends
from omp.review.reviewers import (
    DETAIL_CHARS, HINT_NETWORK, HINT_TIMEOUT, ReviewerConfig, ReviewerReply, ReviewerUnavailable, one_line,
    with_reviewer_env_file,
)

API_KEY_VAR = "OMP_REVIEWER_API_KEY"
SCHEMA_FILE = "omp.review.v1.schema.json"
MAX_RESPONSE_BYTES = 4 * 1024 * 1024  # an answer is tens of KB; a larger body is no answer
MAX_ERROR_BYTES = 64 * 1024
CHUNK_BYTES = 64 * 1024
HINT_MODEL = "run: omp config set memory-review-model <name> (a model your server serves)"
_MODEL_WORDS = ("model",)
_FORMAT_WORDS = ("response_format", "json_schema", "response format")


@lru_cache(maxsize=1)
def review_schema() -> dict[str, Any]:
    """omp.review.v1's JSON Schema, as shipped in the package."""
    text = (resources.files("omp") / "data" / SCHEMA_FILE).read_text(encoding="utf-8")
    schema: dict[str, Any] = json.loads(text)
    return schema


def response_format() -> dict[str, Any]:
    # `$schema` and `title` describe the file; servers that check schemas strictly refuse them.
    schema = {key: value for key, value in review_schema().items() if key not in ("$schema", "title")}
    return {"type": "json_schema", "json_schema": {"name": "omp_review_v1", "schema": schema, "strict": True}}


def api_key(base_env: Mapping[str, str] | None = None) -> str | None:
    """OMP_REVIEWER_API_KEY from reviewer.env, else the environment (never a project file)."""
    key = with_reviewer_env_file(base_env).get(API_KEY_VAR)
    return key.strip() or None if key else None


def auth_hint() -> str:
    return (f"put {API_KEY_VAR}=<key> in {reviewer_env_file()} (chmod 600), or check the key there; "
            "a server on this machine usually needs none")


# ---------------------------------------------------------------------------------------------
# one HTTP exchange


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, req: Any, fp: Any, code: int, msg: str, headers: Any, newurl: str) -> None:
        # A redirect would carry the key (and, for 307/308, the transcript) somewhere else.
        raise urllib.error.HTTPError(req.full_url, code, f"redirect to {newurl} refused", headers, fp)


class _Answer:
    """What came back: a status and the body (None when nothing did, with why)."""

    def __init__(self, status: int, body: bytes, failure: ReviewerUnavailable | None = None,
                 location: str | None = None) -> None:
        self.status, self.body, self.failure, self.location = status, body, failure, location


def _opener(url: str) -> urllib.request.OpenerDirector:
    handlers: list[Any] = [_NoRedirect()]
    if backends.is_loopback_url(url):
        handlers.append(urllib.request.ProxyHandler({}))  # the transcript stays on this machine
    return urllib.request.build_opener(*handlers)


def _read(response: Any, deadline: float, limit: int) -> bytes | None:
    """Up to `limit` bytes of the body by `deadline`; None when the body is larger.

    `read1` returns what one receive brought, so the deadline is checked between receives and a
    server that trickles a byte at a time cannot hold the review past it for long (each receive
    waits at most the socket's timeout, the time that was left when the request was sent).
    """
    read = getattr(response, "read1", response.read)
    chunks: list[bytes] = []
    size = 0
    while True:
        if time.monotonic() > deadline:
            raise TimeoutError("the response did not finish in time")
        chunk = read(min(CHUNK_BYTES, limit + 1 - size))
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)
        size += len(chunk)
        if size > limit:
            return None


def _post(url: str, body: dict[str, Any], key: str | None, deadline: float) -> _Answer:
    data = json.dumps(body, ensure_ascii=False).encode("utf-8")
    headers = {"Content-Type": "application/json", "Accept": "application/json"}
    if key:
        headers["Authorization"] = f"Bearer {key}"
    request = urllib.request.Request(url, data=data, headers=headers, method="POST")
    try:
        with _opener(url).open(request, timeout=max(deadline - time.monotonic(), 0.01)) as response:
            raw = _read(response, deadline, MAX_RESPONSE_BYTES)
            if raw is None:
                return _Answer(response.status, b"", ReviewerUnavailable(
                    "failed", f"the server's response is larger than {MAX_RESPONSE_BYTES // (1024 * 1024)} MiB: "
                    "not an answer", f"check the server at {url}; {HINT_NETWORK}"))
            return _Answer(response.status, raw)
    except urllib.error.HTTPError as exc:
        try:
            raw = _read(exc, deadline, MAX_ERROR_BYTES) or b""
        except (OSError, TimeoutError):
            raw = b""
        return _Answer(exc.code, raw, location=exc.headers.get("Location") if exc.headers else None)


# ---------------------------------------------------------------------------------------------
# reading what came back


def _server_message(raw: bytes) -> str:
    """The server's own error words: `{"error": {"message": …}}`, `{"error": "…"}`, or the text."""
    text = raw.decode("utf-8", "replace")
    try:
        value = json.loads(text)
    except ValueError:
        return text
    if isinstance(value, dict):
        error = value.get("error", value.get("detail", value.get("message")))
        if isinstance(error, dict):
            error = error.get("message") or error.get("msg") or json.dumps(error)
        if isinstance(error, list):  # FastAPI / vLLM validation errors
            error = "; ".join(str(item.get("msg", item)) if isinstance(item, dict) else str(item) for item in error)
        if error is not None:
            return str(error)
    return text


def _one_line(text: str, key: str | None) -> str:
    """Redacted, one line, cut: what a log line, a queue entry and `omp doctor` may hold."""
    return one_line(text, [key] if key else [])


def _content(raw: bytes) -> str | None:
    """The assistant's text in a chat completion, or None when the body is not one."""
    try:
        value = json.loads(raw.decode("utf-8"))
        message = value["choices"][0]["message"]
        content = message.get("content")
    except (ValueError, UnicodeDecodeError, KeyError, IndexError, TypeError, AttributeError):
        return None
    if isinstance(content, list):  # content parts
        content = "".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return content if isinstance(content, str) else None


def _rejects_format(answer: _Answer) -> bool:
    if answer.status not in (400, 415, 422, 501):
        return False
    message = _server_message(answer.body).lower()
    return any(word in message for word in _FORMAT_WORDS)


def _failure(answer: _Answer, config: ReviewerConfig, url: str, key: str | None) -> ReviewerUnavailable:
    detail = _one_line(_server_message(answer.body), key) or "(no message)"
    status = answer.status
    said = f"HTTP {status} from {url}: {detail}"
    mentions_model = any(word in detail.lower() for word in _MODEL_WORDS)
    if 300 <= status < 400:
        where = _one_line(answer.location or "(no Location)", key)
        return ReviewerUnavailable("failed", f"HTTP {status} from {url}: a redirect to {where}, which omp does not "
                                   "follow (it would carry the transcript and the key elsewhere)",
                                   "run: omp config set memory-reviewer-url <the server's own base URL>")
    if status in (401, 403):
        return ReviewerUnavailable("auth", f"the server refused the key: {said}", auth_hint())
    if status == 404 or (status in (400, 422) and mentions_model and "not" in detail.lower()):
        hint = HINT_MODEL if mentions_model else (
            f"{HINT_MODEL}; or check memory-reviewer-url (most servers serve under /v1)")
        return ReviewerUnavailable("model", f"review model {config.model!r} not available: {said}", hint)
    if status == 429:
        return ReviewerUnavailable("rate-limited", f"the server is rate-limited: {said}", HINT_NETWORK)
    if status >= 500:
        return ReviewerUnavailable("server", f"the server failed: {said}", HINT_NETWORK)
    return ReviewerUnavailable("failed", f"the server refused the request: {said}",
                               f"check the server's log; {HINT_NETWORK}")


# ---------------------------------------------------------------------------------------------
# the call


def describe(settings: Mapping[str, Any], model: str) -> str:
    """`openai, model M at URL` when the URL is one omp sends to (`omp doctor`)."""
    url = settings.get("memory-reviewer-url")
    _checked_url(url if isinstance(url, str) else None)
    return f"openai, model {model} at {url}"


def throwaway_environment() -> dict[str, str]:
    """`omp eval` runs in a throwaway home that has no reviewer.env: it carries the key."""
    key = api_key()
    return {API_KEY_VAR: key} if key else {}


def _endpoint(config: ReviewerConfig) -> str:
    return _checked_url(config.url).rstrip("/") + "/chat/completions"


def _checked_url(value: str | None) -> str:
    url = (value or "").strip()
    if not url:
        raise ReviewerUnavailable("not-configured", "memory-reviewer is 'openai' but memory-reviewer-url is not set",
                                  backends.HINT_URL)
    problem = backends.url_problem(url)
    if problem:
        raise ReviewerUnavailable("not-configured", f"memory-reviewer-url {url!r} refused: {problem}", backends.HINT_URL)
    return url


def call(
    config: ReviewerConfig,
    prompt: str,
    answer_complete: Callable[[str], bool],
    *,
    base_env: Mapping[str, str] | None = None,
    **_process_options: Any,  # linger, grace, on_start: there is no process to watch
) -> ReviewerReply:
    """One review by an OpenAI-compatible server. Returns the reply, or raises ReviewerUnavailable."""
    url = _endpoint(config)
    key = api_key(base_env)
    started = time.monotonic()
    deadline = started + config.timeout
    body: dict[str, Any] = {
        "model": config.model,
        "messages": [{"role": "user", "content": prompt}],
        "temperature": 0,
        "stream": False,
        "response_format": response_format(),
    }

    def elapsed_ms() -> int:
        return int((time.monotonic() - started) * 1000)

    def unavailable(kind: str, message: str, hint: str) -> ReviewerUnavailable:
        reply = ReviewerReply(text="", stderr=message, returncode=None, timed_out=kind == "timeout",
                              stopped_after_answer=False, duration_ms=elapsed_ms())
        return ReviewerUnavailable(kind, message, hint, reply)

    try:
        answer = _post(url, body, key, deadline)
        if _rejects_format(answer):
            body.pop("response_format")  # a server without structured output: the prompt alone
            answer = _post(url, body, key, deadline)
    except (TimeoutError, socket.timeout):
        raise unavailable("timeout", f"the server at {url} gave no answer within {config.timeout:.0f}s",
                          HINT_TIMEOUT) from None
    except urllib.error.URLError as exc:
        reason = exc.reason
        if isinstance(reason, (TimeoutError, socket.timeout)):
            raise unavailable("timeout", f"the server at {url} gave no answer within {config.timeout:.0f}s",
                              HINT_TIMEOUT) from None
        what = _one_line(str(getattr(reason, "strerror", None) or reason), key)
        raise unavailable("network", f"cannot reach the server at {url}: {what}",
                          "start the model server (ollama serve, llama-server, …) or fix memory-reviewer-url; "
                          "the review is retried by the next omp memory-review --sweep") from None
    except (OSError, ValueError, http.client.HTTPException) as exc:  # a connection cut mid-answer, a bad status line
        raise unavailable("network", f"the exchange with {url} failed: {_one_line(str(exc), key)}", HINT_NETWORK) from None
    if answer.failure is not None:
        raise unavailable(answer.failure.kind, answer.failure.message, answer.failure.hint or HINT_NETWORK)
    if answer.status >= 300:
        failure = _failure(answer, config, url, key)
        raise unavailable(failure.kind, failure.message, failure.hint or HINT_NETWORK)
    text = _content(answer.body)
    if text is None:
        head = _one_line(answer.body[:DETAIL_CHARS].decode("utf-8", "replace"), key) or "(an empty body)"
        raise unavailable("failed", f"the server's response is not a chat completion: {head}",
                          f"check that {url} is an OpenAI-compatible server; {HINT_NETWORK}")
    if not text.strip():
        raise unavailable("failed", f"the server at {url} answered with an empty message",
                          f"check the model and the server's log; {HINT_NETWORK}")
    return ReviewerReply(text=text, stderr="", returncode=0, timed_out=False, stopped_after_answer=False,
                         duration_ms=elapsed_ms())
