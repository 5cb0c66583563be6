#!/usr/bin/env python3
"""Review overhead: everything but the model, with an instant reviewer (SPEC §12).

For each session size (1, 20 and 100 MiB by default, generated with bench/gen_session.py into
an isolated Copilot home, with a git project as its cwd), this runs, interleaved round by round
and each in a fresh process:

- floor:    `python -c "for line in open(path, 'rb'): pass"` over the same file;
- command:  the real `python -m omp memory-review --session ID --root R --json --force`, with
            memory-mode on and `memory-reviewer = command` pointing at an instant reviewer (a
            tiny script that reads the prompt and prints a canned, valid `omp.review.v1` answer:
            one note and one directive whose evidence is the session's last user message);
- offline:  the same review with `--reviewer offline` (no reviewer process: explicit pass only);
- reviewer: the instant reviewer alone, fed a prompt of the size the review sent it, so its own
            cost is known. The review's ledger also records how long the call took inside the
            review (`duration_ms`); that figure is what is subtracted.

Before each review the project's `.omp/`, `.github/` and `.gitignore` are removed, so every run
does the same work (creating the state folder, writing the note and the pending directives, the
managed block, the journal, the ledger). Wall time is measured by the parent around the child;
peak RSS is the child's `ru_maxrss` from `os.wait4` (on Linux that is the larger of the review
and the reviewer it waited for; the parent imports nothing of omp, so the child does not inherit
its size). Each figure is the median of --rounds runs. One more run per size under cProfile says
where the time goes.

Also here, because it is the same pipeline end to end: `omp demo` (SPEC §10, offline reviewer,
"under two seconds") against `python -c pass`, interleaved.

    python bench/bench_review.py                  # 1, 20, 100 MiB, 5 rounds; prints the tables
    python bench/bench_review.py --write          # ...and writes its sections of bench/README.md
    python bench/bench_review.py --sizes 1 --rounds 3 --demo-rounds 3

The token counter is the byte-based estimate (`OMP_TOKENIZER=estimate`): tiktoken cannot
download `o200k_base` on these machines, and its failed attempt is network timing, not omp's.
`--tokenizer auto` lets a review try it as a user's would.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

from readme import write_section

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
README = HERE / "README.md"
TARGET_MS_PER_MB = 10.0
TARGET_RSS_MB = 100.0
DEMO_BUDGET_S = 2.0

# The instant reviewer: standard library only, started with `python -S` (no site) so it costs
# as little as a process can. argv: ANSWER_FILE CALLS_LOG [REGEX]. With REGEX, every "@@" in the
# answer becomes the regex's last match in the prompt, so one answer serves many sessions. Each
# call appends one line (pid, prompt bytes) to CALLS_LOG with O_APPEND: the count of calls.
INSTANT_REVIEWER = r'''
import os, sys
data = sys.stdin.buffer.read()
with open(sys.argv[1], "rb") as handle:
    answer = handle.read()
if len(sys.argv) > 3 and b"@@" in answer:
    import re
    found = re.findall(sys.argv[3].encode(), data)
    answer = answer.replace(b"@@", found[-1] if found else b"nothing-matched")
delay = float(os.environ.get("BENCH_REVIEWER_SLEEP") or 0)
if delay:
    import time
    time.sleep(delay)
fd = os.open(sys.argv[2], os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
os.write(fd, b"%d %d\n" % (os.getpid(), len(data)))
os.close(fd)
sys.stdout.buffer.write(answer)
'''

# The newest user message that is not an explicit request ("remember …", "from now on …"): the
# explicit pass already proposes those, and a model answer quoting one would be a duplicate.
_LAST_USER_MESSAGE = r"""
import json, re, sys
explicit = re.compile(r"remember|from now on|always|never|forget", re.I)
last, count = None, 0
with open(sys.argv[1], "rb") as handle:
    for line in handle:
        if b'"user.message"' in line[:40]:
            content = json.loads(line)["data"]["content"]
            count += 1
            if not explicit.search(content.splitlines()[0]):
                last = content
