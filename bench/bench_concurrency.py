#!/usr/bin/env python3
"""Concurrent reviews: nothing lost, nothing paid twice (docs/performance.md#where-speed-matters, docs/behaviour.md#exactly-once-claims-the-retry-queue-and-sweeps).

Two batches of real `python -m omp memory-review --session ID --json` processes, all started at
once against one project (isolated HOME, OMP_HOME and COPILOT_HOME in a temporary folder), with
the instant reviewer of bench_review.py as the `command` reviewer, counting its calls:

- 20 sessions: 20 generated sessions (bench/gen_session.py, --mb each), each ending with a user
  message that names its own service ("the zzalpha service owns the billing queue …"); the
  reviewer answers every session with a note and a directive quoting that message. Expected:
  20 reviewer calls, 20 of 20 notes and 20 of 20 pending directives kept, every store parses,
  one managed block.
- 1 session: 20 reviews of the same session. Expected: exactly 1 reviewer call, 1 note, the
  other 19 skipped ("already reviewed" or "being reviewed"). Run twice: with the instant
  reviewer, and with a reviewer that takes 1 s (a model's latency, so the other 19 arrive while
  the call is in flight).

Each batch's wall time is set against one review of one such session alone, measured in the
same rounds (interleaved). Before every batch the project's memory is removed, so each round
starts from the same state.

    python bench/bench_concurrency.py            # 3 rounds; prints the table
    python bench/bench_concurrency.py --write    # ...and writes its section of bench/README.md
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench_review import (
    Fixture, command_line, generate_session, machine, make_fixture, set_reviewer_command, write_section,
)

NAMES = ("alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa "
         "quebec romeo sierra tango").split()
FILL = r"zz[a-z]+"  # the reviewer quotes the last service name in the prompt: the transcript comes last
SLOW_REVIEWER_S = 1.0


def session_id(name: str) -> str:
    return f"bench-conc-{name}"


def append_turn(events: Path, name: str) -> None:
    """The session's last turn: a fact about this session's own service (not an explicit request)."""
    user = {"type": "user.message", "id": f"u-{name}", "timestamp": "2026-11-29T18:00:00.000Z", "parentId": None,
            "data": {"content": f"Note for the team: the zz{name} service owns the billing queue, "
                                f"and we deploy it with make deploy-zz{name} only.",
                     "transformedContent": "", "interactionId": f"i-{name}", "turnId": "last"}}
    reply = {"type": "assistant.message", "id": f"a-{name}", "timestamp": "2026-11-29T18:00:01.000Z",
             "parentId": f"u-{name}", "data": {"content": f"Understood: zz{name} deploys with its own target.",
                                               "toolRequests": [], "turnId": "last"}}
    with events.open("a", encoding="utf-8") as handle:
        for event in (user, reply):
            handle.write(json.dumps(event) + "\n")


def write_fill_answer(path: Path) -> Path:
    answer = {
        "schema": "omp.review.v1",
        "directives": [{"text": "Deploy @@ with make deploy-@@", "evidence": "we deploy it with make deploy-@@"}],
        "notes": [{"title": "The @@ service owns the billing queue",
                   "body": "Its deploy target is make deploy-@@.", "evidence": "the @@ service owns the billing queue"}],
        "skill_drafts": [],
        "forget": [],
    }
    path.write_text(json.dumps(answer), encoding="utf-8")
    return path


# ---------------------------------------------------------------------------------------------
# one batch


@dataclass
class Batch:
    wall_ms: float
    outputs: list[dict[str, Any]]
    exit_codes: list[int]
    calls: int
    notes: int  # notes naming one of the services
    directives: int  # pending directives naming one of the services
    stores_parse: bool
    blocks: int

    def reasons(self) -> Counter[str]:
        return Counter("ran" if o.get("ran") else (o.get("reason") or "?").split(" by pid")[0] for o in self.outputs)


def run_batch(fixture: Fixture, sessions: list[str], env: dict[str, str]) -> Batch:
    """Start every review at once; wait for all; read what the project holds afterwards."""
    fixture.reset_project_state()
    fixture.calls_log.unlink(missing_ok=True)
    outs = [tempfile.TemporaryFile() for _ in sessions]
    started = time.perf_counter()
    procs = [subprocess.Popen([sys.executable, "-m", "omp", "memory-review", "--session", sid,
                               "--root", str(fixture.project), "--json"],
                              stdout=out, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL, env=env,
                              cwd=fixture.project)
             for sid, out in zip(sessions, outs)]
    codes = [proc.wait() for proc in procs]
    wall = (time.perf_counter() - started) * 1000
    outputs = []
    for out in outs:
        out.seek(0)
        raw = out.read()
        out.close()
        outputs.append(json.loads(raw) if raw.strip() else {"ran": False, "reason": "no output"})
    return Batch(wall, outputs, codes, len(fixture.calls()), len(_service_notes(fixture)),
                 len(_service_directives(fixture)), _stores_parse(fixture), _blocks(fixture))


def _service_notes(fixture: Fixture) -> list[Path]:
    folder = fixture.project / ".omp" / "memory" / "notes"
    return [p for p in folder.glob("*.md") if "zz" in p.read_text(encoding="utf-8")] if folder.is_dir() else []


def _service_directives(fixture: Fixture) -> list[str]:
    path = fixture.project / ".omp" / "memory-review" / "pending-directives.md"
    if not path.exists():
        return []
    return [line for line in path.read_text(encoding="utf-8").splitlines() if line.startswith("- [ ] ") and "zz" in line]


def _stores_parse(fixture: Fixture) -> bool:
    try:
        for path in (fixture.project / ".omp").rglob("*.json"):
            json.loads(path.read_text(encoding="utf-8"))
        for path in (fixture.project / ".omp").rglob("*.jsonl"):
            for line in path.read_text(encoding="utf-8").splitlines():
                json.loads(line)
    except (ValueError, OSError):
        return False
    return True


def _blocks(fixture: Fixture) -> int:
    path = fixture.project / ".github" / "copilot-instructions.md"
    return path.read_text(encoding="utf-8").count("<!-- omp:memory:start -->") if path.exists() else 0


# ---------------------------------------------------------------------------------------------
# the bench


@dataclass
class Results:
    mb: float
    rounds: int
    alone: list[float] = field(default_factory=list)
    many: list[Batch] = field(default_factory=list)
    one: list[Batch] = field(default_factory=list)
    one_slow: list[Batch] = field(default_factory=list)
    alone_slow: list[float] = field(default_factory=list)


def measure(fixture: Fixture, rounds: int, mb: float) -> Results:
    sessions = []
    for i, name in enumerate(NAMES):
        events = generate_session(fixture, mb, i + 1, session_id(name))
        append_turn(events, name)
        sessions.append(session_id(name))
    answer = write_fill_answer(fixture.root / "answer-fill.json")
    set_reviewer_command(fixture, fixture.reviewer_command(answer, FILL))
    slow_env = {**fixture.env, "BENCH_REVIEWER_SLEEP": str(SLOW_REVIEWER_S)}
    result = Results(mb, rounds)
    run_batch(fixture, sessions[:1], fixture.env)  # warm-up
    for _ in range(rounds):
        result.alone.append(run_batch(fixture, sessions[:1], fixture.env).wall_ms)
        result.many.append(run_batch(fixture, sessions, fixture.env))
        result.one.append(run_batch(fixture, [sessions[0]] * len(NAMES), fixture.env))
        result.alone_slow.append(run_batch(fixture, sessions[:1], slow_env).wall_ms)
        result.one_slow.append(run_batch(fixture, [sessions[0]] * len(NAMES), slow_env))
    return result


def _ok_many(batch: Batch) -> bool:
    return (batch.exit_codes.count(0) == len(NAMES) and batch.calls == len(NAMES) and batch.notes == len(NAMES)
            and batch.directives == len(NAMES) and batch.stores_parse and batch.blocks == 1)


def _ok_one(batch: Batch) -> bool:
    return (batch.exit_codes.count(0) == len(NAMES) and batch.calls == 1 and batch.reasons()["ran"] == 1
            and batch.notes == 1 and batch.directives == 1 and batch.stores_parse)


def _counts(batches: list[Batch], attr: str) -> str:
    values = sorted({getattr(b, attr) for b in batches})
    return " / ".join(str(v) for v in values)


def render(r: Results) -> str:
    alone, alone_slow = statistics.median(r.alone), statistics.median(r.alone_slow)
    lines = [
        f"`{command_line()}` — {machine()}; {r.rounds} interleaved rounds, "
        f"sessions of {r.mb:g} MB each, medians of wall time; every batch checked, counts over all rounds.",
        "",
        "| batch (all started at once) | reviewer calls | notes kept | directives kept | exit 0 | stores parse "
        "| batch wall time | one review alone | batch ÷ alone | promise |",
        "|---|---:|---:|---:|---:|---|---:|---:|---:|---|",
    ]
    rows = [
        ("20 reviews of 20 sessions, instant reviewer", r.many, alone, _ok_many,
         "20 of 20 notes and directives kept"),
        ("20 reviews of 1 session, instant reviewer", r.one, alone, _ok_one, "exactly 1 reviewer call"),
        (f"20 reviews of 1 session, reviewer takes {SLOW_REVIEWER_S:g} s", r.one_slow, alone_slow, _ok_one,
         "exactly 1 reviewer call"),
    ]
    for label, batches, single, ok, target in rows:
        wall = statistics.median(b.wall_ms for b in batches)
        good = sum(ok(b) for b in batches)
        exits = " / ".join(str(v) for v in sorted({b.exit_codes.count(0) for b in batches}))
        parse = "yes" if all(b.stores_parse for b in batches) else "NO"
        lines.append(
            f"| {label} | {_counts(batches, 'calls')} | {_counts(batches, 'notes')} | {_counts(batches, 'directives')} "
            f"| {exits} of 20 | {parse} | {wall / 1000:.2f} s | {single / 1000:.2f} s | {wall / single:.1f}× "
            f"| {target}: **{'met' if good == len(batches) else f'NOT met ({good} of {len(batches)} rounds)'}** |"
        )
    skipped: Counter[str] = Counter()
    for batch in [*r.one, *r.one_slow]:
        skipped.update(batch.reasons())
    shown = ", ".join(f"{reason} × {n}" for reason, n in skipped.most_common())
    lines += [
        "",
        f"The 1-session batches' outcomes over all rounds: {shown}. "
        "A skipped review exits 0 and logs why; it spends no claim and calls no reviewer.",
    ]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--mb", type=float, default=1.0, help="size of each generated session in MiB")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder and say where it is")
    parser.add_argument("--write", action="store_true", help="write its section of bench/README.md")
    args = parser.parse_args(argv)
    root = Path(tempfile.mkdtemp(prefix="omp-bench-concurrency-"))
    try:
        results = measure(make_fixture(root), args.rounds, args.mb)
    finally:
        if args.keep:
            print(f"kept {root}")
        else:
            shutil.rmtree(root, ignore_errors=True)
    section = render(results)
    print(section)
    if args.write:
        write_section("bench_concurrency", section)
        print("wrote bench/README.md")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
