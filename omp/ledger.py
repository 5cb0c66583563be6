"""The cost ledger and the review log (docs/behaviour.md#the-review-run, docs/reference/commands.md#omp-cost).

- `R/.omp/state/cost.jsonl`: one record per reviewer call, failed calls included:
  `{ts, session, event: "memory-review", backend, model, in_tokens, out_tokens, tokenizer,
  premium_requests?, duration_ms, outcome}`.
- `R/.omp/state/memory-review.log`: one JSON line per review outcome, skips included.

Both are append-only JSON lines written with one `write(2)` on an O_APPEND descriptor, so many
processes can append at once without a lock. When a file passes `ROTATE_BYTES` it is renamed to
`<name>.1` (replacing the previous old file), so each costs at most about twice that on disk.
Rotation happens under a small lock and re-checks the size after taking it: two processes that
both saw a big file must not rotate twice, which would throw away the older half.
"""

from __future__ import annotations

import datetime as _dt
import os
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Iterator

from omp.fsio import append_jsonl, confine, file_lock, iter_jsonl
from omp.paths import ProjectPaths
from omp.safety.secrets import redact

ROTATE_BYTES = 5 * 1024 * 1024
LEDGER_EVENT = "memory-review"


def now_iso() -> str:
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds").replace("+00:00", "Z")


def parse_ts(text: Any) -> _dt.datetime | None:
    if not isinstance(text, str):
        return None
    try:
        value = _dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    return value if value.tzinfo else value.replace(tzinfo=_dt.timezone.utc)


def _rotated(path: Path) -> Path:
    return path.with_name(path.name + ".1")


def _maybe_rotate(path: Path, limit: int) -> None:
    try:
        if path.stat().st_size < limit:
            return
    except FileNotFoundError:
        return
    with file_lock(path.with_name(f".{path.name}.rotate.lock"), "log rotation", timeout=30):
        try:
            if path.stat().st_size < limit:
                return  # someone rotated it while we waited
        except FileNotFoundError:
            return
        # Writers that opened the old file before the rename finish their line into `.1`.
        os.replace(path, _rotated(path))


def append_record(path: Path, record: dict[str, Any], limit: int = ROTATE_BYTES, within: Path | None = None) -> None:
    if within is not None:
        path = confine(path, within)  # a `.omp` that links out of the project gets no log line
    _maybe_rotate(path, limit)
    append_jsonl(path, record)


def read_records(path: Path) -> Iterator[dict[str, Any]]:
    """Old file first, then the current one: oldest records first."""
    yield from iter_jsonl(_rotated(path))
    yield from iter_jsonl(path)


# ---------------------------------------------------------------------------------------------
# cost ledger


@dataclass(frozen=True)
class CallRecord:
    """One reviewer call, as the ledger stores it."""

    session: str
    backend: str
    model: str
    in_tokens: int
    out_tokens: int
    tokenizer: str
    duration_ms: int
    outcome: str  # "ok" | "invalid-answer" | "unavailable" (with `error`)
    premium_requests: float | None = None
    error: str | None = None

    def to_json(self) -> dict[str, Any]:
        record: dict[str, Any] = {
            "ts": now_iso(),
            "session": self.session,
            "event": LEDGER_EVENT,
            "backend": self.backend,
            "model": self.model,
            "in_tokens": self.in_tokens,
            "out_tokens": self.out_tokens,
            "tokenizer": self.tokenizer,
        }
        if self.premium_requests is not None:
            record["premium_requests"] = self.premium_requests
        record["duration_ms"] = self.duration_ms
        record["outcome"] = self.outcome
        if self.error:
            record["error"] = self.error
        return record