print(json.dumps({"last": last, "users": count}))
"""

_PROFILE_SUMMARY = r"""
import json, pstats, sys
stats = pstats.Stats(sys.argv[1]).stats
wanted = {("run.py", "_scan"): "explicit pass (stream every message)",
          ("packet.py", "build_packet"): "packet (scan, choose, redact, count)",
          ("reviewers.py", "call_reviewer"): "reviewer call",
          ("run.py", "_apply"): "write under the project lock",
          ("secrets.py", "find_secrets"): "secret detection (inside the stages above)",
          ("secrets.py", "_detect_secrets_scanner"): "loading detect-secrets (inside secret detection)",
          ("run.py", "review_session"): "review_session (the stages below, and more)"}
out = {}
for (filename, _line, name), (_cc, _nc, _tt, cumulative, _callers) in stats.items():
    label = wanted.get((filename.rsplit("/", 1)[-1], name))
    if label:
        out[label] = out.get(label, 0.0) + cumulative
print(json.dumps(out))
"""


# ---------------------------------------------------------------------------------------------
# running children


@dataclass
class Run:
    wall_ms: float
    rss_mb: float
    returncode: int
    stdout: bytes
    stderr: bytes

    def json(self) -> Any:
        return json.loads(self.stdout)


def _peak_rss_mb(usage: Any) -> float:
    return float(usage.ru_maxrss) / (1024 * 1024 if sys.platform == "darwin" else 1024)


def run_child(argv: Sequence[str], env: dict[str, str], *, stdin: bytes = b"", cwd: str | Path = "/") -> Run:
    """One fresh process: wall time around it, and its own peak RSS from wait4."""
    # Files, not pipes: the parent must reap the child itself (wait4 gives its rusage), and
    # Popen.communicate would reap it first.
    with tempfile.TemporaryFile() as inp, tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        inp.write(stdin)
        inp.seek(0)
        started = time.perf_counter()
        proc = subprocess.Popen(list(argv), stdin=inp, stdout=out, stderr=err, env=env, cwd=cwd)
        _, status, usage = os.wait4(proc.pid, 0)
        took = (time.perf_counter() - started) * 1000
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        return Run(took, _peak_rss_mb(usage), proc.returncode, out.read(), err.read())


def child_env(extra: dict[str, str]) -> dict[str, str]:
    """The caller's environment without any omp or Copilot setting, plus `extra`."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OMP_", "COPILOT_"))}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env.update(extra)
    return env


def median(values: Sequence[float]) -> float:
    return statistics.median(values) if values else float("nan")


def command_line() -> str:
    """How this bench was run, as the README shows it."""
    return " ".join(["python", f"bench/{Path(sys.argv[0]).name}", *sys.argv[1:]])


def machine() -> str:
    return f"{platform.system()} {platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}"


# ---------------------------------------------------------------------------------------------
# the fixture: homes, a git project, sessions, the instant reviewer


@dataclass
class Fixture:
    root: Path
    project: Path
    env: dict[str, str]
    reviewer: Path
    calls_log: Path

    @property
    def session_state(self) -> Path:
        return Path(self.env["COPILOT_HOME"]) / "session-state"

    def omp(self, *args: str, env: dict[str, str] | None = None) -> Run:
        return run_child([sys.executable, "-m", "omp", *args], env or self.env, cwd=self.project)

    def reviewer_command(self, answer: Path, fill: str | None = None) -> str:
        words = [sys.executable, "-S", str(self.reviewer), str(answer), str(self.calls_log)]
        return shlex.join(words + ([fill] if fill else []))

    def reset_project_state(self) -> None:
        """What a review writes, removed, so the next review does the same work again."""
        for name in (".omp", ".github"):
            shutil.rmtree(self.project / name, ignore_errors=True)
        (self.project / ".gitignore").unlink(missing_ok=True)

    def calls(self) -> list[tuple[int, int]]:
        if not self.calls_log.exists():
            return []
        return [(int(a), int(b)) for a, b in (line.split() for line in self.calls_log.read_text().splitlines())]

    def ledger(self) -> list[dict[str, Any]]:
        path = self.project / ".omp" / "state" / "cost.jsonl"
        return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def make_fixture(root: Path, tokenizer: str = "estimate") -> Fixture:
    home, project, tmp = root / "home", root / "project", root / "tmp"
    for folder in (home, project, tmp):
        folder.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    env = child_env({
        "HOME": str(home), "OMP_HOME": str(home / ".omp"), "COPILOT_HOME": str(home / ".copilot"),
        "TMPDIR": str(tmp),  # the reviewer's scratch folders and the demo's land here, not in /tmp
        "PYTHONPATH": str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""),
    })
    if tokenizer == "estimate":
        env["OMP_TOKENIZER"] = "estimate"
    reviewer = root / "instant_reviewer.py"
    reviewer.write_text(INSTANT_REVIEWER, encoding="utf-8")
    fixture = Fixture(root, project, env, reviewer, root / "calls.log")
    # Settings go where a user puts them (the global config file), so reading them is measured.
    for key, value in (("memory-mode", "on"), ("memory-reviewer", "command")):
        done = fixture.omp("config", "set", key, value, "--global")
        if done.returncode:
            raise SystemExit(f"omp config set {key} failed: {done.stderr.decode()}")
    return fixture


