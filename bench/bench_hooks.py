#!/usr/bin/env python3
"""The hooks' start-up cost against Python's own (docs/performance.md#where-speed-matters).

Copilot runs `python -m omp.hooks session-start|session-end` around every session, so what
counts is how much longer that takes than starting the same interpreter to do nothing. This
script times, interleaved round by round in one run, each as a fresh process with the hook's
JSON on stdin:

- floor:               `python -c pass` (same interpreter, same environment);
- session-end:         memory-mode on: reads the payload and config, detaches the review;
- session-end (off):   memory-mode off, the path of every project that has not opted in;
- session-start:       memory-inject=block, 5 pending items: the nudge;
- session-start hook:  memory-inject=hook, 12 directives, 200 notes, 5 pending items, the
                       rendered context cached (every session after the first);
- session-start hook, cold: the same with the cached context removed before each run (the first
                       session after memory changed by hand or by a `git pull`: the notes' lines
                       omp.memory.note_lines keeps are still there, so unchanged notes are not
                       read again);
- …, no caches:        the note lines removed too (the first session of a fresh clone);
- …, as installed:     the command Copilot really runs, `sh <plugin>/hooks/run EVENT` from the
                       folder `omp install` writes (the shell, finding the interpreter, and
                       `python -c` instead of `-m`, which saves runpy's imports); the cold
                       render is timed that way too, as docs/performance.md#where-speed-matters measures the hooks.

It reports each median and its difference from the floor's (budgets: session-end 25 ms,
session-start 40 ms), and the same for the CPU time the process used (user + system, from
`getrusage`): on a shared machine wall time also counts the waits for a core, CPU time mostly
does not, so it shows what the hook itself costs when the two disagree. The fixture lives in a temporary folder (its own HOME, OMP_HOME and
COPILOT_HOME). Bytecode is cached there too (PYTHONPYCACHEPREFIX, PYTHONDONTWRITEBYTECODE
unset): an installed package ships compiled bytecode, so compiling the source on every start
would measure something no user runs. Detached reviews are given time to finish between rounds
so they do not compete with the next measurement.

    python bench/bench_hooks.py                  # 30 rounds; prints the table
    python bench/bench_hooks.py --write          # ...and writes its section of bench/README.md
    /path/to/wheel-venv/bin/python bench/bench_hooks.py --write   # the same for a wheel install
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from readme import write_section

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
REPORT = HERE / "README.md"
BUDGET_MS = {"session-end": 25.0, "session-start": 40.0}
SESSION_ID = "bench-session-0001"


def build_fixture(root: Path) -> dict[str, str]:
    """A git project with memory-mode on and the sizes the hook budget is measured at (docs/performance.md); returns the environment to use."""
    home = root / "home"
    project = root / "project"
    home.mkdir()
    project.mkdir()
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    env = {
        "HOME": str(home),
        "OMP_HOME": str(home / ".omp"),
        "COPILOT_HOME": str(home / ".copilot"),
        "PYTHONPYCACHEPREFIX": str(root / "pycache"),
    }
    populate = f"""
from pathlib import Path
from omp import config
from omp.memory import store
from omp.memory.manage import add_directive
from omp.paths import ProjectPaths
paths = ProjectPaths(Path({str(project)!r}))
config.set_value("memory-mode", "on", "project", paths)
for i in range(12):
    add_directive(paths, f"Directive {{i}}: run tool{{i}} before step {{i}}")
store.add_notes(paths, [store.NoteProposal(f"Fact {{i}} about subsystem {{i * 7}}", "Some body text. " * 20)
                        for i in range(200)])
store.propose_directives(paths, [store.DirectiveProposal(f"Proposed rule {{c}} for widgets", "s1", "e")
                                 for c in "ABCDE"])
