#!/usr/bin/env python3
"""Session parsing and packet building: throughput, peak memory, and packet coverage (docs/performance.md#where-speed-matters).

For each session size (1, 20 and 100 MiB by default; generated with bench/gen_session.py, 13
user messages per MiB, so 1,300 on the 100 MiB one) it runs, each in a fresh subprocess and
side by side in the same run:

- floor:   a plain `for line in open(path, "rb")` over the file (the least any reader pays);
- parse:   `SessionReader.iter_messages()` over the whole file: every message, as the explicit
           pass reads them (tool outputs read by their ends, omp/sessions/lines.py);
- packet:  `build_packet()` with the review's budget (the default 24,000 tokens minus what the
           prompt frame reserves), i.e. the scan, the choice, redaction, counting and rendering;
- review pass: the one pass a review makes (`omp.review.pipeline.scan_session`): the explicit pass over
           `SessionIndexer.messages()`, which also keeps the packet's index. This is what each
           further MB of a review costs (docs/performance.md#where-speed-matters's slope); its ms per MB over the floor is shown.

With `--big-messages` two more sessions are measured the same way: 1 MiB plus one 60 MB tool
output, and 1 MiB plus one 60 MB user paste (a 120 MB line: Copilot writes it twice); their
peak RSS should be the 1 MiB session's (no line over 8 MiB is held).

Time is measured inside the child around the work only (interpreter start-up and imports are
reported apart); peak RSS is the child's own `ru_maxrss` from `os.wait4`. Each figure is the
median of --repeat runs. Coverage: how many user messages reach the packet, whether they are the
newest ones, and the tokens used against the budget.

    python bench/bench_parse.py                       # 1, 20, 100 MiB; prints a table
    python bench/bench_parse.py --big-messages        # …and the two 60 MB messages
    python bench/bench_parse.py --write-readme        # …and updates bench/README.md
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from readme import write_section

HERE = Path(__file__).resolve().parent
REPO = HERE.parent

_CHILD = r"""
import json, sys, time
t0 = time.perf_counter()
mode, path = sys.argv[1], sys.argv[2]
if mode == "floor":
    t1 = time.perf_counter()
    n = 0
    with open(path, "rb") as handle:
        for line in handle:
            n += 1
    out = {"lines": n}
elif mode == "parse":
    from omp.sessions.events import SessionReader
    t1 = time.perf_counter()
    reader = SessionReader(path)
    counts = {}
    for message in reader.iter_messages():
        counts[message.origin] = counts.get(message.origin, 0) + 1
    out = {"messages": counts, "bad_lines": reader.bad_lines}
elif mode == "pass":
    from omp.packet import SessionIndexer
    from omp.review.explicit import scan
    from omp.sessions.events import SessionReader
    t1 = time.perf_counter()
    indexer = SessionIndexer(SessionReader(path))
    found = scan(indexer.messages())
    index = indexer.index(found.asking)
    out = {"messages": found.messages, "explicit": len(found.proposals), "must_keep": len(index.must_keep or ())}
elif mode == "packet":
    from omp.packet import build_packet
    from omp.tokens import get_counter
    t_load = time.perf_counter()
    counter = get_counter()  # a fixed per-process cost, reported apart
    t1 = time.perf_counter()
    packet = build_packet(path, int(sys.argv[3]), counter=counter)
    users = [m.seq for m in packet.messages if m.origin == "user"]
    out = {
        "tokens": packet.tokens, "budget": packet.budget, "tokenizer": packet.tokenizer,
        "tokenizer_load_s": t1 - t_load,
        "seen": dict(packet.stats.seen), "kept": dict(packet.stats.kept),
        "trimmed": dict(packet.stats.trimmed), "kept_user_seqs": users,
    }
else:  # "info": the review's transcript budget and the session's user message numbers
    from omp.config import KEYS
    from omp.review.prompt import transcript_budget
    from omp.sessions.events import SessionReader
    from omp.tokens import get_counter
    t1 = time.perf_counter()
    max_input = int(KEYS["memory-review-max-input-tokens"].default)
    budget, _ = transcript_budget(max_input, get_counter())
    seqs = [e.seq for e in SessionReader(path).iter_entries() if e.origin == "user"]
    out = {"max_input": max_input, "budget": budget, "user_seqs": seqs}
