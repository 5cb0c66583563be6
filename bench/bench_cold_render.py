"""The sessionStart hook's cold render, as installed, between this checkout and other trees.

    python bench/bench_cold_render.py --tree /tmp/old --rounds 20
    /tmp/omp-wheel-venv/bin/python bench/bench_cold_render.py --tree /tmp/old   # as a wheel install runs

The cold render is `memory-inject=hook`'s first session after memory changed outside omp (a note
edited by hand, a `git pull`): the cached context is stale and the hook renders the block itself,
loading the memory library (bench_hooks.py's "session-start hook, as installed, cold"). Each tree
gets its own fixture (bench_hooks.build_fixture: 12 directives, 200 notes, 5 pending items), since
the note lines one tree keeps name the code that made them and another tree makes them anew, and
runs `sh hooks/run session-start` with `PYTHONPATH=<tree>` (ahead of any installed omp). Rounds
interleave the floor (`python -c pass`) and every tree, so load moves them alike; the cached
context is removed before each run. Printed only: the figures go to bench/README.md by hand.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_hooks  # noqa: E402  (the fixture and the timing are the hook bench's)

REPO = Path(__file__).resolve().parent.parent


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tree", action="append", default=[], help="another checkout of omp (repeatable)")
    parser.add_argument("--rounds", type=int, default=20)
    args = parser.parse_args()
    trees = [str(REPO), *(str(Path(tree).resolve()) for tree in args.tree)]
    with tempfile.TemporaryDirectory(prefix="omp-bench-cold-") as scratch:
        runs: dict[str, tuple[list[str], dict[str, str], bytes, Path]] = {}
        floor_env: dict[str, str] = {}
        for number, tree in enumerate(trees):
            root = Path(scratch) / f"tree{number}"
            root.mkdir()
            env = bench_hooks.build_fixture(root)
            child = {**bench_hooks._child_env(env), "OMP_MEMORY_INJECT": "hook", "PYTHONPATH": tree}
            payload = json.dumps({"sessionId": bench_hooks.SESSION_ID, "cwd": env["_PROJECT"], "source": "new"}).encode()
            cache = Path(env["_PROJECT"]) / ".omp" / "state" / "hook-context.txt"
            runs[tree] = (["sh", env["_RUN"], "session-start"], child, payload, cache)
            floor_env = bench_hooks._child_env(env)
        floor = [sys.executable, "-c", "pass"]
        wall: dict[str, list[float]] = {"floor": [], **{tree: [] for tree in trees}}
        cpu: dict[str, list[float]] = {name: [] for name in wall}
        for round_number in range(args.rounds + 2):  # two warm-up rounds: bytecode, page cache, note lines
            took, used, _ = bench_hooks.time_once(floor, floor_env, b"")
            if round_number >= 2:
                wall["floor"].append(took)
                cpu["floor"].append(used)
            for tree, (argv, child, payload, cache) in runs.items():
                cache.unlink(missing_ok=True)
                took, used, output = bench_hooks.time_once(argv, child, payload)
                bench_hooks.check("session-start hook, as installed, cold", output, cache.parent / "runs", 0)
                if not cache.exists():
                    raise SystemExit(f"{tree}: the hook did not render the block")
                if round_number >= 2:
                    wall[tree].append(took)
                    cpu[tree].append(used)
    base_wall, base_cpu = statistics.median(wall["floor"]), statistics.median(cpu["floor"])
    print(f"{sys.executable}, {args.rounds} interleaved rounds, medians; budget: within 40 ms of the floor")
    print(f"floor `python -c pass`: {base_wall:.1f} ms wall, {base_cpu:.1f} ms CPU")
    for tree in trees:
        over = statistics.median(wall[tree]) - base_wall
        print(f"cold render, as installed, {tree}: +{over:.1f} ms wall, "
              f"+{statistics.median(cpu[tree]) - base_cpu:.1f} ms CPU ({'met' if over <= 40 else 'NOT met'})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
