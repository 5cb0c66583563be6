"""The cost ledger and `omp cost`."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

from helpers import run_omp
from omp import ledger
from omp.ledger import CallRecord, record_call
from omp.paths import ProjectPaths


def _call(session: str, model: str = "gpt-5-mini", outcome: str = "ok", tokens: int = 1000, **kw: object) -> CallRecord:
    return CallRecord(session=session, backend="copilot", model=model, in_tokens=tokens, out_tokens=tokens // 10,
                      tokenizer="estimate", duration_ms=1500, outcome=outcome, **kw)  # type: ignore[arg-type]


def test_cost_sums_calls_sessions_and_tokens_by_model_and_outcome(project: Path) -> None:
    paths = ProjectPaths(project)
    record_call(paths, _call("s-1", premium_requests=1.0))
    record_call(paths, _call("s-1", outcome="unavailable", tokens=0, error="auth"))
    record_call(paths, _call("s-2", model="claude-haiku-4.5", tokens=3000, premium_requests=0.33))
    first = json.loads(paths.cost_ledger.read_text().splitlines()[0])
    assert list(first)[:3] == ["ts", "session", "event"] and first["event"] == "memory-review"
    assert {"backend", "model", "in_tokens", "out_tokens", "tokenizer", "premium_requests", "duration_ms",
            "outcome"} <= set(first)

    result = run_omp(["cost", "--json"], cwd=project)
    assert result.returncode == 0, result.stderr
    data = result.json()
    assert data["total"] == {"calls": 3, "sessions": 2, "in_tokens": 4000, "out_tokens": 400,
                             "premium_requests": 1.33, "duration_ms": 4500}
    assert data["by_model"]["gpt-5-mini"]["calls"] == 2 and data["by_model"]["gpt-5-mini"]["sessions"] == 1
    assert data["by_outcome"]["unavailable"]["calls"] == 1
    assert data["by_outcome"]["ok"]["in_tokens"] == 4000

    text = run_omp(["cost"], cwd=project).stdout
    assert "total" in text and "3 call(s), 2 session(s)" in text and "claude-haiku-4.5" in text
    assert "estimate" in text  # says the counts are estimates

    only = run_omp(["cost", "--session", "s-2", "--json"], cwd=project).json()
    assert only["total"]["calls"] == 1 and list(only["by_model"]) == ["claude-haiku-4.5"]


def test_cost_days_filters_by_time_and_bad_arguments_exit_2(project: Path) -> None:
    paths = ProjectPaths(project)
    old = _call("old").to_json()
    old["ts"] = (dt.datetime.now(dt.timezone.utc) - dt.timedelta(days=10)).isoformat()
    paths.cost_ledger.parent.mkdir(parents=True)
    paths.cost_ledger.write_text(json.dumps(old) + "\nnot json\n")
    record_call(paths, _call("new"))
    assert run_omp(["cost", "--json"], cwd=project).json()["total"]["calls"] == 2
    assert run_omp(["cost", "--days", "3", "--json"], cwd=project).json()["total"]["calls"] == 1
    assert run_omp(["cost", "--session", "../x"], cwd=project).returncode == 2
    assert run_omp(["cost", "--days", "-1"], cwd=project).returncode == 2


def test_no_ledger_yet_is_zero_not_an_error(project: Path) -> None:
    result = run_omp(["cost"], cwd=project)
    assert result.returncode == 0 and "0 call(s)" in result.stdout
    assert not (project / ".omp").exists()


def test_ledger_rotates_and_keeps_one_old_file(project: Path) -> None:
    path = ProjectPaths(project).cost_ledger
    for i in range(30):
        ledger.append_record(path, _call(f"s-{i}").to_json(), limit=2000)
    assert path.with_name("cost.jsonl.1").exists()
    assert path.stat().st_size < 2000 + 400
    kept = list(ledger.read_records(path))
    assert 5 < len(kept) < 30 and kept[-1]["session"] == "s-29"
    assert [r["session"] for r in kept] == sorted((r["session"] for r in kept), key=lambda s: int(s[2:]))
