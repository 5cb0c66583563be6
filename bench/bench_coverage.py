#!/usr/bin/env python3
"""Packet coverage on long sessions: does every correction and explicit request reach the
reviewer with the assistant turn it answers? (docs/explicit-requests-and-eval.md#the-packet, docs/performance.md#where-speed-matters)

For each size (20 and 100 MiB by default; bench/gen_session.py, 13 user messages per MiB, of
which about 3% explicit requests and 5% corrections, each one different), a fresh process builds
the packet at the review's default budget (`memory-review-max-input-tokens` minus the prompt
frame's reserve) and checks it against the session itself, read separately:

- every user message that `omp.intents` calls a correction or an explicit request is in the
  packet, and so is the assistant message just before it (the turn it answers);
- the packet is within its budget;
- what else is in it: other user messages (newest first), assistant and tool context.

    python bench/bench_coverage.py                 # 20 and 100 MiB; prints the table
    python bench/bench_coverage.py --write-readme  # ...and rewrites its section of bench/README.md
"""

from __future__ import annotations

import argparse
import json
import os
import platform
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
from omp.config import KEYS
from omp.intents.checks import asks_to_keep
from omp.packet import build_packet
from omp.review.prompt import transcript_budget
from omp.sessions.events import SessionReader
from omp.tokens import get_counter
path = sys.argv[1]
counter = get_counter()
budget, _ = transcript_budget(int(KEYS["memory-review-max-input-tokens"].default), counter)
t0 = time.perf_counter()
packet = build_packet(path, budget, counter=counter)
seconds = time.perf_counter() - t0
kept = {m.seq: m.origin for m in packet.messages}
pairs, answered, users = [], None, []
for message in SessionReader(path).iter_messages():
    if message.origin == "assistant":
        answered = message.seq
    elif message.origin == "user":
        users.append(message.seq)
        if asks_to_keep(message.text):
            pairs.append((message.seq, answered))
        answered = None
priority = {u for u, _ in pairs}
others = [u for u in users if u not in priority]
others_kept = [u for u in others if u in kept]
print(json.dumps({
    "budget": budget, "tokens": packet.tokens, "tokenizer": packet.tokenizer, "seconds": seconds,
    "pairs": len(pairs), "users_kept": sum(1 for u, _ in pairs if u in kept),
    "pairs_kept": sum(1 for u, a in pairs if u in kept and (a is None or a in kept)),
    "no_assistant_before": sum(1 for _, a in pairs if a is None),
    "users": len(users), "others": len(others), "others_kept": len(others_kept),
    "others_newest": others_kept == others[len(others) - len(others_kept):],
    "kept": dict(packet.stats.kept), "seen": dict(packet.stats.seen),
}))
"""


def ensure_session(folder: Path, mb: int, seed: int) -> tuple[Path, dict[str, Any]]:
    # Its own file name: sessions generated before the generator made requests and corrections
    # (bench_parse's cache) would have none to find.
    path = folder / f"coverage-{mb}mb-seed{seed}.jsonl"
    info_path = path.with_suffix(".json")
    if not (path.exists() and info_path.exists() and "user_kinds" in json.loads(info_path.read_text() or "{}")):
        proc = subprocess.run(
            [sys.executable, str(HERE / "gen_session.py"), str(path), "--mb", str(mb), "--user-messages", str(13 * mb),
             "--seed", str(seed), "--cwd", "/home/dev/proj"],
            capture_output=True, text=True, check=True,
        )
        info_path.write_text(proc.stdout)
    return path, json.loads(info_path.read_text())


def measure(path: Path) -> dict[str, Any]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
    env.setdefault("OMP_TOKENIZER", "estimate")  # tiktoken cannot download o200k_base here
    started = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-c", _CHILD, str(path)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env=env)
    stdout, stderr = proc.communicate()
    if proc.returncode:
        raise SystemExit(f"packet on {path} failed:\n{stderr.decode()}")
    result: dict[str, Any] = json.loads(stdout)
    result["wall_s"] = time.perf_counter() - started
    return result


def render(rows: list[dict[str, Any]]) -> str:
    out = [
        f"Measured with `python bench/bench_coverage.py --write-readme` (Python {platform.python_version()}, "
        f"{platform.system()} {platform.machine()}, {os.cpu_count()} CPUs). Sessions from "
        "`python bench/gen_session.py OUT --mb N --user-messages 13N --seed 1` (about 3% explicit requests and 5% "
        f"corrections, each different); budget: the review's default transcript budget, tokenizer `{rows[0]['tokenizer']}`.",
        "",
        "| session | corrections + explicit requests | in the packet with the assistant turn each answers | packet tokens | other user messages kept (newest first?) | assistant / tool kept | packet built in |",
        "|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        out.append(
            f"| {row['mb']:.0f} MB, {row['users']:,} user msgs | {row['pairs']} | "
            f"**{row['pairs_kept']} of {row['pairs']}** | {row['tokens']:,} ≤ {row['budget']:,} | "
            f"{row['others_kept']:,} of {row['others']:,} ({'yes' if row['others_newest'] else 'no'}) | "
            f"{row['kept'].get('assistant', 0)} / {row['kept'].get('tool', 0)} | {row['seconds'] * 1000:,.0f} ms |"
        )
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[20, 100], help="session sizes in MiB")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--dir", type=Path, default=HERE / "out", help="where generated sessions are kept")
    parser.add_argument("--write-readme", action="store_true", help="update the section in bench/README.md")
    args = parser.parse_args(argv)
    args.dir.mkdir(parents=True, exist_ok=True)
    rows = []
    for mb in args.sizes:
        path, info = ensure_session(args.dir, mb, args.seed)
        row = measure(path)
        row["mb"] = info["bytes"] / 2**20
        rows.append(row)
    section = render(rows)
    print(section)
    if args.write_readme:
        write_section("bench_coverage", section)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