def set_reviewer_command(fixture: Fixture, command: str) -> None:
    done = fixture.omp("config", "set", "memory-reviewer-command", command, "--global")
    if done.returncode:
        raise SystemExit(f"omp config set memory-reviewer-command failed: {done.stderr.decode()}")


def generate_session(fixture: Fixture, mb: float, seed: int, session_id: str, users: int | None = None) -> Path:
    folder = fixture.session_state / session_id
    argv = [sys.executable, str(HERE / "gen_session.py"), str(folder), "--mb", str(mb), "--seed", str(seed),
            "--cwd", str(fixture.project), "--session-id", session_id]
    if users is not None:
        argv += ["--user-messages", str(users)]
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL)
    return folder / "events.jsonl"


def last_user_message(events: Path) -> tuple[str, int]:
    """In a child: the parent stays small (its peak RSS would leak into the children's)."""
    out = subprocess.run([sys.executable, "-c", _LAST_USER_MESSAGE, str(events)], capture_output=True, check=True)
    found = json.loads(out.stdout)
    return found["last"], found["users"]


def quote_of(message: str, limit: int = 120) -> str:
    """A verbatim piece of a user message: its first line, cut at a word boundary."""
    line = message.strip().splitlines()[0]
    if len(line) > limit:
        line = line[:limit].rsplit(" ", 1)[0]
    return line


def write_answer(path: Path, evidence: str, tag: str) -> Path:
    # A directive and a note must share words with their quote (omp checks that), so both use them.
    words = [w for w in re.findall(r"[A-Za-z]{4,}", evidence)][:3] or ["this"]
    answer = {
        "schema": "omp.review.v1",
        "directives": [{"text": f"Keep {' '.join(words)} documented in the changelog", "evidence": evidence}],
        "notes": [{"title": f"The {tag} service streams its session logs",
                   "body": f"Session logs of {tag} are read line by line, never whole: {' '.join(words)}.",
                   "evidence": evidence}],
        "skill_drafts": [],
        "forget": [],
    }
    path.write_text(json.dumps(answer), encoding="utf-8")
    return path


# ---------------------------------------------------------------------------------------------
# review overhead


@dataclass
class SizeResult:
    mb: float
    users: int
    floor: list[Run] = field(default_factory=list)
    command: list[Run] = field(default_factory=list)
    offline: list[Run] = field(default_factory=list)
    reviewer: list[Run] = field(default_factory=list)
    in_review_ms: list[float] = field(default_factory=list)  # the ledger's duration_ms of the call
    prompt_bytes: int = 0
    last_output: dict[str, Any] = field(default_factory=dict)
    profile: dict[str, float] = field(default_factory=dict)


def review_args(fixture: Fixture, session_id: str, *extra: str) -> list[str]:
    return ["memory-review", "--session", session_id, "--root", str(fixture.project), "--json", "--force", *extra]


