"""Finding and ending the processes a test left running (STYLE, last section, item 7).

omp detaches its reviews on purpose: they lead their own session and are re-parented to init,
so `Popen` objects and the process tree do not find them. A test's processes are found by
what they carry instead:

- the environment: the autouse fixture in conftest.py gives every test its own token in
  `PYTEST_OMP_TEST` (and the whole run one in `PYTEST_OMP_RUN`); every subprocess inherits it,
  detached or not, unless it was started with a hand-made environment;
- the folder: a process whose working folder, or whose command line, lies in the test's
  `tmp_path` (a detached review runs in `R` with `--root R`);
- the run logs: the `# pid N` lines omp writes under `R/.omp/state/runs/`.

Only processes of this user, started after the test began, and neither this process nor one of
its ancestors (an xdist worker's controller) are considered. psutil does the portable part.
"""

from __future__ import annotations

import os
import re
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Collection

import psutil

RUN_VAR = "PYTEST_OMP_RUN"
TEST_VAR = "PYTEST_OMP_TEST"
GRACE_SECONDS = 1.0  # how long a leftover process may take to end by itself
TERM_SECONDS = 2.0  # SIGTERM, then SIGKILL after this long
_PID_LINE = re.compile(rb"^# pid (\d+)$", re.M)


@dataclass(frozen=True)
class Leftover:
    pid: int
    cmdline: str
    why: str

    def __str__(self) -> str:
        return f"pid {self.pid} ({self.why}): {self.cmdline[:200]}"


def _protected() -> set[int]:
    """This process and its ancestors: never ours to end."""
    me = psutil.Process()
    return {me.pid, *(p.pid for p in me.parents())}


def _same_user(proc: psutil.Process, uid: int | str) -> bool:
    """Is `proc` this user's? (uids on POSIX; Windows has user names instead.)"""
    return (proc.username() if isinstance(uid, str) else proc.uids().real) == uid


def _running(proc: psutil.Process) -> bool:
    try:
        return proc.is_running() and proc.status() != psutil.STATUS_ZOMBIE
    except (psutil.NoSuchProcess, psutil.AccessDenied):
        return False


def _inside(text: str, folder: str) -> bool:
    """`folder` (or something in it) appears in `text`, not merely a longer name starting so."""
    start = text.find(folder)
    while start != -1:
        end = start + len(folder)
        if end == len(text) or text[end] in "/\\ \t'\":=\0":
            return True
        start = text.find(folder, end)
    return False


def run_log_pids(folder: Path) -> set[int]:
    """Pids recorded by omp's per-run logs anywhere under `folder`."""
    pids: set[int] = set()
    for log in folder.glob("**/.omp/state/runs/*.log"):
        try:
            with log.open("rb") as handle:
                head = handle.read(4096)
        except OSError:
            continue
        pids.update(int(m) for m in _PID_LINE.findall(head))
    return pids


def find(*, env_var: str, token: str, folder: Path | None = None, since: float = 0.0,
         extra_pids: Collection[int] = ()) -> list[Leftover]:
    """Running processes that carry `env_var=token`, or live in `folder`, or are `extra_pids`."""
    protected = _protected()
    uid: int | str = os.getuid() if hasattr(os, "getuid") else psutil.Process().username()
    place = os.path.realpath(folder) if folder is not None else None
    found: list[Leftover] = []
    for proc in psutil.process_iter(["create_time"]):  # the cheap filter first: most are older
        created = proc.info["create_time"]
        if proc.pid in protected or created is None or (created < since and proc.pid not in extra_pids):
            continue
        try:
            if not _same_user(proc, uid):
                continue
            cmdline = " ".join(proc.cmdline())
        except (psutil.NoSuchProcess, psutil.AccessDenied, psutil.ZombieProcess):
            continue
        why = ""
        try:
            if proc.environ().get(env_var) == token:
                why = env_var
        except (psutil.NoSuchProcess, psutil.AccessDenied, psutil.ZombieProcess, OSError):
            pass
        if not why and place is not None:
            try:
                cwd = proc.cwd()
            except (psutil.NoSuchProcess, psutil.AccessDenied, psutil.ZombieProcess, OSError):
                cwd = ""
            if cwd and _inside(os.path.realpath(cwd), place):
                why = "working folder in tmp_path"
            elif _inside(cmdline, place) or (folder is not None and _inside(cmdline, str(folder))):
                why = "command line names tmp_path"
        if not why and proc.pid in extra_pids and created >= since:
            why = "run log"
        if why and _running(proc):
            found.append(Leftover(proc.pid, cmdline, why))
    return found


def end(pids: list[int], grace: float = GRACE_SECONDS) -> list[int]:
    """Give `pids` `grace` seconds to end, then end them and their process trees.

    Returns the pids that were still running when the grace period ran out.
    """
    procs: list[psutil.Process] = []
    for pid in pids:
        try:
            procs.append(psutil.Process(pid))
        except psutil.NoSuchProcess:
            pass
    _wait_gone(procs, grace)
    stubborn = [p for p in procs if _running(p)]
    if not stubborn:
        return []
    tree: dict[int, psutil.Process] = {}
    for proc in stubborn:
        tree[proc.pid] = proc
        try:
            tree.update((c.pid, c) for c in proc.children(recursive=True))
        except (psutil.NoSuchProcess, psutil.AccessDenied):
            pass
    for signal_it in (psutil.Process.terminate, psutil.Process.kill):
        for proc in tree.values():
            if _running(proc):
                try:
                    signal_it(proc)
                except (psutil.NoSuchProcess, psutil.AccessDenied):
                    pass
        if not _wait_gone(list(tree.values()), TERM_SECONDS):
            break
    return [p.pid for p in stubborn]


def _wait_gone(procs: list[psutil.Process], timeout: float) -> list[psutil.Process]:
    """Wait until none of `procs` runs (a zombie counts as ended); returns those still running.

    Not psutil.wait_procs: a zombie whose parent never reaps it would make that wait it out.
    """
    deadline = time.monotonic() + timeout
    while True:
        alive = [p for p in procs if _running(p)]
        if not alive or time.monotonic() >= deadline:
            return alive
        time.sleep(0.02)
