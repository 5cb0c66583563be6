"""The hooks' entry point: read the payload, dispatch, and keep the contract — stdout is one
JSON object and the exit status 0, whatever happens."""

from __future__ import annotations

import os
import sys

from omp.core import jsonlite
from omp.hooks.end import session_end
from omp.hooks.outcome import HookResult, problem
from omp.hooks.start import session_start

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations only: importing typing costs start-up time
    from typing import Any, Mapping

MAX_PAYLOAD_BYTES = 1 << 20
EVENTS = {"session-start": session_start, "session-end": session_end}


def read_payload(stream: Any) -> dict[str, Any]:
    """The hook's JSON object from stdin; {} for anything else (empty, garbage, a terminal)."""
    if stream is None:
        return {}
    try:
        if stream.isatty():
            return {}
        source = getattr(stream, "buffer", stream)
        raw = source.read(MAX_PAYLOAD_BYTES)
    except (OSError, ValueError, AttributeError):
        return {}
    if isinstance(raw, bytes):
        raw = raw.decode("utf-8", errors="replace")
    try:
        value = jsonlite.loads(raw) if raw and raw.strip() else {}
    except (ValueError, RecursionError):
        return {}
    return value if isinstance(value, dict) else {}


def run(event: str, stdin: Any, env: Mapping[str, str]) -> HookResult:
    handler = EVENTS.get(event)
    if handler is None:
        problem(f"unknown hook event {event!r} (expected session-start or session-end)")
        return HookResult({}, "unknown event")
    try:
        return handler(read_payload(stdin), env)
    except Exception as exc:  # a hook must never break the session it runs in
        problem(f"{event} failed: {type(exc).__name__}: {exc}")
        return HookResult({}, "failed")


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    result = run(args[0] if args else "", sys.stdin, os.environ)
    try:
        # ASCII (jsonlite.dumps, like json's default) is valid JSON whatever encoding stdout
        # has (a Windows pipe is not UTF-8).
        sys.stdout.write(jsonlite.dumps(result.output) + "\n")
        sys.stdout.flush()
    except (OSError, ValueError, AttributeError):
        pass
    return 0
