"""omp's own Python processes start safely (docs/reviewers.md): a neutral working folder, the project
off `sys.path`, and a scrubbed environment.

A repository with a top-level `click.py`, `json.py`, `psutil.py`, `filelock.py` (and `omp.py`) that leave a
marker when imported: a hook-started review (and a sweep) runs to completion and imports none.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from copilot_support import PLUGIN, finish_detached, run_logs, wait_for
from helpers import run_omp
from review_support import FakeReviewer, conversation, json_reply, log_lines, standard_answer, write_session

from omp import detach, process

HOSTILE = ("click", "json", "psutil", "filelock", "omp")  # what a review imports, and omp itself


def plant_hostile_modules(project: Path, markers: Path) -> None:
    markers.mkdir()
    for name in HOSTILE:
        (project / f"{name}.py").write_text(
            f"open({str(markers / name)!r}, 'w').write('imported')\n"
            f"raise SystemExit('hostile {name}.py was imported')\n"
        )


@pytest.fixture
def hostile(project: Path, tmp_path: Path) -> tuple[Path, FakeReviewer, dict[str, str]]:
    if os.name == "nt":
        pytest.skip("runs sh hooks/run and a POSIX command line for the fake reviewer")
    fake = FakeReviewer(tmp_path / "fake")
    fake.default(json_reply(standard_answer()))
    for key, value in (("memory-mode", "on"), ("memory-reviewer", "command"), ("memory-reviewer-command", fake.command)):
        assert run_omp(["config", "set", key, value], cwd=project).returncode == 0
    markers = tmp_path / "markers"
    plant_hostile_modules(project, markers)  # after: `python -m omp` run from here would import them
    env = {"FAKE_REVIEWER_DIR": str(fake.base), "OMP_TOKENIZER": "estimate", "OMP_PYTHON": sys.executable,
           # A startup file is interactive-only: a background review must not run it.
           "PYTHONSTARTUP": str(project / "click.py")}
    return markers, fake, env


def test_hook_started_review_imports_nothing_from_the_project(project: Path, hostile) -> None:
    markers, fake, env = hostile
    session = write_session(project, conversation())
    proc = subprocess.run(["sh", str(PLUGIN / "hooks" / "run"), "session-end"],
                          input=json.dumps({"sessionId": session, "cwd": str(project)}),
                          capture_output=True, text=True, env=dict(os.environ, **env), cwd=project, timeout=60)
    assert proc.returncode == 0 and proc.stdout.strip() == "{}", proc.stderr
    wait_for(lambda: any(line.get("outcome") == "ran" for line in log_lines(project)), 60,
             "the hook-started review to finish")
    finish_detached(project)
    assert len(fake.calls()) == 1
    assert sorted(p.name for p in markers.iterdir()) == [], "a module from the project was imported"
    # The review ran from the neutral folder, not the project.
    header = run_logs(project, "review-")[0].read_text().splitlines()[0]
    assert f"in {os.path.abspath(os.sep)}," in header


def test_detached_sweep_imports_nothing_from_the_project(project: Path, hostile, monkeypatch: pytest.MonkeyPatch) -> None:
    markers, fake, env = hostile
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    write_session(project, conversation())  # unreviewed: the sweep takes it
    monkeypatch.chdir(project)  # whoever starts it stands in the project
    detach.start_sweep(str(project))
    wait_for(lambda: any(line.get("event") == "sweep" for line in log_lines(project)), 60, "the sweep to finish")
    finish_detached(project)
    assert len(fake.calls()) == 1
    assert sorted(p.name for p in markers.iterdir()) == []


def test_start_command_drops_the_working_folder_from_sys_path(tmp_path: Path) -> None:
    # The very argv omp detaches, run in a folder with a hostile click.py: omp's CLI still loads.
    folder = tmp_path / "here"
    folder.mkdir()
    (folder / "click.py").write_text("raise SystemExit('hostile click imported')\n")
    argv = process.omp_argv("--version")
    proc = subprocess.run(argv, cwd=folder, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("omp")


def test_review_environment_is_scrubbed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OMP_REVIEWER", "1")
    monkeypatch.setenv("PYTHONSTARTUP", "/x/evil.py")
    monkeypatch.setenv("PYTHONINSPECT", "1")
    monkeypatch.setenv("KEEP_ME", "yes")
    env = process.review_environment()
    assert "OMP_REVIEWER" not in env and "PYTHONSTARTUP" not in env and "PYTHONINSPECT" not in env
    assert env["KEEP_ME"] == "yes" and env["PWD"] == process.neutral_cwd()