t2 = time.perf_counter()
out["startup_s"] = t1 - t0
out["work_s"] = t2 - t1
print(json.dumps(out))
"""


def _peak_rss_mb(usage: Any) -> float:
    return usage.ru_maxrss / (1024 * 1024 if sys.platform == "darwin" else 1024)


def run_measured(mode: str, path: Path, *extra: str) -> dict[str, Any]:
    """One measurement in a fresh process; its peak RSS comes from wait4 (that child only)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
    started = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-c", _CHILD, mode, str(path), *extra],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    assert proc.stdout is not None and proc.stderr is not None
    stdout = proc.stdout.read()  # one JSON line; stderr stays small
    stderr = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    proc.stdout.close()
    proc.stderr.close()
    wall = time.perf_counter() - started
    if proc.returncode:
        raise SystemExit(f"{mode} on {path} failed:\n{stderr.decode()}")
    result = json.loads(stdout)
    result["wall_s"] = wall
    result["rss_mb"] = _peak_rss_mb(usage)
    return result


def median_run(mode: str, path: Path, repeat: int, *extra: str) -> dict[str, Any]:
    runs = [run_measured(mode, path, *extra) for _ in range(repeat)]
    best = dict(runs[0])
    for key in ("work_s", "startup_s", "wall_s", "rss_mb", "tokenizer_load_s"):
        if key in best:
            best[key] = statistics.median(r[key] for r in runs)
    return best


BIG_MESSAGE_KB = 60 * 1024
BIG_KINDS = {"tool": "--big-tool-output-kb", "user": "--big-user-message-kb"}


def ensure_session(folder: Path, mb: int, seed: int, big: str | None = None) -> tuple[Path, dict[str, Any]]:
    path = folder / f"session-{mb}mb-seed{seed}{f'-big-{big}' if big else ''}.jsonl"
    info_path = path.with_suffix(".json")
    if not (path.exists() and info_path.exists()):
        users = 13 * mb
        extra = [BIG_KINDS[big], str(BIG_MESSAGE_KB)] if big else []
        proc = subprocess.run(
            [sys.executable, str(HERE / "gen_session.py"), str(path), "--mb", str(mb), "--user-messages", str(users),
             "--seed", str(seed), "--cwd", "/home/dev/proj", *extra],
            capture_output=True, text=True, check=True,
        )
        info_path.write_text(proc.stdout)
    return path, json.loads(info_path.read_text())


def measure(sizes: list[int], repeat: int, folder: Path, seed: int, big_messages: bool = False) -> dict[str, Any]:
    # The parent imports nothing of omp: a child's peak RSS includes what it was forked from.
    folder.mkdir(parents=True, exist_ok=True)
    rows = []
    budget = max_input = 0
    runs: list[tuple[int, str | None]] = [(mb, None) for mb in sizes]
    if big_messages:
        runs += [(1, "tool"), (1, "user")]
    for mb, big in runs:
        path, info = ensure_session(folder, mb, seed, big)
        facts = run_measured("info", path)
        max_input, budget = facts["max_input"], facts["budget"]
        floor = median_run("floor", path, repeat)
        parse = median_run("parse", path, repeat)
        packet = median_run("packet", path, repeat, str(budget))
        one_pass = median_run("pass", path, repeat)
        kept, all_users = packet["kept_user_seqs"], facts["user_seqs"]
        rows.append({
            "mb": mb, "big": big, "bytes": info["bytes"], "messages": info["messages"],
            "floor": floor, "parse": parse, "packet": packet, "pass": one_pass,
            "users_seen": len(all_users), "users_kept": len(kept),
            "users_newest": kept == all_users[len(all_users) - len(kept):],
        })
    return {"max_input": max_input, "budget": budget, "rows": rows, "repeat": repeat,
            "python": platform.python_version(), "machine": f"{platform.system()} {platform.machine()}, {os.cpu_count()} CPUs"}


