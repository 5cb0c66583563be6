#!/usr/bin/env python3
"""The review's one pass over a session, in CPU time, between this checkout and others.

The pass (`omp.review.explicit.scan` over `omp.packet.SessionIndexer`: every message streamed,
the explicit requests found, the planted rules looked for, the packet's index kept) is what a
review's cost grows with. Wall time on this shared machine moves by ±20% from one minute to the
next, so this measures CPU time (`time.process_time`), the best of three passes in one process,
one process per tree per round, the trees interleaved round by round, and reports the median and
the minimum over the rounds.

    python bench/bench_pass.py --tree /tmp/old                  # 20 and 100 MB sessions
    python bench/bench_pass.py --tree /tmp/old --sizes 20 --rounds 20
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from gen_session import generate

REPO = Path(__file__).resolve().parent.parent

_PASS = r"""
import sys, time
from omp.packet import SessionIndexer
from omp.review.explicit import scan
from omp.sessions.events import SessionReader

best = float("inf")
for _ in range(4):  # the first pass warms the caches; the best of the other three counts
    started = time.process_time()
    scan(SessionIndexer(SessionReader(sys.argv[1])).messages())
    best = min(best, time.process_time() - started)
print(best * 1000)
"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tree", action="append", default=[], help="another checkout of omp to compare (repeatable)")
    parser.add_argument("--sizes", type=float, nargs="+", default=[20, 100], help="session sizes in MiB")
    parser.add_argument("--rounds", type=int, default=9)
    args = parser.parse_args()
    trees = [str(REPO), *args.tree]
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OMP_", "COPILOT_"))}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    with tempfile.TemporaryDirectory(prefix="omp-bench-pass-") as scratch:
        env.update(HOME=scratch, OMP_HOME=os.path.join(scratch, ".omp"), COPILOT_HOME=os.path.join(scratch, ".copilot"))
        for mb in args.sizes:
            session = Path(scratch) / f"session-{mb:g}mb.jsonl"
            generate(session, mb, max(1, round(13 * mb)), seed=1)
            times: dict[str, list[float]] = {tree: [] for tree in trees}
            for _ in range(args.rounds):
                for tree in trees:
                    done = subprocess.run([sys.executable, "-c", _PASS, str(session)], env={**env, "PYTHONPATH": tree},
                                          capture_output=True, text=True, check=True, cwd=scratch)
                    times[tree].append(float(done.stdout))
            print(f"{mb:g} MB session, {args.rounds} interleaved rounds (CPU ms of one pass):")
            for tree, values in times.items():
                print(f"  {tree:50} median {statistics.median(values):7.1f}  min {min(values):7.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
