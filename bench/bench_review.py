#!/usr/bin/env python3
"""Review overhead: everything but the model, with an instant reviewer (docs/performance.md#where-speed-matters).

For each session size (1, 20 and 100 MiB by default, generated with bench/gen_session.py into
an isolated Copilot home, with a git project as its cwd), this runs, interleaved round by round
and each in a fresh process:

- floors:   `python -c pass` (the same interpreter's start-up, what docs/performance.md#where-speed-matters measures against)
            and `python -c "for line in open(path, 'rb'): pass"` over the same file;
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
where the time goes. Peak RSS is also measured for a session holding one 60 MB message (a
tool's output, and a user's paste), reviewed the same way.

The verdicts are docs/performance.md#where-speed-matters's: the 1 MB review (everything but the model) within 150 ms of
`python -c pass`; each further MB at most 1.5 ms, and the 100 MB review within 300 ms of the
1 MB one (same run); peak RSS under 100 MB and flat in the session's size, including a single
60 MB message.

Also here, because it is the same pipeline end to end: `omp demo` (docs/behaviour.md#omp-demo-and-omp-eval, offline reviewer,
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
# docs/performance.md#where-speed-matters's review targets.
TARGET_1MB_OVER_PASS_MS = 150.0  # the 1 MB review, minus its reviewer call, over `python -c pass`
TARGET_MS_PER_MB = 1.5  # each further MB
TARGET_LARGEST_OVER_1MB_MS = 300.0  # the 100 MB review over the 1 MB one
TARGET_RSS_MB = 100.0
FLAT_RSS_MB = 5.0  # growth from the smallest session that still counts as flat
BIG_MESSAGE_MB = 60
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
last, fact, count = None, None, 0
with open(sys.argv[1], "rb") as handle:
    for line in handle:
        if b'"user.message"' in line[:40]:
            content = json.loads(line)["data"]["content"]
            count += 1
            if not explicit.search(content.splitlines()[0]):
                last = content
            if content.startswith("The ") and ";" in content.splitlines()[0]:
                fact = content.splitlines()[0].split(";")[0]  # "The CI job times out after 9 minutes": a fact told
print(json.dumps({"last": last, "fact": fact or last, "users": count}))
"""

