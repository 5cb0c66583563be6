"""The headless wrapper (docs/reviewers.md#headless-runs-and-hooks-only): `omp -p PROMPT …` and `omp launch -- …`, run as a user runs
them, against a stand-in Copilot executable that records what it was given."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from copilot_support import fake_copilot, records, run_logs, wait_for
from helpers import run_omp_process

from omp import config
from omp.launch import plan_launch
from omp.paths import ProjectPaths

# These tests start omp's detached reviews (sessionEnd hooks, the wrapper) without waiting for
# their outcome: each one ends them when it ends (conftest.py; anything else left running fails).
pytestmark = pytest.mark.usefixtures("ends_detached_runs")

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture
def copilot(tmp_path: Path) -> tuple[Path, Path]:
    """(stand-in copilot executable, file it records its runs to)."""
    if os.name == "nt":
        pytest.skip("the stand-in copilot is a #!/bin/sh script")
    return fake_copilot(tmp_path), tmp_path / "copilot-runs.jsonl"


def wrapper_env(copilot: tuple[Path, Path], **extra: str) -> dict[str, str]:
    binary, record = copilot
    return {"OMP_COPILOT_BIN": str(binary), "FAKE_COPILOT_RECORD": str(record), **extra}


def session_file(session_id: str) -> Path:
    return Path(os.environ["COPILOT_HOME"]) / "session-state" / session_id / "events.jsonl"


# ---------------------------------------------------------------------------------------------
# arguments, streams, exit code


def test_arguments_reach_copilot_untouched_after_a_new_session_id(project: Path, copilot: tuple[Path, Path]) -> None:
    args = ["-p", "fix the failing test", "--model", "gpt-5-mini", "--allow-all-tools", "--", "-x"]
    result = run_omp_process(args, cwd=project, env=wrapper_env(copilot))
    assert result.returncode == 0, result.stderr
    (run,) = records(copilot[1])
    assert run["argv"][:1] == ["--session-id"]
    uuid.UUID(run["argv"][1], version=4)
    assert run["argv"][2:] == args
    assert run["cwd"] == str(project)


def test_launch_passes_everything_after_the_separator(project: Path, copilot: tuple[Path, Path]) -> None:
    result = run_omp_process(["launch", "--", "--model", "m", "-p", "hi", "--root", "x"], cwd=project, env=wrapper_env(copilot))
    assert result.returncode == 0, result.stderr
    (run,) = records(copilot[1])
    assert run["argv"][2:] == ["--model", "m", "-p", "hi", "--root", "x"]  # omp's own --root is not taken


def test_stdout_stderr_and_stdin_are_copilots_own(project: Path, copilot: tuple[Path, Path]) -> None:
    result = run_omp_process(["launch", "--", "-s"], cwd=project, env=wrapper_env(copilot), input="a long prompt on stdin")
    assert result.returncode == 0
    assert result.stdout == "copilot says: a long prompt on stdin\n"
    assert result.stderr == "copilot stderr line\n"


@pytest.mark.parametrize("code", [0, 1, 7])
def test_exit_code_is_copilots(project: Path, copilot: tuple[Path, Path], code: int) -> None:
    result = run_omp_process(["-p", "hi"], cwd=project, env=wrapper_env(copilot, FAKE_COPILOT_EXIT=str(code)))
    assert result.returncode == code


@pytest.mark.parametrize(
    "args",
    [["--session-id", "1b9d6bcd-bbfd-4b2d-9b5d-ab8dfbbd4bed", "-p", "hi"],
     ["--session-id=1b9d6bcd-bbfd-4b2d-9b5d-ab8dfbbd4bed", "-p", "hi"],
     ["--resume", "-p", "hi"], ["--resume=abc1234", "-p", "hi"], ["-r", "abc1234", "-p", "hi"],
     ["--continue", "-p", "hi"], ["plugin", "list"], ["--version"], ["--help"]],
)
def test_no_second_session_id(project: Path, copilot: tuple[Path, Path], args: list[str]) -> None:
    result = run_omp_process(["launch", "--", *args], cwd=project, env=wrapper_env(copilot))
    assert result.returncode == 0, result.stderr
    (run,) = records(copilot[1])
    assert run["argv"] == args


def test_missing_copilot_is_a_clear_error(project: Path, tmp_path: Path) -> None:
    result = run_omp_process(["-p", "hi"], cwd=project, env={"OMP_COPILOT_BIN": str(tmp_path / "nope"), "PATH": "/nonexistent"})
    assert result.returncode == 1
    assert "Copilot CLI" in result.stderr and "OMP_COPILOT_BIN" in result.stderr
    result = run_omp_process(["-p", "hi"], cwd=project, env={"PATH": str(tmp_path)})
    assert result.returncode == 1
    assert "not found on PATH" in result.stderr


@pytest.mark.skipif(os.name == "nt", reason="POSIX signals")
def test_sigterm_reaches_copilot(project: Path, copilot: tuple[Path, Path]) -> None:
    env = dict(os.environ, **wrapper_env(copilot, FAKE_COPILOT_SLEEP="60"))
    proc = subprocess.Popen([sys.executable, "-m", "omp", "-p", "hi"], cwd=project, env=env,
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        wait_for(lambda: any(r.get("started") for r in records(copilot[1])), 30, "copilot to start")
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert {"signal": signal.SIGTERM} in records(copilot[1])
    assert proc.returncode == 128 + signal.SIGTERM


# ---------------------------------------------------------------------------------------------
# the review afterwards


def enable(project: Path) -> None:
    config.set_value("memory-mode", "on", "project", ProjectPaths(project))


def test_review_of_the_new_session_is_detached(project: Path, copilot: tuple[Path, Path]) -> None:
    enable(project)
    result = run_omp_process(["-p", "remember that we use pnpm"], cwd=project, env=wrapper_env(copilot))
    assert result.returncode == 0, result.stderr
    (run,) = records(copilot[1])
    session_id = run["argv"][1]
    assert session_file(session_id).is_file()
    (log,) = run_logs(project, f"review-{session_id}-")
    assert f"memory-review --session {session_id} --root {project.resolve()}" in log.read_text()


def test_no_review_with_memory_mode_off(project: Path, copilot: tuple[Path, Path]) -> None:
    result = run_omp_process(["-p", "hi"], cwd=project, env=wrapper_env(copilot))
    assert result.returncode == 0
    assert not (project / ".omp").exists()


def test_no_review_for_a_reviewer_session(project: Path, copilot: tuple[Path, Path]) -> None:
    enable(project)
    result = run_omp_process(["-p", "hi"], cwd=project, env=wrapper_env(copilot, OMP_REVIEWER="1"))
    assert result.returncode == 0
    assert run_logs(project) == []


def test_no_review_when_copilot_recorded_nothing(project: Path, copilot: tuple[Path, Path]) -> None:
    enable(project)
    result = run_omp_process(["launch", "--", "plugin", "list"], cwd=project, env=wrapper_env(copilot))
    assert result.returncode == 0
    assert run_logs(project) == []


def test_resumed_session_is_found_and_reviewed(project: Path, copilot: tuple[Path, Path]) -> None:
    enable(project)
    first = run_omp_process(["-p", "first turn"], cwd=project, env=wrapper_env(copilot))
    assert first.returncode == 0
    session_id = records(copilot[1])[0]["argv"][1]
    # another session elsewhere that does not change during the resumed run
    other = run_omp_process(["-p", "other"], cwd=project, env=wrapper_env(copilot))
    assert other.returncode == 0
    before = run_logs(project, f"review-{session_id}-")
    result = run_omp_process(["launch", "--", "--continue", "-p", "second turn"], cwd=project,
                     env=wrapper_env(copilot, FAKE_COPILOT_CONTINUE=session_id))
    assert result.returncode == 0, result.stderr
    assert len(run_logs(project, f"review-{session_id}-")) == len(before) + 1


def test_wrapper_does_not_double_a_hook_started_review(project: Path, copilot: tuple[Path, Path]) -> None:
    enable(project)
    session_id = str(uuid.uuid4())
    runs = project / ".omp" / "state" / "runs"
    runs.mkdir(parents=True)
    # What the plugin's sessionEnd hook leaves while Copilot exits: its own run log.
    hook_line = f"(echo '# started by the hook' > {runs}/review-{session_id}-20260101T000000-1.log)"
    binary = copilot[0].parent / "copilot-with-hook"
    binary.write_text(f"#!/bin/sh\n{hook_line}\nexec '{copilot[0]}' \"$@\"\n")
    binary.chmod(0o755)
    env = wrapper_env(copilot, OMP_COPILOT_BIN=str(binary))
    result = run_omp_process(["launch", "--", "--session-id", session_id, "-p", "hi"], cwd=project, env=env)
    assert result.returncode == 0
    assert len(run_logs(project, f"review-{session_id}-")) == 1
    # A review log from an earlier run of the same session does not count: resuming reviews again.
    result = run_omp_process(["launch", "--", "--session-id", session_id, "-p", "again"], cwd=project,
                     env=wrapper_env(copilot))
    assert result.returncode == 0
    assert len(run_logs(project, f"review-{session_id}-")) == 2


def test_unreadable_config_keeps_copilots_exit_code(project: Path, isolated_home: Path,
                                                   copilot: tuple[Path, Path]) -> None:
    # The global config: an unreadable project config is untrusted, so ignored, never parsed.
    (isolated_home / ".omp").mkdir(exist_ok=True)
    (isolated_home / ".omp" / "config.json").write_text("{not json")
    result = run_omp_process(["-p", "hi"], cwd=project, env=wrapper_env(copilot, FAKE_COPILOT_EXIT="3", OMP_MEMORY_MODE=""))
    assert result.returncode == 3
    assert "review not started" in result.stderr and "config.json" in result.stderr


# ---------------------------------------------------------------------------------------------
# the plan, without running anything


def test_plan_follows_minus_c(tmp_path: Path) -> None:
    plan = plan_launch(["-C", "sub", "-p", "hi"], cwd=tmp_path, binary="copilot")
    assert plan.work_dir == (tmp_path / "sub").resolve()
    assert plan.argv[0] == "copilot" and plan.argv[3:] == ["-C", "sub", "-p", "hi"]
    assert plan_launch(["-C=other"], cwd=tmp_path, binary="copilot").work_dir == (tmp_path / "other").resolve()


def test_plan_reads_the_resume_value(tmp_path: Path) -> None:
    assert plan_launch(["--resume", "abc1234", "-p", "x"], cwd=tmp_path, binary="c").resume == "abc1234"
    assert plan_launch(["--resume", "-p", "x"], cwd=tmp_path, binary="c").resume == ""
    assert plan_launch(["--continue"], cwd=tmp_path, binary="c").resume == ""
    assert plan_launch(["-p", "x"], cwd=tmp_path, binary="c").resume is None
