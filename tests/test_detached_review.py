"""The detached review (`omp.review.__main__`): what every session end starts, without click.

It runs the two command lines omp.detach builds, and must be the `omp memory-review` command in
all a user can see of it — the run log's lines, their streams, the exit code, the files written —
while every other command line goes to the command itself.
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
from omp.review.__main__ import parse

from test_architecture import _loaded_at_exit


def test_it_reads_the_two_command_lines_omp_detach_builds(tmp_path: Path) -> None:
    root = str(tmp_path)
    run = parse(detach.review_args(root, "0a1b2c3d-0000-4000-8000-000000000000"))
    assert run is not None and (run.root, run.session, run.sweep_limit) == (
        root, "0a1b2c3d-0000-4000-8000-000000000000", None)
    run = parse(detach.sweep_args(root))
    assert run is not None and (run.root, run.session, run.sweep_limit) == (root, None, detach.SWEEP_LIMIT)


@pytest.mark.parametrize("args", [
    ["memory-review", "--session", "S", "--root", "{root}", "--force"],  # another option
    ["memory-review", "--session", "--force", "--root", "{root}"],  # click reads "--force" as the id
    ["memory-review", "--session", "-x", "--root", "{root}"],
    ["memory-review", "--session", "", "--root", "{root}"],
    ["memory-review", "--session", "S", "--root", "relative/folder"],
    ["memory-review", "--session", "S", "--root", "{file}"],  # click.Path(file_okay=False) says why
    ["memory-review", "--sweep", "--limit", "0", "--root", "{root}"],  # IntRange(min=1) refuses it
    ["memory-review", "--sweep", "--limit", "+5", "--root", "{root}"],
    ["memory-review", "--sweep", "--limit", "５", "--root", "{root}"],  # fullwidth: isdigit, not click's
    ["memory-review", "--limit", "5", "--sweep", "--root", "{root}"],
    ["memory-review", "--root", "{root}", "--session", "S"],
    ["memory-review", "--session=S", "--root", "{root}", "x"],
    ["review", "--session", "S", "--root", "{root}"],
    ["--version"],
    [],
])
def test_any_other_command_line_is_left_to_the_omp_command(tmp_path: Path, args: list[str]) -> None:
    (tmp_path / "file").write_text("")
    filled = [a.format(root=str(tmp_path), file=str(tmp_path / "file")) for a in args]
    assert parse(filled) is None


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


def test_a_detached_review_loads_no_click(tmp_path: Path) -> None:
    env, ((project, session), _) = _pair(tmp_path, json_reply(standard_answer()))
    proc = subprocess.run([sys.executable, "-c", _loaded_at_exit("omp.review"),
                           *detach.review_args(str(project), session)],
                          cwd=process.neutral_cwd(), env=env, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and "note written" in proc.stdout, proc.stderr
    loaded = {name.split(".")[0] for name in proc.stderr.rsplit("LOADED ", 1)[1].split()}
    assert "omp" in loaded and "click" not in loaded
    # ... and a command line it does not read itself is the command's, click and all.
    proc = subprocess.run([sys.executable, "-c", _loaded_at_exit("omp.review"), "--version"],
                          cwd=process.neutral_cwd(), env=env, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and proc.stdout.startswith("omp, version")
    assert "click" in proc.stderr.rsplit("LOADED ", 1)[1].split()
