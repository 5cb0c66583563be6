#!/usr/bin/env python3
"""The least a whole-session review must do per MB, each step at C speed, against the pass itself.

docs/performance.md#where-speed-matters asks the review to read the *whole* session at ≤ 1.5 ms per further MB. This bench
asks what that leaves room for: it times, on a generated session, only the steps no review that
reads everything can skip, each done by one C call per block, line or text (no decoding of a
line's structure, no objects per message, none of the reader's plumbing), and sums them:

- **read**: the file into one 1 MiB buffer, block by block (`readinto`);
- **lines**: every line end found (`bytes.find`, one call per line) in those blocks;
- **tool output ends**: of each `tool.execution_complete` line, the closing quote of its output
  string (`omp.sessions.lines.string_end`: a memchr, then one regular-expression search), the
  only way to know where the output ends and the rest of the line starts;
- **planted-rule first look**: one automaton sweep (`omp.substrings`, pyahocorasick) of what the
  packet can show of each tool output (its first 700 and last 500 characters) and of each
  assistant text, for the stems a planted rule starts with (`omp.intents.FOREIGN_STEMS`);
- **request first look**: one sweep of each user message for the request grammar's triggers
  (`omp.intents.might_ask`).

The texts the sweeps look at are decoded before the clock starts: decoding them is not counted.
Each step is the best of ROUNDS runs in one warm process, CPU time. The sum is a lower bound of
any review in CPython that checks what omp checks; `pass` is omp's real one pass (the explicit
pass over `SessionIndexer`, `bench_pass.py`'s measure) on the same file.

    python bench/bench_floor.py                 # 20 and 100 MB sessions, printed
    python bench/bench_floor.py --write         # and bench/README.md's section rewritten
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable

from gen_session import generate
from readme import write_section

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

TOOL_PREFIX = b'{"type":"tool.execution_complete"'
USER_PREFIX = b'{"type":"user.message"'
REPLY_PREFIX = b'{"type":"assistant.message"'
CONTENT_KEY = b'"result":{"content":"'
HEAD_CHARS, TAIL_CHARS = 700, 500  # what the packet shows of a tool output (omp.sessions.excerpt)


def _best(step: Callable[[], object], rounds: int) -> float:
    """The step's best CPU time of `rounds` runs, in ms."""
    best = float("inf")
    for _ in range(rounds):
        started = time.process_time()
        step()
        best = min(best, time.process_time() - started)
    return best * 1000


def measure(path: Path, rounds: int) -> dict[str, float]:
    from omp.intents.messages import FOREIGN_STEMS, might_ask
    from omp.packet import SessionIndexer
    from omp.review.explicit import scan
    from omp.sessions.events import SessionReader
    from omp.sessions.lines import string_end
    from omp.substrings import substring_set

    # What the sweeps look at, decoded before any clock starts.
    tool_lines: list[bytes] = []
    excerpts: list[str] = []
    replies: list[str] = []
    users: list[str] = []
    with open(path, "rb") as handle:
        for line in handle:
            if line.startswith(TOOL_PREFIX):
                tool_lines.append(line)
                output = json.loads(line)["data"]["result"]["content"]
                excerpts.append(f"{output[:HEAD_CHARS]}\x00{output[-TAIL_CHARS:]}".lower())
            elif line.startswith(REPLY_PREFIX):
                data = json.loads(line)["data"]
                replies.append("\x00".join([data.get("content") or ""] + [
                    json.dumps(request) for request in data.get("toolRequests") or []]).lower())
            elif line.startswith(USER_PREFIX):
                users.append(json.loads(line)["data"]["content"])
    stems = substring_set(FOREIGN_STEMS)

    def read() -> None:
        with open(path, "rb") as handle:
            buf = bytearray(1 << 20)
            while handle.readinto(buf):
                pass

    def lines() -> None:
        with open(path, "rb") as handle:
            buf = bytearray(1 << 20)
            view = memoryview(buf)
            filled = 0
            while True:
                got = handle.readinto(view[filled:])
                if not got:
                    break
                filled += got
                pos = 0
                while True:
                    newline = buf.find(b"\n", pos, filled)
                    if newline < 0:
                        break
                    pos = newline + 1
                rest = filled - pos
                buf[:rest] = buf[pos:filled]
                filled = rest
            view.release()

    def tool_ends() -> None:
        for line in tool_lines:
            first = line.find(CONTENT_KEY) + len(CONTENT_KEY)
            string_end(line, first, len(line))

    def planted_look() -> None:
        for text in excerpts:
            stems.any_in(text)
        for text in replies:
            stems.any_in(text)

    def request_look() -> None:
        for text in users:
            might_ask(text)

    def one_pass() -> None:
        scan(SessionIndexer(SessionReader(path)).messages())

    steps = {"read": read, "lines": lines, "tool output ends": tool_ends, "planted-rule first look": planted_look,
             "request first look": request_look}
    one_pass()  # the caches warm (regexes, automatons), as in a review
    result = {name: _best(step, rounds) for name, step in steps.items()}
    result["pass"] = _best(one_pass, rounds)
    return result


def table(sizes: list[float], figures: dict[float, dict[str, float]], rounds: int) -> str:
    floor = {mb: sum(ms for name, ms in figures[mb].items() if name != "pass") for mb in sizes}
    head = "| step | " + " | ".join(f"{mb:g} MB: ms (ms per MB)" for mb in sizes) + " |"
    rows = [head, "|---|" + "---:|" * len(sizes)]
    for name in figures[sizes[0]]:
        if name == "pass":
            rows.append("| **sum of the steps: the floor** | "
                        + " | ".join(f"**{floor[mb]:.1f} ({floor[mb] / mb:.2f})**" for mb in sizes) + " |")
        rows.append(f"| {name} | " + " | ".join(f"{figures[mb][name]:.1f} ({figures[mb][name] / mb:.2f})"
                                                for mb in sizes) + " |")
    return (f"`python bench/bench_floor.py --write` — {platform.system()} {platform.machine()}, {os.cpu_count()} CPUs, "
            f"Python {platform.python_version()}; CPU time, best of {rounds} runs of each step in one warm process.\n\n"
            + "\n".join(rows) + "\n")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=float, nargs="+", default=[20, 100], help="session sizes in MiB")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--write", action="store_true", help="rewrite bench/README.md's section")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="omp-bench-floor-") as scratch:
        # omp reads its home for the regex cache: a throwaway one, never the user's.
        os.environ.update(HOME=scratch, OMP_HOME=os.path.join(scratch, ".omp"),
                          COPILOT_HOME=os.path.join(scratch, ".copilot"))
        figures: dict[float, dict[str, float]] = {}
        for mb in args.sizes:
            session = Path(scratch) / f"session-{mb:g}mb.jsonl"
            generate(session, mb, max(1, round(13 * mb)), seed=1)
            figures[mb] = measure(session, args.rounds)
            session.unlink()
    body = table(args.sizes, figures, args.rounds)
    print(body)
    if args.write:
        write_section("bench_floor", body)
    return 0


if __name__ == "__main__":
    sys.exit(main())