_PROFILE_SUMMARY = r"""
import json, pstats, sys
stats = pstats.Stats(sys.argv[1]).stats
wanted = {("pipeline.py", "scan_session"): "one pass: every message streamed (explicit pass, packet index)",
          ("packet.py", "build_packet"): "packet (choose, redact, count; no second scan)",
          ("reviewers.py", "call_reviewer"): "reviewer call",
          ("pipeline.py", "_apply"): "write under the project lock",
          ("secrets.py", "find_secrets"): "secret detection (inside the stages above)",
          ("secrets.py", "_detect_secrets_scanner"): "loading detect-secrets (inside secret detection)",
          ("pipeline.py", "review_session"): "review_session (the stages below, and more)"}
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


def generate_session(fixture: Fixture, mb: float, seed: int, session_id: str, users: int | None = None,
                     extra: Sequence[str] = ()) -> Path:
    folder = fixture.session_state / session_id
    argv = [sys.executable, str(HERE / "gen_session.py"), str(folder), "--mb", str(mb), "--seed", str(seed),
            "--cwd", str(fixture.project), "--session-id", session_id, *extra]
    if users is not None:
        argv += ["--user-messages", str(users)]
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL)
    return folder / "events.jsonl"


def last_user_message(events: Path) -> tuple[str, str, int]:
    """The last ordinary user message, the last fact a user told (the note's evidence: the note gate
    refuses a note whose evidence is an order) and the count. In a child: the parent stays small
    (its peak RSS would leak into the children's)."""
    out = subprocess.run([sys.executable, "-c", _LAST_USER_MESSAGE, str(events)], capture_output=True, check=True)
    found = json.loads(out.stdout)
    return found["last"], found["fact"], found["users"]


def quote_of(message: str, limit: int = 120) -> str:
    """A verbatim piece of a user message: its first line, cut at a word boundary."""
    line = message.strip().splitlines()[0]
    if len(line) > limit:
        line = line[:limit].rsplit(" ", 1)[0]
    return line


def write_answer(path: Path, evidence: str, fact: str, tag: str) -> Path:
    # A directive and a note must share words with their quote (omp checks that), so both use them.
    words = [w for w in re.findall(r"[A-Za-z]{4,}", evidence)][:3] or ["this"]
    told = [w for w in re.findall(r"[A-Za-z]{4,}", fact)][:3] or ["this"]
    answer = {
        "schema": "omp.review.v1",
        "directives": [{"text": f"Keep {' '.join(words)} documented in the changelog", "evidence": evidence}],
        "notes": [{"title": f"The {tag} service streams its session logs",
                   # a fact, as the note gate wants one ("never whole" read as a standing rule, and was refused)
                   "body": f"Session logs of {tag} are read line by line, so memory stays flat: {' '.join(told)}.",
                   "evidence": fact}],
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
    label: str = ""  # a session with one huge message says which
    start: list[Run] = field(default_factory=list)  # `python -c pass`
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


def measure_size(fixture: Fixture, mb: float, rounds: int, seed: int, profile: bool,
                 big: str | None = None) -> SizeResult:
    """One session size, `rounds` interleaved rounds. `big` ("tool" or "user"): a 1 MB session
    with one 60 MB message of that origin, for its peak RSS (no offline run, no profile)."""
    session_id = f"bench-review-{mb:g}mb-seed{seed}" + (f"-{big}-{BIG_MESSAGE_MB}mb" if big else "")
    extra = [f"--big-{'tool-output' if big == 'tool' else 'user-message'}-kb", str(BIG_MESSAGE_MB * 1024)] if big else []
    events = generate_session(fixture, mb, seed, session_id, extra=extra)
    message, fact, users = last_user_message(events)
    answer = write_answer(fixture.root / f"answer-{session_id}.json", quote_of(message), quote_of(fact), "ingest")
    set_reviewer_command(fixture, fixture.reviewer_command(answer))
    label = f"one {BIG_MESSAGE_MB} MB {'tool output' if big == 'tool' else 'user message'}" if big else ""
    result = SizeResult(events.stat().st_size / 2**20, users, label)
    floor_argv = [sys.executable, "-c", "import sys\nfor line in open(sys.argv[1], 'rb'): pass", str(events)]
    start_argv = [sys.executable, "-c", "pass"]
    # Warm-up (bytecode, page cache): not counted.
    run_child(floor_argv, fixture.env)
    checked_review(fixture, session_id, want_model=True)
    for _ in range(rounds):
        result.start.append(run_child(start_argv, fixture.env))
        result.floor.append(run_child(floor_argv, fixture.env))
        before = len(fixture.calls())
        result.command.append(checked_review(fixture, session_id, want_model=True))
        calls = fixture.calls()
        if len(calls) != before + 1:
            raise SystemExit(f"expected one reviewer call, saw {len(calls) - before}")
        result.prompt_bytes = calls[-1][1]
        result.in_review_ms.append(float(fixture.ledger()[-1]["duration_ms"]))
        result.last_output = result.command[-1].json()
        if big:
            continue
        result.offline.append(checked_review(fixture, session_id, "--reviewer", "offline", want_model=False))
        result.reviewer.append(run_child(shlex.split(fixture.reviewer_command(answer)), fixture.env,
                                         stdin=b"x" * result.prompt_bytes))
    if profile and not big:
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
    "one pass: every message streamed (explicit pass, packet index)",
    "packet (choose, redact, count; no second scan)",
    "reviewer call",
    "write under the project lock",
    "secret detection (inside the stages above)",
    "loading detect-secrets (inside secret detection)",
)


def _work(r: SizeResult) -> float:
    """The review minus its reviewer call: everything but the model."""
    return _ms(r.command) - median(r.in_review_ms)


def _verdict(ok: bool) -> str:
    return "**MET**" if ok else "**NOT met**"


def verdicts(results: list[SizeResult], big: list[SizeResult]) -> list[str]:
    """docs/performance.md#where-speed-matters's review targets, in plain words, each MET or NOT met."""
    small, large = results[0], results[-1]
    over_pass = _work(small) - _ms(small.start)
    lines = [
        "Performance targets (review = everything but the model: the review's wall time minus its reviewer call):",
        "",
        f"- *the {small.mb:.0f} MB review within {TARGET_1MB_OVER_PASS_MS:.0f} ms of `python -c pass`*: "
        f"{_work(small):.0f} ms − {_ms(small.start):.0f} ms = {over_pass:+.0f} ms ({_verdict(over_pass <= TARGET_1MB_OVER_PASS_MS)});",
    ]
    if large.mb > small.mb:
        growth = _work(large) - _work(small)
        slope = growth / (large.mb - small.mb)
        lines += [
            f"- *each further MB ≤ {TARGET_MS_PER_MB} ms*: ({_work(large):.0f} − {_work(small):.0f}) ms over "
            f"{large.mb - small.mb:.0f} MB = {slope:.2f} ms per MB ({_verdict(slope <= TARGET_MS_PER_MB)}); the plain read "
            f"alone costs {(_ms(large.floor) - _ms(small.floor)) / (large.mb - small.mb):.2f} ms per MB;",
            f"- *the {large.mb:.0f} MB review within {TARGET_LARGEST_OVER_1MB_MS:.0f} ms of the {small.mb:.0f} MB one*: "
            f"{growth:+.0f} ms ({_verdict(growth <= TARGET_LARGEST_OVER_1MB_MS)});",
        ]
    everything = results + big
    rss = {f"{r.mb:.0f} MB" + (f" ({r.label})" if r.label else ""): _rss(r.command) for r in everything}
    peak = max(rss.values())
    growth_rss = peak - _rss(small.command)
    lines += [
        f"- *peak RSS under {TARGET_RSS_MB:.0f} MB*: at most {peak:.0f} MB ({_verdict(peak < TARGET_RSS_MB)}): "
        + ", ".join(f"{name} {value:.0f} MB" for name, value in rss.items()) + ";",
        f"- *flat in the session's size, including a single {BIG_MESSAGE_MB} MB message*: {growth_rss:+.0f} MB over the "
        f"{small.mb:.0f} MB session ({_verdict(growth_rss <= FLAT_RSS_MB)}, counting up to {FLAT_RSS_MB:.0f} MB of growth as flat);",
        "- *no network attempt on the review path*: the token counter here is the estimate (`OMP_TOKENIZER=estimate`); "
        "a tokenizer that failed to load is remembered for a day (`omp/tokens.py`, tests/test_tokens.py), not retried per review.",
    ]
    return lines


def render_review(results: list[SizeResult], big: list[SizeResult], rounds: int, tokenizer: str) -> str:
    first = results[0].last_output.get("tokens", {}) if results else {}
    lines = [
        f"`{command_line()}` — {machine()}; {rounds} interleaved rounds per size (few: the machine is shared), "
        f"medians of wall time, each run a fresh process; tokenizer `{first.get('tokenizer') or tokenizer}`.",
        "",
        "| session | `python -c pass` | plain read of the file | review (instant reviewer) | its reviewer call | "
        "review − reviewer | minus `python -c pass` | peak RSS review / plain read |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in results + big:
        start, floor, review, call = _ms(r.start), _ms(r.floor), _ms(r.command), median(r.in_review_ms)
        name = f"{r.mb:.0f} MB, {r.users:,} user msgs" + (f", {r.label}" if r.label else "")
        lines.append(
            f"| {name} | {start:.0f} ms | {floor:.0f} ms | {review:.0f} ms | {call:.0f} ms "
            f"| {review - call:.0f} ms | {review - call - start:+.0f} ms | {_rss(r.command):.0f} MB / {_rss(r.floor):.0f} MB |"
        )
    lines += [
        "",
        "| session | review, offline reviewer | minus `python -c pass` | peak RSS offline | "
        "instant reviewer alone (fresh process, same prompt size) |",
        "|---|---:|---:|---:|---:|",
    ]
    for r in results:
        offline = _ms(r.offline)
        lines.append(
            f"| {r.mb:.0f} MB | {offline:.0f} ms | {offline - _ms(r.start):+.0f} ms "
            f"| {_rss(r.offline):.0f} MB | {_ms(r.reviewer):.0f} ms ({r.prompt_bytes / 1024:.0f} KB prompt) |"
        )
    if results:
        lines += ["", *verdicts(results, big)]
        biggest = results[-1]
        tokens = biggest.last_output.get("tokens", {})
        summary = biggest.last_output.get("summary", {})
        lines += [
            "",
            f"Each review did the whole job (checked every run): on the {biggest.mb:.0f} MB session it streamed "
            f"{summary.get('messages', 0):,} messages once, sent a {tokens.get('in', 0):,}-token prompt "
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
        "| run | median | minus floor | ratio | under 2 s |",
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
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--demo-rounds", type=int, default=10, help="0 skips the demo figure")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--tokenizer", choices=["estimate", "auto"], default="estimate")
    parser.add_argument("--no-profile", action="store_true", help="skip the cProfile run per size")
    parser.add_argument("--no-big-message", action="store_true",
                        help=f"skip the sessions with one {BIG_MESSAGE_MB} MB message (tool output, user paste)")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder and say where it is")
    parser.add_argument("--write", action="store_true", help="write the sections of bench/README.md")
    args = parser.parse_args(argv)
    root = Path(tempfile.mkdtemp(prefix="omp-bench-review-"))
    try:
        fixture = make_fixture(root, args.tokenizer)
        results = [measure_size(fixture, mb, args.rounds, args.seed, not args.no_profile) for mb in args.sizes]
        big = [] if args.no_big_message else [measure_size(fixture, 1, args.rounds, args.seed, False, big=origin)
                                              for origin in ("tool", "user")]
        demo = measure_demo(fixture, args.demo_rounds) if args.demo_rounds > 0 else None
    finally:
        if args.keep:
            print(f"kept {root}")
        else:
            shutil.rmtree(root, ignore_errors=True)
    review_section = render_review(results, big, args.rounds, args.tokenizer)
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