"""
    subprocess.run([sys.executable, "-c", populate], check=True, env=_child_env(env), cwd=REPO)
    # The plugin folder `omp install` writes, with this interpreter baked in: what Copilot runs.
    write = f"from pathlib import Path; from omp.install import write_plugin; write_plugin(Path({str(root / 'plugin')!r}), {sys.executable!r})"
    subprocess.run([sys.executable, "-c", write], check=True, env=_child_env(env), cwd=REPO)
    # The session Copilot recorded: sessionEnd detaches a review only for a real events.jsonl.
    events = home / ".copilot" / "session-state" / SESSION_ID / "events.jsonl"
    events.parent.mkdir(parents=True)
    events.write_text(json.dumps({"type": "session.start", "data": {"context": {"cwd": str(project)}}}) + "\n")
    env["_PROJECT"] = str(project)
    env["_RUN"] = str(root / "plugin" / "hooks" / "run")
    return env


def _child_env(extra: dict[str, str]) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OMP_", "COPILOT_"))}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env.update({k: v for k, v in extra.items() if not k.startswith("_")})
    return env


def cases(env: dict[str, str]) -> dict[str, tuple[list[str], dict[str, str], bytes]]:
    project = env["_PROJECT"]
    payload = json.dumps({"sessionId": SESSION_ID, "cwd": project, "source": "new"}).encode()
    base = _child_env(env)
    hook = [sys.executable, "-m", "omp.hooks"]
    return {
        "floor": ([sys.executable, "-c", "pass"], base, payload),
        "session-end": ([*hook, "session-end"], base, payload),
        "session-end (off)": ([*hook, "session-end"], {**base, "OMP_MEMORY_MODE": "off"}, payload),
        "session-start": ([*hook, "session-start"], base, payload),
        "session-start hook": ([*hook, "session-start"], {**base, "OMP_MEMORY_INJECT": "hook"}, payload),
        "session-start hook, cold": ([*hook, "session-start"], {**base, "OMP_MEMORY_INJECT": "hook"}, payload),
        "session-end, as installed": (["sh", env["_RUN"], "session-end"], base, payload),
        "session-start, as installed": (["sh", env["_RUN"], "session-start"], base, payload),
        "session-start hook, as installed, cold": (["sh", env["_RUN"], "session-start"],
                                                   {**base, "OMP_MEMORY_INJECT": "hook"}, payload),
        "session-start hook, as installed, no caches": (["sh", env["_RUN"], "session-start"],
                                                        {**base, "OMP_MEMORY_INJECT": "hook"}, payload),
    }


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def time_once(argv: list[str], env: dict[str, str], payload: bytes) -> tuple[float, float, bytes]:
    """Wall and CPU milliseconds of one run (a detached review is not waited for, so its CPU
    time is not counted), and its stdout."""
    cpu_before = _children_cpu()
    started = time.perf_counter()
    proc = subprocess.run(argv, input=payload, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd="/")
    took = time.perf_counter() - started
    cpu = _children_cpu() - cpu_before
    # A hook that failed would be fast and print {}: only a clean run counts.
    if proc.returncode != 0 or proc.stderr:
        raise SystemExit(f"{argv} failed: {proc.stdout!r} {proc.stderr!r}")
    return took * 1000, cpu * 1000, proc.stdout


def check(name: str, output: bytes, runs: Path, logs_before: int) -> None:
    """Each run must have done its work, or its time means nothing."""
    if name.startswith("session-end") and "off" not in name:
        if len(list(runs.glob("review-*.log"))) <= logs_before:
            raise SystemExit("session-end did not start a review")
    elif name.startswith("session-start"):
        context = json.loads(output).get("additionalContext", "")
        if "[MEMORY REVIEW] 5 proposed" not in context:
            raise SystemExit(f"{name} did not nudge: {output!r}")
        if "hook" in name.split(",")[0].split() and "Directive 11" not in context:
            raise SystemExit(f"{name} did not inject the block: {output!r}")


def measure(env: dict[str, str], rounds: int) -> tuple[dict[str, list[float]], dict[str, list[float]]]:
    table = cases(env)
    state = Path(env["_PROJECT"]) / ".omp" / "state"
    cache, runs = state / "hook-context.txt", state / "runs"
    lines = state / "note-lines.json"  # omp.memory.note_lines: each note's line, kept between renders
    for argv, child_env, payload in table.values():  # warm-up: bytecode, page cache, context cache
        time_once(argv, child_env, payload)
        time_once(argv, child_env, payload)
    time.sleep(1.0)
    results: dict[str, list[float]] = {name: [] for name in table}
    cpu: dict[str, list[float]] = {name: [] for name in table}
    for _ in range(rounds):
        for name, (argv, child_env, payload) in table.items():
            if name.endswith(("cold", "no caches")):
                cache.unlink(missing_ok=True)
            if name.endswith("no caches"):
                lines.unlink(missing_ok=True)
            for old in runs.glob("review-*.log"):  # keep the folder small and the check exact
                old.unlink()
            took, used, output = time_once(argv, child_env, payload)
            check(name, output, runs, 0)
            if name.endswith(("cold", "no caches")) and not cache.exists():
                raise SystemExit("the cold run did not render the context")
            results[name].append(took)
            cpu[name].append(used)
            if name.startswith("session-end") and "off" not in name:
                time.sleep(1.5)  # the review starts 0.5 s later: let it finish before the next run
    return results, cpu


def render(results: dict[str, list[float]], cpu: dict[str, list[float]]) -> str:
    floor = statistics.median(results["floor"])
    cpu_floor = statistics.median(cpu["floor"])
    lines = [
        "| run | median | minus floor | ratio | budget | CPU | CPU minus floor |",
        "|---|---:|---:|---:|---|---:|---:|",
    ]
    for name, samples in results.items():
        median = statistics.median(samples)
        used = statistics.median(cpu[name])
        budget = next((BUDGET_MS[key] for key in BUDGET_MS if name.startswith(key)), None)
        verdict = ""
        if budget is not None and name != "floor":
            verdict = f"≤ {budget:.0f} ms: {'met' if median - floor <= budget else 'NOT met'}"
        if name == "floor":
            lines.append(f"| `python -c pass` (floor) | {median:.1f} ms | — | 1.00 | | {used:.1f} ms | — |")
        else:
            lines.append(f"| {name} | {median:.1f} ms | {median - floor:+.1f} ms | {median / floor:.2f} | {verdict} "
                         f"| {used:.1f} ms | {used - cpu_floor:+.1f} ms |")
    return "\n".join(lines)


def install_kind() -> str:
    """`wheel` when this interpreter imports omp from site-packages, else `editable`."""
    where = subprocess.run([sys.executable, "-c", "import omp; print(omp.__file__)"], capture_output=True,
                           text=True, cwd="/", check=True).stdout
    return "wheel" if "site-packages" in where and str(REPO) not in where else "editable"


SECTION_TITLES = {
    "editable": "The repository's venv (`pip install -e .`)",
    "wheel": "A wheel installed into a fresh venv (`pip install omp-*.whl`)",
}


def section(kind: str, table: str, rounds: int) -> str:
    machine = f"{platform.system()} {platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}"
    return (f"### {SECTION_TITLES[kind]}\n\n"
            f"`{Path(sys.executable)} bench/bench_hooks.py --rounds {rounds} --write` — {machine}; "
            f"{rounds} interleaved rounds, medians of wall time.\n\n{table}")


def write_report(kind: str, table: str, rounds: int) -> None:
    """Replace this install kind's section of bench/README.md (the prose around it is kept)."""
    write_section(f"bench_hooks:{kind}", section(kind, table, rounds))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--write", action="store_true", help=f"write {REPORT.relative_to(REPO)}")
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="omp-bench-hooks-"))
    try:
        env = build_fixture(root)
        results, cpu = measure(env, args.rounds)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    table = render(results, cpu)
    print(table)
    if args.write:
        write_report(install_kind(), table, args.rounds)
        print(f"wrote {REPORT}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
