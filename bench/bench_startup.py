#!/usr/bin/env python3
"""What one short omp command costs to start, against `python -c pass`, and between trees.

Every omp process pays its imports before it does anything; this measures the whole of a short
command (`omp config get memory-mode`), interleaved with the floor so that load moves both alike,
in a temporary home (nothing of the user's is read).

    python bench/bench_startup.py                      # this checkout
    python bench/bench_startup.py --tree /tmp/old      # this checkout and another, interleaved
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tree", action="append", default=[], help="another checkout of omp to compare (repeatable)")
    parser.add_argument("--rounds", type=int, default=25)
    args = parser.parse_args()
    trees = [str(REPO), *args.tree]
    with tempfile.TemporaryDirectory(prefix="omp-bench-startup-") as scratch:
        home = os.path.join(scratch, "home")
        work = os.path.join(scratch, "work")  # not the home folder, which omp refuses as a project
        os.makedirs(home)
        os.makedirs(work)
        env = {k: v for k, v in os.environ.items() if not k.startswith(("OMP_", "COPILOT_"))}
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env.update(HOME=home, OMP_HOME=os.path.join(home, ".omp"), COPILOT_HOME=os.path.join(home, ".copilot"))
        runs: dict[str, tuple[list[str], dict[str, str]]] = {"python -c pass": ([sys.executable, "-c", "pass"], env)}
        for tree in trees:
            runs[f"omp config get ({tree})"] = ([sys.executable, "-m", "omp", "config", "get", "memory-mode"],
                                                {**env, "PYTHONPATH": tree})
        times: dict[str, list[float]] = {name: [] for name in runs}
        for argv, child_env in runs.values():  # warm-up: bytecode and page cache
            subprocess.run(argv, env=child_env, capture_output=True, cwd=work)
        for _ in range(args.rounds):
            for name, (argv, child_env) in runs.items():
                started = time.perf_counter()
                subprocess.run(argv, env=child_env, capture_output=True, cwd=work, check=True)
                times[name].append((time.perf_counter() - started) * 1000)
    floor = statistics.median(times["python -c pass"])
    for name, values in times.items():
        median = statistics.median(values)
        extra = "" if name == "python -c pass" else f"  (+{median - floor:.1f} ms over the floor)"
        print(f"{name:60} {median:7.1f} ms{extra}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