def checked_review(fixture: Fixture, session_id: str, *extra: str, want_model: bool) -> Run:
    fixture.reset_project_state()
    run = fixture.omp(*review_args(fixture, session_id, *extra))
    if run.returncode:
        raise SystemExit(f"review failed ({run.returncode}): {run.stdout.decode()} {run.stderr.decode()}")
    out = run.json()
    summary = out.get("summary", {})
    # A run that did not do the whole job would be fast and mean nothing.
    model_rejected = [r for r in out.get("rejected", []) if r.get("source") == "model"]
    if not out["ran"] or (want_model and (summary.get("notes", 0) < 1 or summary.get("proposed_by_model", 0) < 2
                                          or model_rejected)):
        raise SystemExit(f"the review did not do its work: {json.dumps(out)[:2000]}")
    return run


def measure_size(fixture: Fixture, mb: float, rounds: int, seed: int, profile: bool) -> SizeResult:
    session_id = f"bench-review-{mb:g}mb-seed{seed}"
    events = generate_session(fixture, mb, seed, session_id)
    message, users = last_user_message(events)
    answer = write_answer(fixture.root / f"answer-{session_id}.json", quote_of(message), "ingest")
    set_reviewer_command(fixture, fixture.reviewer_command(answer))
    result = SizeResult(events.stat().st_size / 2**20, users)
    floor_argv = [sys.executable, "-c", "import sys\nfor line in open(sys.argv[1], 'rb'): pass", str(events)]
    # Warm-up (bytecode, page cache): not counted.
    run_child(floor_argv, fixture.env)
    checked_review(fixture, session_id, want_model=True)
    for _ in range(rounds):
        result.floor.append(run_child(floor_argv, fixture.env))
        before = len(fixture.calls())
        result.command.append(checked_review(fixture, session_id, want_model=True))
        calls = fixture.calls()
        if len(calls) != before + 1:
            raise SystemExit(f"expected one reviewer call, saw {len(calls) - before}")
        result.prompt_bytes = calls[-1][1]
        result.in_review_ms.append(float(fixture.ledger()[-1]["duration_ms"]))
        result.last_output = result.command[-1].json()
        result.offline.append(checked_review(fixture, session_id, "--reviewer", "offline", want_model=False))
        result.reviewer.append(run_child(shlex.split(fixture.reviewer_command(answer)), fixture.env,
                                         stdin=b"x" * result.prompt_bytes))
    if profile:
        result.profile = profile_review(fixture, session_id)
    return result


def profile_review(fixture: Fixture, session_id: str) -> dict[str, float]:
    """One review under cProfile: cumulative seconds of the pipeline's stages (cProfile inflates them)."""
    fixture.reset_project_state()
    stats = fixture.root / "review.pstats"
    run = run_child([sys.executable, "-m", "cProfile", "-o", str(stats), "-m", "omp",
                     *review_args(fixture, session_id)], fixture.env, cwd=fixture.project)
    if run.returncode:
        raise SystemExit(f"profiled review failed: {run.stderr.decode()}")
    out = subprocess.run([sys.executable, "-c", _PROFILE_SUMMARY, str(stats)], capture_output=True, check=True)
    summary: dict[str, float] = json.loads(out.stdout)
    summary["whole process (under cProfile)"] = run.wall_ms / 1000
    return summary


# ---------------------------------------------------------------------------------------------
# omp demo


def measure_demo(fixture: Fixture, rounds: int) -> dict[str, list[float]]:
    cases: dict[str, list[str]] = {"floor": [sys.executable, "-c", "pass"],
                                   "python -m omp demo": [sys.executable, "-m", "omp", "demo"]}
    script = Path(sys.executable).parent / "omp"
    if script.exists():
        cases["omp demo (console script)"] = [str(script), "demo"]
    # The demo makes its own throwaway homes; isolated ones here all the same.
    env = {k: v for k, v in fixture.env.items() if k not in ("OMP_TOKENIZER",)}
    for argv in cases.values():  # warm-up
        run_child(argv, env)
    times: dict[str, list[float]] = {name: [] for name in cases}
    for _ in range(rounds):
        for name, argv in cases.items():
            run = run_child(argv, env)
            if run.returncode or (name != "floor" and b"pending" not in run.stdout.lower()):
                raise SystemExit(f"{name} failed ({run.returncode}): {run.stdout[-500:]!r} {run.stderr[-500:]!r}")
            times[name].append(run.wall_ms)
    return times


