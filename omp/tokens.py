"""Counting tokens: tiktoken's `o200k_base` when it is available, a byte-based estimate otherwise.

`get_counter()` tries `tiktoken.get_encoding("o200k_base")` once per process. The encoding file
is downloaded on first use and cached (`TIKTOKEN_CACHE_DIR`); offline it raises within a fraction
of a second. A slow network must not stall a review either, so the attempt runs in a daemon
thread and is abandoned after `LOAD_TIMEOUT` seconds (a download still in flight may finish and
fill the cache for the next run). Whatever happens, the caller gets a counter, and its `name`
says which one (`"tiktoken"` or `"estimate"`), so the ledger can record it.

The estimate, chosen to over-count rather than under-count (a packet counted with it must still
fit the model's real budget):

    tokens = ceil(ascii_bytes / 3 + non_ascii_utf8_bytes / 2)

o200k averages about 4 bytes of English or code per token, and about 3 for dense code and
identifiers, so a third of the ASCII bytes is above the real count; non-ASCII text (CJK, emoji)
takes 1–2 tokens per 3–4 bytes, so half its bytes is above it too.

`OMP_TOKENIZER=estimate` skips tiktoken altogether (the tests use it so they never download).

A load that failed is remembered in `G/state/tokenizer-unavailable.json` for
`RETRY_AFTER_SECONDS`: offline, every review would otherwise pay the import and a failed
download again (63–75 ms and about 10 MiB each, docs/performance.md#where-speed-matters: no network attempt per review).
`omp doctor` always tries again (`get_counter(retry=True)`), so after the user fetches the
encoding the next doctor run clears the note.
"""

from __future__ import annotations

import json
import math
import os
import threading
import time
from pathlib import Path
from typing import Any

from omp.fsio import atomic_write
from omp.paths import global_home

ENCODING_NAME = "o200k_base"
LOAD_TIMEOUT = 5.0
RETRY_AFTER_SECONDS = 24 * 3600
UNAVAILABLE_FILE = "tokenizer-unavailable.json"
_ASCII = bytes(range(128))


class TokenCounter:
    """Counts tokens with a tiktoken encoding, or estimates them when there is none."""

    def __init__(self, encoding: Any | None = None) -> None:
        self._encoding = encoding
        self.name = "tiktoken" if encoding is not None else "estimate"
        self.encoding_name: str | None = getattr(encoding, "name", None) if encoding is not None else None

    def count(self, text: str) -> int:
        if not text:
            return 0
        if self._encoding is not None:
            # encode_ordinary: text that happens to contain "<|endoftext|>" is data, not a
            # special token (plain `encode` would raise on it).
            return len(self._encoding.encode_ordinary(text))
        return estimate_tokens(text)

    def __repr__(self) -> str:
        return f"TokenCounter({self.name}{', ' + self.encoding_name if self.encoding_name else ''})"


def estimate_tokens(text: str) -> int:
    """The byte-based estimate (see the module docstring): an upper bound in practice."""
    data = text.encode("utf-8", errors="surrogatepass")
    non_ascii = len(data.translate(None, _ASCII))
    return math.ceil((len(data) - non_ascii) / 3 + non_ascii / 2)


_state: dict[str, Any] = {}
_lock = threading.Lock()


def start_loading() -> None:
    """Begin loading the encoding in the background (idempotent).

    Callers with other work to do first (the packet's scan of the session) call this early, so
    the import and the cache lookup or download overlap that work.
    """
    with _lock:
        _start_locked()


def unavailable_note() -> Path:
    """`G/state/tokenizer-unavailable.json`: when and why the last load failed."""
    return global_home() / "state" / UNAVAILABLE_FILE


def remembered_failure(now: float | None = None) -> str | None:
    """The error of a load that failed less than RETRY_AFTER_SECONDS ago, else None."""
    try:
        data = json.loads(unavailable_note().read_text(encoding="utf-8"))
        at, error = float(data["at"]), str(data["error"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
    now = time.time() if now is None else now
    return error if 0 <= now - at < RETRY_AFTER_SECONDS else None


def _remember(error: BaseException | None) -> None:
    """Note a failed load (or clear the note after a good one). Best effort: only speed depends on it."""
    try:
        note = unavailable_note()
        if error is None:
            note.unlink(missing_ok=True)
            return

        note.parent.mkdir(parents=True, exist_ok=True)
        text = f"{type(error).__name__}: {error}"[:300]
        atomic_write(note, json.dumps({"at": time.time(), "error": text}) + "\n")
    except Exception:
        pass


def _start_locked(retry: bool = False) -> None:
    if "worker" in _state or "counter" in _state:
        return
    result: dict[str, Any] = {}
    _state["result"] = result
    _state["started"] = time.monotonic()
    if os.environ.get("OMP_TOKENIZER", "").strip().lower() == "estimate":
        _state["worker"] = None
        return
    if not retry:
        remembered = remembered_failure()
        if remembered is not None:
            _state["worker"] = None
            result["error"] = remembered
            result["remembered"] = True
            return

    def load() -> None:
        try:
            import tiktoken  # heavy, and it may download: in this thread, only when a count is needed

            result["encoding"] = tiktoken.get_encoding(ENCODING_NAME)
            _remember(None)
        except Exception as exc:  # offline, blocked, corrupt cache: all mean "estimate"
            result["error"] = exc
            _remember(exc)

    worker = threading.Thread(target=load, name="omp-tiktoken-load", daemon=True)
    _state["worker"] = worker
    worker.start()


def get_counter(retry: bool = False) -> TokenCounter:
    """The process's counter: tiktoken `o200k_base` if it loads, else the estimate. Cached.

    `retry`: try tiktoken even though a recent load failed (`omp doctor`).
    """
    with _lock:
        counter = _state.get("counter")
        if counter is not None:
            return counter
        _start_locked(retry)
        worker = _state["worker"]
        if worker is not None:
            worker.join(max(0.0, LOAD_TIMEOUT - (time.monotonic() - _state["started"])))
        counter = TokenCounter(_state["result"].get("encoding"))
        _state["counter"] = counter
        return counter


def reset_counter_cache() -> None:
    """Forget the cached counter (tests that change `OMP_TOKENIZER`)."""
    with _lock:
        _state.clear()