def scrubbed(value: Any) -> Any:
    """`value` with every string in it redacted: a log line never holds a secret (docs/secrets-and-poisoning.md).

    Reviewer errors, rejection reasons and session-derived text all reach the logs; redacting
    here, where every line is written, covers the ones a caller forgot.
    """
    if isinstance(value, str):
        return redact(value)[0]
    if isinstance(value, dict):
        return {key: scrubbed(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [scrubbed(item) for item in value]
    return value


def record_call(paths: ProjectPaths, call: CallRecord) -> None:
    append_record(paths.cost_ledger, scrubbed(call.to_json()), within=paths.root)


def log_review(paths: ProjectPaths, entry: dict[str, Any]) -> None:
    """One line in the review log; `ts` first so the file reads as a timeline."""
    append_record(paths.review_log, scrubbed({"ts": now_iso(), **entry}), within=paths.root)


def read_review_log(paths: ProjectPaths) -> list[dict[str, Any]]:
    return list(read_records(paths.review_log))


# ---------------------------------------------------------------------------------------------
# `omp cost`


@dataclass
class Totals:
    calls: int = 0
    in_tokens: int = 0
    out_tokens: int = 0
    premium_requests: float = 0.0
    duration_ms: int = 0
    sessions: set[str] = field(default_factory=set)

    def add(self, record: dict[str, Any]) -> None:
        self.calls += 1
        self.in_tokens += _int(record.get("in_tokens"))
        self.out_tokens += _int(record.get("out_tokens"))
        self.duration_ms += _int(record.get("duration_ms"))
        premium = record.get("premium_requests")
        if isinstance(premium, (int, float)) and not isinstance(premium, bool):
            self.premium_requests += premium
        if isinstance(record.get("session"), str):
            self.sessions.add(record["session"])

    def to_json(self) -> dict[str, Any]:
        return {
            "calls": self.calls,
            "sessions": len(self.sessions),
            "in_tokens": self.in_tokens,
            "out_tokens": self.out_tokens,
            "premium_requests": self.premium_requests,
            "duration_ms": self.duration_ms,
        }


@dataclass
class CostSummary:
    total: Totals
    by_model: dict[str, Totals]
    by_outcome: dict[str, Totals]
    tokenizers: dict[str, int]  # how many records were counted with each tokenizer
    since: str | None
    session: str | None

    def to_json(self) -> dict[str, Any]:
        return {
            "session": self.session,
            "since": self.since,
            "total": self.total.to_json(),
            "by_model": {name: t.to_json() for name, t in sorted(self.by_model.items())},
            "by_outcome": {name: t.to_json() for name, t in sorted(self.by_outcome.items())},
            "tokenizers": dict(sorted(self.tokenizers.items())),
        }


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def summarize(records: Iterable[dict[str, Any]], session: str | None = None, days: float | None = None,
              now: _dt.datetime | None = None) -> CostSummary:
    """Sum records (calls, sessions, tokens) overall, by model and by outcome."""
    now = now or _dt.datetime.now(_dt.timezone.utc)
    since = now - _dt.timedelta(days=days) if days is not None else None
    total = Totals()
    by_model: dict[str, Totals] = defaultdict(Totals)
    by_outcome: dict[str, Totals] = defaultdict(Totals)
    tokenizers: dict[str, int] = defaultdict(int)
    for record in records:
        if record.get("event", LEDGER_EVENT) != LEDGER_EVENT:
            continue
        if session is not None and record.get("session") != session:
            continue
        if since is not None:
            ts = parse_ts(record.get("ts"))
            if ts is None or ts < since:
                continue
        total.add(record)
        by_model[str(record.get("model") or "-")].add(record)
        by_outcome[str(record.get("outcome") or "-")].add(record)
        tokenizers[str(record.get("tokenizer") or "-")] += 1
    return CostSummary(
        total=total,
        by_model=dict(by_model),
        by_outcome=dict(by_outcome),
        tokenizers=dict(tokenizers),
        since=since.isoformat(timespec="seconds").replace("+00:00", "Z") if since else None,
        session=session,
    )


def cost_summary(paths: ProjectPaths, session: str | None = None, days: float | None = None) -> CostSummary:
    return summarize(read_records(paths.cost_ledger), session=session, days=days)