# ---------------------------------------------------------------------------------------------
# rendering


def _ms(runs: Sequence[Run]) -> float:
    return median([r.wall_ms for r in runs])


def _rss(runs: Sequence[Run]) -> float:
    return median([r.rss_mb for r in runs])


PROFILE_ORDER = (
    "whole process (under cProfile)",
    "review_session (the stages below, and more)",
    "explicit pass (stream every message)",
    "packet (scan, choose, redact, count)",
    "reviewer call",
    "write under the project lock",
    "secret detection (inside the stages above)",
    "loading detect-secrets (inside secret detection)",
)


def verdicts(results: list[SizeResult]) -> list[str]:
    """SPEC §12's review targets, judged on the largest session, in plain words."""
    small, big = results[0], results[-1]
    work = _ms(big.command) - median(big.in_review_ms)  # everything but the reviewer's own time
    floor = _ms(big.floor)
    per_mb = work / big.mb
    lines = [
        f"SPEC §12 targets, judged on the {big.mb:.0f} MB session:",
        "",
        f"- *scanned in under 1 s*: the review minus its reviewer call took {work:.0f} ms "
        f"(**{'met' if work < 1000 else 'NOT met'}**); minus the floor's {floor:.0f} ms as well, "
        f"{work - floor:.0f} ms ({'met' if work - floor < 1000 else 'not met'} on that reading);",
        f"- *≤ {TARGET_MS_PER_MB:.0f} ms per MB*: {per_mb:.1f} ms per MB "
        f"(**{'met' if per_mb <= TARGET_MS_PER_MB else 'NOT met'}**)",
    ]
    if big.mb > small.mb:
        slope = (work - (_ms(small.command) - median(small.in_review_ms))) / (big.mb - small.mb)
        lines[-1] += (f"; each further MB costs {slope:.1f} ms (the slope from {small.mb:.0f} to {big.mb:.0f} MB, "
                      "fixed costs such as start-up and imports taken out);")
    else:
        lines[-1] += ";"
    rss = [_rss(r.command) for r in results]
    growth = rss[-1] - rss[0]
    lines += [
        f"- *peak RSS under {TARGET_RSS_MB:.0f} MB*: {max(rss):.0f} MB at most (**{'met' if max(rss) < TARGET_RSS_MB else 'NOT met'}**);",
        f"- *flat in the session's size*: {rss[0]:.0f} MB at {small.mb:.0f} MB, {rss[-1]:.0f} MB at {big.mb:.0f} MB, "
        f"{growth:+.0f} MB (**{'met' if growth <= 5 else 'NOT met'}**, counting up to 5 MB of growth as flat).",
    ]
    return lines


