"""The suite's reaper (tests/reaper.py) finds what a test started, and only that."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import psutil

import reaper
from omp.process import spawn_detached

SLEEP = [sys.executable, "-c", "import time; time.sleep(60)"]


def _running(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def _mine(tmp_path: Path, since: float = 0.0) -> set[int]:
    token = os.environ[reaper.TEST_VAR]
    found = reaper.find(env_var=reaper.TEST_VAR, token=token, folder=tmp_path, since=since,
                        extra_pids=reaper.run_log_pids(tmp_path))
    return {p.pid for p in found}


def test_a_detached_process_is_found_by_its_environment_and_ended_with_its_tree(tmp_path: Path) -> None:
    elsewhere = tmp_path.parent  # not in this test's folder: only the environment gives it away
    script = "import subprocess, sys, time; subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)']); time.sleep(60)"
    started = spawn_detached([sys.executable, "-c", script], tmp_path / "run.log", cwd=elsewhere)
    try:
        assert os.getsid(started.pid) == started.pid  # its own session, as omp's reviews are
        assert started.pid in _mine(tmp_path)
        proc = psutil.Process(started.pid)
        children: list[psutil.Process] = []
        deadline = time.monotonic() + 30
        while not children and time.monotonic() < deadline:
            children = proc.children()
            time.sleep(0.01)
        assert children
        assert reaper.end([started.pid], grace=0.1) == [started.pid]  # it had to be ended
        assert not _running(started.pid) and not any(_running(c.pid) for c in children)
    finally:
        reaper.end([started.pid], grace=0)


def test_a_process_without_the_token_is_found_by_its_folder_or_run_log(tmp_path: Path) -> None:
    bare = {"PATH": os.environ.get("PATH", "/usr/bin:/bin")}  # a hand-made environment: no token
    by_cwd = subprocess.Popen(SLEEP, cwd=tmp_path, env=bare)
    by_argv = subprocess.Popen([*SLEEP, str(tmp_path / "proj")], cwd="/", env=bare)
    by_log = subprocess.Popen(SLEEP, cwd="/", env=bare)
    runs = tmp_path / "proj" / ".omp" / "state" / "runs"
    runs.mkdir(parents=True)
    (runs / "review-x.log").write_text(f"# 2026 omp started: omp memory-review\n# pid {by_log.pid}\n")
    try:
        assert {by_cwd.pid, by_argv.pid, by_log.pid} <= _mine(tmp_path)
    finally:
        reaper.end([by_cwd.pid, by_argv.pid, by_log.pid], grace=0)
    for proc in (by_cwd, by_argv, by_log):
        proc.wait(timeout=10)


def test_other_processes_are_left_alone(tmp_path: Path) -> None:
    """Not this test's: another test's folder whose name starts the same, no token, older."""
    sibling = tmp_path.parent / (tmp_path.name + "1")
    sibling.mkdir()
    bare = {"PATH": os.environ.get("PATH", "/usr/bin:/bin")}
    other = subprocess.Popen([*SLEEP, str(sibling)], cwd=sibling, env=bare)
    try:
        assert other.pid not in _mine(tmp_path)
        assert os.getpid() not in _mine(tmp_path)  # this process carries the token but is protected
    finally:
        other.kill()
        other.wait(timeout=10)
