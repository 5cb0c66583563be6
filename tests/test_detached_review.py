"""The detached review: what every session end starts is the `omp memory-review` command.

omp.detach starts `python -c "<drop the working folder from sys.path>; from omp.cli import run;
run()" ARGS` (omp.process.omp_argv): the `omp` command itself, parsed by click, so it is the
command in all a user can see of it — the run log's lines, their streams, the exit code, the
files written — and omp.review.claim knows a live one by that command line.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import git_project
from review_support import FakeReviewer, conversation, json_reply, reply, standard_answer, write_session

from omp import detach, process
from omp.review.claim import _is_omp_program


def _pair(tmp_path: Path, answer_reply: dict) -> tuple[dict[str, str], list[tuple[Path, str]]]:
    """Two projects alike, each with one session alike, and the fake reviewer answering both."""
    fake = FakeReviewer(tmp_path / "fake")
    fake.default(answer_reply)
    pairs = []
    for name in ("by-command", "detached"):
        (tmp_path / name).mkdir()
        project = git_project(tmp_path / name)
        pairs.append((project, write_session(project, conversation())))
    return {**os.environ, **fake.env()}, pairs


def _detach_args(project: Path, session: str, sweep: bool) -> list[str]:
    return detach.sweep_args(str(project)) if sweep else detach.review_args(str(project), session)


def _as_the_command(project: Path, session: str, env: dict[str, str], sweep: bool = False) -> subprocess.CompletedProcess[str]:
    """The same command line, typed: `python -m omp ARGS` in the project."""
    return subprocess.run([sys.executable, "-m", "omp", *_detach_args(project, session, sweep)],
                          cwd=project, env=env, capture_output=True, text=True, timeout=60)


def _as_detached(project: Path, session: str, env: dict[str, str], sweep: bool = False) -> subprocess.CompletedProcess[str]:
    """The very argv omp.detach starts, from the neutral folder."""
    return subprocess.run(process.omp_argv(*_detach_args(project, session, sweep)), cwd=process.neutral_cwd(),
                          env=env, capture_output=True, text=True, timeout=60)


def _same(one: str, other: str, a: tuple[Path, str], b: tuple[Path, str]) -> None:
    """The same text but for each project's folder, its session's id and the clock (a retry's
    due time, when memory mode was turned on: the two runs may straddle a second)."""
    def plain(text: str, pair: tuple[Path, str]) -> str:
        text = text.replace(str(pair[0]), "R").replace(pair[1], "S")
        return re.sub(r"\d\d:\d\d(:\d\d)?", "HH:MM", text)

    assert plain(one, a) == plain(other, b)


@pytest.mark.slow
@pytest.mark.parametrize("case", ["reviewed", "reviewer fails", "no such session", "sweep"])
def test_a_detached_review_is_the_command_in_all_a_user_sees(tmp_path: Path, case: str) -> None:
    answer = reply(stderr="model unavailable", exit=1) if case == "reviewer fails" else json_reply(standard_answer())
    env, (first, second) = _pair(tmp_path, answer)
    if case == "no such session":
        first, second = (first[0], "0123456789abcdef-missing"), (second[0], "0123456789abcdef-missing")
    sweep = case == "sweep"
    command = _as_the_command(*first, env, sweep=sweep)
    detached = _as_detached(*second, env, sweep=sweep)
    assert (detached.returncode, command.returncode) == ((1, 1) if case in ("reviewer fails", "no such session")
                                                          else (0, 0)), (command.stderr, detached.stderr)
    _same(command.stdout, detached.stdout, first, second)
    _same(command.stderr, detached.stderr, first, second)
    if case == "sweep":  # the session ended before memory mode was on: counted, not reviewed
        assert "sweep: 0 reviewed, 0 failed" in detached.stdout
    if case == "reviewed":
        assert "note written" in detached.stdout
        notes = [sorted(p.name for p in (project / ".omp" / "memory" / "notes").glob("*.md")) for project, _ in (first, second)]
        assert notes[0] == notes[1] != []
    if case == "no such session":
        assert "omp: error: no session" in detached.stderr


def test_a_detached_start_is_the_click_command(tmp_path: Path) -> None:
    """Any command line omp detaches is read by click: a mistyped option is its usage error
    (exit 2), `--help` its help — no second parser decides first."""
    env, ((project, session), _) = _pair(tmp_path, json_reply(standard_answer()))
    bad = subprocess.run(process.omp_argv("memory-review", "--session", session, "--root", str(project), "--bogus"),
                         cwd=process.neutral_cwd(), env=env, capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and "No such option '--bogus'" in bad.stderr, bad.stderr
    shown = subprocess.run(process.omp_argv("memory-review", "--help"), cwd=process.neutral_cwd(), env=env,
                           capture_output=True, text=True, timeout=60)
    assert shown.returncode == 0 and "Usage: omp memory-review" in shown.stdout, shown.stderr
    # The review itself, as detached: click read its command line (an earlier omp's review skipped it).
    argv = process.omp_argv(*detach.review_args(str(project), session))
    proc = subprocess.run([argv[0], "-X", "importtime", *argv[1:]], cwd=process.neutral_cwd(), env=env,
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and "note written" in proc.stdout, proc.stderr
    imported = {line.rsplit("|", 1)[1].strip() for line in proc.stderr.splitlines() if line.startswith("import time:")}
    assert {"click", "omp.cli"} <= imported


@pytest.mark.parametrize("argv, ours", [
    (process.omp_argv(*detach.review_args("/p", "0a1b2c3d-0000-4000-8000-000000000000")), True),
    (process.omp_argv(*detach.sweep_args("/p")), True),
    # what an earlier omp detached, still running across an upgrade
    ([sys.executable, "-c", "import sys; sys.path.pop(0); from omp.review.__main__ import run; run()",
      "memory-review", "--session", "S", "--root", "/p"], True),
    ([sys.executable, "-m", "omp", "memory-review"], True),
    (["/usr/local/bin/omp", "memory-review"], True),
    ([sys.executable, "-c", "import time; time.sleep(60)"], False),
    ([sys.executable, "-c", "print('omp review')"], False),
    (["/bin/bash"], False),
])
def test_a_claims_owner_is_known_by_the_command_line_omp_detaches(argv: list[str], ours: bool) -> None:
    assert _is_omp_program(argv) is ours


def test_an_earlier_omps_detached_start_still_runs_the_command(tmp_path: Path) -> None:
    proc = subprocess.run([sys.executable, "-c", "from omp.review.__main__ import run; run()", "--version"],
                          cwd=process.neutral_cwd(), capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and proc.stdout.startswith("omp, version"), proc.stderr