def render_review(results: list[SizeResult], rounds: int, tokenizer: str) -> str:
    first = results[0].last_output.get("tokens", {}) if results else {}
    lines = [
        f"`{command_line()}` — {machine()}; {rounds} interleaved rounds per size, "
        f"medians of wall time, each run a fresh process; tokenizer `{first.get('tokenizer') or tokenizer}`.",
        "",
        "| session | floor: line read | review (instant reviewer) | its reviewer call | review − reviewer | "
        "review − reviewer − floor | ms per MB (review − reviewer) | peak RSS review / floor |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in results:
        floor, review, call = _ms(r.floor), _ms(r.command), median(r.in_review_ms)
        lines.append(
            f"| {r.mb:.0f} MB, {r.users:,} user msgs | {floor:.0f} ms | {review:.0f} ms | {call:.0f} ms "
            f"| {review - call:.0f} ms | {review - call - floor:+.0f} ms | {(review - call) / r.mb:.1f} "
            f"| {_rss(r.command):.0f} MB / {_rss(r.floor):.0f} MB |"
        )
    lines += [
        "",
        "| session | review, offline reviewer | offline − floor | ms per MB (offline) | peak RSS offline | "
        "instant reviewer alone (fresh process, same prompt size) |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for r in results:
        floor, offline = _ms(r.floor), _ms(r.offline)
        lines.append(
            f"| {r.mb:.0f} MB | {offline:.0f} ms | {offline - floor:+.0f} ms | {offline / r.mb:.1f} "
            f"| {_rss(r.offline):.0f} MB | {_ms(r.reviewer):.0f} ms ({r.prompt_bytes / 1024:.0f} KB prompt) |"
        )
    if results:
        lines += ["", *verdicts(results)]
        biggest = results[-1]
        tokens = biggest.last_output.get("tokens", {})
        summary = biggest.last_output.get("summary", {})
        lines += [
            "",
            f"Each review did the whole job (checked every run): on the {biggest.mb:.0f} MB session it streamed "
            f"{summary.get('messages', 0):,} messages, sent a {tokens.get('in', 0):,}-token prompt "
            f"({tokens.get('packet_messages', 0)} messages) to the reviewer, and wrote {summary.get('notes', 0)} note and "
            f"{summary.get('directives', 0)} pending directives ({summary.get('explicit', 0)} explicit requests found, "
            f"{summary.get('duplicates', 0)} duplicates dropped).",
        ]
    profiled = [r for r in results if r.profile]
    if profiled:
        labels = list(PROFILE_ORDER)
        lines += ["", "Where the time goes: one more review per size under cProfile (cumulative seconds; "
                  "cProfile slows Python code, so compare shares, not totals):", "",
                  "| stage | " + " | ".join(f"{r.mb:.0f} MB" for r in profiled) + " |",
                  "|---|" + "---:|" * len(profiled)]
        for label in labels:
            lines.append(f"| {label} | " + " | ".join(f"{r.profile.get(label, 0.0):.2f} s" for r in profiled) + " |")
    return "\n".join(lines) + "\n"


def render_demo(times: dict[str, list[float]], rounds: int) -> str:
    floor = median(times["floor"])
    lines = [
        f"`{command_line()}` — {machine()}; {rounds} interleaved rounds, medians of wall time.",
        "",
        "| run | median | minus floor | ratio | SPEC §10: under 2 s |",
        "|---|---:|---:|---:|---|",
        f"| `python -c pass` (floor) | {floor:.0f} ms | — | 1.00 | |",
    ]
    for name, samples in times.items():
        if name == "floor":
            continue
        value = median(samples)
        verdict = "met" if value <= DEMO_BUDGET_S * 1000 else "NOT met"
        lines.append(f"| `{name}` | {value:.0f} ms | {value - floor:+.0f} ms | {value / floor:.1f} | {verdict} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=float, nargs="+", default=[1, 20, 100], help="session sizes in MiB")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--demo-rounds", type=int, default=10, help="0 skips the demo figure")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--tokenizer", choices=["estimate", "auto"], default="estimate")
    parser.add_argument("--no-profile", action="store_true", help="skip the cProfile run per size")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder and say where it is")
    parser.add_argument("--write", action="store_true", help="write the sections of bench/README.md")
    args = parser.parse_args(argv)
    root = Path(tempfile.mkdtemp(prefix="omp-bench-review-"))
    try:
        fixture = make_fixture(root, args.tokenizer)
        results = [measure_size(fixture, mb, args.rounds, args.seed, not args.no_profile) for mb in args.sizes]
        demo = measure_demo(fixture, args.demo_rounds) if args.demo_rounds > 0 else None
    finally:
        if args.keep:
            print(f"kept {root}")
        else:
            shutil.rmtree(root, ignore_errors=True)
    review_section = render_review(results, args.rounds, args.tokenizer)
    print(review_section)
    if demo is not None:
        demo_section = render_demo(demo, args.demo_rounds)
        print(demo_section)
    if args.write:
        write_section("bench_review", review_section)
        if demo is not None:
            write_section("bench_demo", demo_section)
        print(f"wrote {README}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