def render(report: dict[str, Any]) -> str:
    rows = report["rows"]
    out = [
        f"Measured with `python bench/bench_parse.py --write-readme` (Python {report['python']}, {report['machine']}; "
        f"median of {report['repeat']} runs, each in a fresh process). Time is the work inside the process; "
        "start-up and imports are listed apart. Peak RSS is the process's own `ru_maxrss`.",
        "",
        "| session | floor: plain line read | parse all messages | packet (scan + choose + redact + count) | packet − floor | ms per MB (packet) "
        "| a review's one pass (explicit pass + index) | its ms per MB over the floor |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        floor, parse, packet, one_pass = row["floor"], row["parse"], row["packet"], row["pass"]
        mb = row["bytes"] / 2**20
        what = f", one 60 MB {'tool output' if row['big'] == 'tool' else 'user paste'}" if row.get("big") else ""
        out.append(
            f"| {mb:.0f} MB, {row['users_seen']:,} user msgs{what} | {floor['work_s'] * 1000:.0f} ms, {floor['rss_mb']:.0f} MB RSS "
            f"| {parse['work_s'] * 1000:.0f} ms, {parse['rss_mb']:.0f} MB RSS "
            f"| {packet['work_s'] * 1000:.0f} ms, {packet['rss_mb']:.0f} MB RSS "
            f"| {(packet['work_s'] - floor['work_s']) * 1000:+.0f} ms ({packet['work_s'] / max(floor['work_s'], 1e-9):.1f}×), "
            f"{packet['rss_mb'] - floor['rss_mb']:+.0f} MB RSS "
            f"| {packet['work_s'] * 1000 / mb:.1f} "
            f"| {one_pass['work_s'] * 1000:.0f} ms, {one_pass['rss_mb']:.0f} MB RSS "
            f"| {(one_pass['work_s'] - floor['work_s']) * 1000 / mb:.1f} |"
        )
    packet = rows[-1]["packet"]
    out += [
        "",
        f"Not in the times above, paid once per process: interpreter start-up and imports "
        f"{packet['startup_s'] * 1000:.0f} ms; loading the tokenizer ({packet['tokenizer']}) "
        f"{packet['tokenizer_load_s'] * 1000:.0f} ms (offline, tiktoken's download attempt fails "
        "fast and the estimate is used; a review overlaps this with its scan).",
        "",
        f"Packet coverage, budget {report['budget']:,} tokens for the transcript "
        f"(`memory-review-max-input-tokens` default {report['max_input']:,} minus the prompt frame's reserve), "
        f"tokenizer `{rows[-1]['packet']['tokenizer']}`:",
        "",
        "| session | user messages kept | the newest ones? | packet tokens | trimmed (user) | assistant / tool kept |",
        "|---|---|---|---|---|---|",
    ]
    for row in rows:
        packet = row["packet"]
        mb = row["bytes"] / 2**20
        share = 100 * row["users_kept"] / max(row["users_seen"], 1)
        out.append(
            f"| {mb:.0f} MB | {row['users_kept']:,} of {row['users_seen']:,} ({share:.0f}%) | "
            f"{'yes' if row['users_newest'] else 'no'} | {packet['tokens']:,} ≤ {packet['budget']:,} | "
            f"{packet['trimmed'].get('user', 0)} | {packet['kept'].get('assistant', 0)} / {packet['kept'].get('tool', 0)} |"
        )
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1, 20, 100], help="session sizes in MiB")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--dir", type=Path, default=HERE / "out", help="where generated sessions are kept")
    parser.add_argument("--big-messages", action="store_true",
                        help="also 1 MiB sessions with one 60 MB tool output and one 60 MB user paste")
    parser.add_argument("--json", action="store_true", help="print the raw figures as JSON")
    parser.add_argument("--write-readme", action="store_true", help="update the section in bench/README.md")
    args = parser.parse_args(argv)
    report = measure(args.sizes, args.repeat, args.dir, args.seed, args.big_messages)
    section = render(report)
    print(json.dumps(report, indent=2) if args.json else section)
    if args.write_readme:
        write_section("bench_parse", section)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
