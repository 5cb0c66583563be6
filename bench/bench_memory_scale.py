"""Does memory that grows slow omp down? (docs/performance.md#where-speed-matters, "Memory that grows")

    python bench/bench_memory_scale.py                      # 20,000 notes, 500 directives, 200 pending
    python bench/bench_memory_scale.py --notes 2000 --rounds 5

Two projects side by side in the same run: an empty one and one made by bench/gen_memory.py.
Each command runs as a user runs it (a new process), `--rounds` times, in the two projects in
turn; the table gives the median wall time in each project and the difference. The hooks are
compared with `python -c pass` (the floor of docs/performance.md#where-speed-matters). The memory
a review reads (the batch that dedupes one proposal, the known items its prompt lists) is timed in
this process; a whole review (a 1 MB session, bench/bench_review.py's instant reviewer) as a
process. HOME, OMP_HOME and COPILOT_HOME point
into a temporary folder: nothing of the user's is read or written.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable

sys.path.insert(0, str(Path(__file__).resolve().parent))
from gen_memory import make_project  # noqa: E402  (a sibling script)

SESSION = "0b3c1f3e-1111-4111-8111-111111111111"


def timed(argv: list[str], env: dict[str, str], cwd: Path, stdin: str = "") -> float:
    started = time.perf_counter()
    subprocess.run(argv, env=env, cwd=cwd, input=stdin.encode(), stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, check=True)
    return time.perf_counter() - started


def paired_ms(small: Callable[[int], float], large: Callable[[int], float], rounds: int) -> tuple[float, float]:
    """Medians of the same command in the empty and the grown project, run in turn round by
    round, so a change in the machine's load falls on both."""
    small(-1), large(-1)  # a first, unmeasured run of each: the caches a real project has
    pairs = [(small(number), large(number)) for number in range(rounds)]
    return (statistics.median(a for a, _ in pairs) * 1000, statistics.median(b for _, b in pairs) * 1000)


def median_ms(run: Callable[[int], float], rounds: int) -> float:
    run(-1)  # a first, unmeasured run: the caches a real project has after its first session
    return statistics.median(run(number) for number in range(rounds)) * 1000


def in_process_ms(root: Path, rounds: int) -> float:
    """The review's memory reads: the batch (lock, stores, the dedupe of one proposal) and the prompt's known items."""
    from omp.memory.store import known_items, memory_batch
    from omp.paths import ProjectPaths

    paths = ProjectPaths(root)

    def once(_: int) -> float:
        started = time.perf_counter()
        with memory_batch(paths) as batch:
            # what dedupes a review's proposals, asked for one new title of common words
            # ("fact" and "build" are in thousands of the grown project's titles)
            batch._index("add").find("A new fact about the build")
        known_items(paths)
        return time.perf_counter() - started

    return median_ms(once, rounds)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--notes", type=int, default=20_000)
    parser.add_argument("--directives", type=int, default=500)
    parser.add_argument("--pending", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()

    base = Path(tempfile.mkdtemp(prefix="omp-bench-scale-"))
    home = base / "home"
    env = {**os.environ, "HOME": str(home), "OMP_HOME": str(home / ".omp"), "COPILOT_HOME": str(home / ".copilot"),
           "OMP_MEMORY_MODE": "on"}
    os.environ.update({k: env[k] for k in ("HOME", "OMP_HOME", "COPILOT_HOME")})
    empty = make_project(base / "empty", 0, 0, 0).root
    grown = make_project(base / "grown", args.notes, args.directives, args.pending).root
    python = sys.executable

    def command(*words: str) -> Callable[[Path], Callable[[int], float]]:
        return lambda root: lambda number: timed(
            [python, "-m", "omp", *[w.replace("{n}", str(number)) for w in words]], env, root)

    def hook(mode: str) -> Callable[[Path], Callable[[int], float]]:
        payload = json.dumps({"cwd": "", "sessionId": SESSION, "source": "new"})
        return lambda root: lambda _n: timed([python, "-m", "omp.hooks", "session-start"],
                                             {**env, "OMP_MEMORY_INJECT": mode}, root,
                                             payload.replace('""', json.dumps(str(root)), 1))

    floor = median_ms(lambda _n: timed([python, "-c", "pass"], env, base), args.rounds)
    rows = [
        ("`omp memory sync`", command("memory", "sync")),
        ("`omp project-memory add-note`", command("project-memory", "add-note", "Bench note {n}")),
        ("sessionStart hook, `memory-inject=block`", hook("block")),
        ("sessionStart hook, `memory-inject=hook`", hook("hook")),
    ]
    print(f"{args.notes} notes, {args.directives} directives, {args.pending} pending items; median of "
          f"{args.rounds} runs; `python -c pass` {floor:.0f} ms\n")
    print("| what | empty project | grown project | difference |")
    print("|---|---|---|---|")
    for label, make in rows:
        small, large = paired_ms(make(empty), make(grown), args.rounds)
        print(f"| {label} | {small:.0f} ms | {large:.0f} ms | {large - small:+.0f} ms |")
    small, large = in_process_ms(empty, args.rounds), in_process_ms(grown, args.rounds)
    print(f"| a review's memory reads (in process) | {small:.1f} ms | {large:.1f} ms | {large - small:+.1f} ms |")
    review = whole_review(base, env)
    small, large = paired_ms(review(empty), review(grown), args.rounds)
    print(f"| a whole review (1 MB session, instant reviewer) | {small:.0f} ms | {large:.0f} ms | {large - small:+.0f} ms |")


def whole_review(base: Path, env: dict[str, str]) -> Callable[[Path], Callable[[int], float]]:
    """`omp memory-review --force` of one 1 MB session with bench/bench_review.py's instant
    reviewer (one note, one directive), in a project: what a user's background review costs
    beside its model. After the first run its items are duplicates: each run then does the same
    work, reading and deduping against the memory that is there."""
    from bench_review import INSTANT_REVIEWER, Fixture, generate_session, last_user_message, quote_of, write_answer

    reviewer = base / "instant_reviewer.py"
    reviewer.write_text(INSTANT_REVIEWER, encoding="utf-8")
    fixture = Fixture(base, base / "session-project", env, reviewer, base / "calls.log")
    fixture.project.mkdir(exist_ok=True)
    events = generate_session(fixture, 1, 1, SESSION)
    last, fact, _users = last_user_message(events)
    answer = write_answer(base / "answer.json", quote_of(last), quote_of(fact), "scale")
    review_env = {**env, "OMP_MEMORY_REVIEWER": "command", "OMP_MEMORY_REVIEWER_COMMAND": fixture.reviewer_command(answer),
                  "OMP_TOKENIZER": "estimate"}
    return lambda root: lambda _n: timed(
        [sys.executable, "-m", "omp", "memory-review", "--session", SESSION, "--root", str(root), "--json", "--force"],
        review_env, root)


if __name__ == "__main__":
    main()
