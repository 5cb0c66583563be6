"""Process groups and trees: a child put in a group of its own, and ending a whole tree.

psutil finds the descendants, they are terminated, then killed after a grace period; psutil
checks a process's start time before it signals it, and a leftover of a killed run is only hit
after its start time and a token in its environment proved it is the one meant, so a reused pid
is never hit. subprocess, signal and psutil load inside the functions that use them (the hook
path imports this module through the detached start).
"""

from __future__ import annotations

import os

from omp.process.identity import START_TIME_TOLERANCE

TYPE_CHECKING = False
if TYPE_CHECKING:
    import subprocess
    from typing import Any

    import psutil

IS_WINDOWS = os.name == "nt"
TERMINATE_GRACE_SECONDS = 3.0

# Windows creation flags (subprocess exposes them only on Windows).
_DETACHED_PROCESS = 0x00000008
_CREATE_NEW_PROCESS_GROUP = 0x00000200
_CREATE_NO_WINDOW = 0x08000000


def own_group_flags(*, detached: bool) -> dict[str, Any]:
    """Popen arguments that put the child in a process group of its own: a new session (POSIX),
    a new windowless process group, without a console when `detached` (Windows)."""
    if IS_WINDOWS:
        flags = _CREATE_NEW_PROCESS_GROUP | _CREATE_NO_WINDOW  # output goes to a log or a pipe
        if detached:
            flags |= _DETACHED_PROCESS
        return {"creationflags": flags}
    return {"start_new_session": True}



def _signal_group(pgid: int, kill: bool) -> None:
    """POSIX: SIGTERM (or SIGKILL) a whole process group. No-op where there are none."""
    if IS_WINDOWS or not hasattr(os, "killpg"):
        return
    import signal  # light at import: see omp/process/__init__.py

    try:
        os.killpg(pgid, signal.SIGKILL if kill else signal.SIGTERM)
    except (ProcessLookupError, PermissionError):
        pass


def kill_group(pgid: int) -> None:
    _signal_group(pgid, kill=True)


def _descendants(pid: int) -> list[psutil.Process]:
    import psutil  # a measured heavy import (~10 ms): only when a tree is ended

    try:
        return psutil.Process(pid).children(recursive=True)
    except (psutil.Error, OSError):
        return []


def _outside_group(procs: list[psutil.Process], pgid: int) -> list[psutil.Process]:
    """Those of `procs` a signal to group `pgid` does not reach (all of them where there are no
    groups to signal)."""
    if IS_WINDOWS or not hasattr(os, "getpgid"):
        return procs
    outside = []
    for proc in procs:
        try:
            if os.getpgid(proc.pid) != pgid:
                outside.append(proc)
        except OSError:
            continue  # gone already
    return outside


def signal_all(procs: list[psutil.Process], kill: bool) -> None:
    import psutil  # heavy (17 ms): only where a tree is looked at or ended

    for proc in procs:
        try:
            proc.kill() if kill else proc.terminate()
        except (psutil.Error, OSError):
            pass  # gone meanwhile, or a pid reused since (psutil checks the start time)


def end_child(proc: subprocess.Popen[bytes], grace: float, own_group: bool) -> None:
    """Terminate our child `proc` and its whole tree, then kill what is left after `grace`.

    The tree is what psutil finds below `proc` while it still runs, and with `own_group` (POSIX)
    its process group too, which also reaches members whose parent already went. Each process
    gets one terminate. `proc` itself is waited for through Popen (psutil would reap it and lose
    its exit code).
    """
    import subprocess  # not at the top: the hook path imports this module (see omp/process/__init__.py)

    tree = _descendants(proc.pid)
    if own_group and not IS_WINDOWS:
        _signal_group(proc.pid, kill=False)  # the leader and every member still in its group
        signal_all(_outside_group(tree, proc.pid), kill=False)
    else:
        signal_all(tree, kill=False)
        try:
            proc.terminate()
        except OSError:
            pass
    try:
        proc.wait(timeout=grace)
    except subprocess.TimeoutExpired:
        pass
    if own_group:
        kill_group(proc.pid)
    signal_all(tree, kill=True)
    if proc.poll() is None:
        try:
            proc.kill()
        except OSError:
            pass
    proc.wait()



def end_run_leftovers(leader_pid: int, leader_started_at: float, *, marker: tuple[str, str]) -> int:
    """Kill what is left of a run whose first process was `leader_pid`, started at
    `leader_started_at`, when nobody is there to end it (its starter was killed). Returns how many died.

    The run led a process group of its own (POSIX: its pid is the group id). A process is killed
    only when it provably belongs to that run: the leader by its start time; a member left behind
    (the leader already gone) by carrying `marker` (NAME, VALUE) in its environment (inherited by
    every child of the run) and by having started after the leader. A pid reused by an unrelated
    process therefore is never hit. POSIX looks only inside the leader's group; Windows, which has
    no such group to ask about, relies on the start time and the marker alone.
    """
    import psutil  # heavy (17 ms): only where a tree is looked at or ended

    if not leader_pid or (not IS_WINDOWS and leader_pid == os.getpgrp()):
        return 0
    name, value = marker
    victims = []
    for proc in psutil.process_iter():
        try:
            if not IS_WINDOWS and os.getpgid(proc.pid) != leader_pid:
                continue
            created = proc.create_time()
            if proc.pid == leader_pid:
                if abs(created - leader_started_at) > START_TIME_TOLERANCE:
                    return 0  # the pid now belongs to a different process: not ours
            elif created + START_TIME_TOLERANCE < leader_started_at or proc.environ().get(name) != value:
                continue
            victims.append(proc)
        except (psutil.Error, OSError):
            continue  # gone meanwhile, or not ours to inspect: never killed blind
    signal_all(victims, kill=True)
    psutil.wait_procs(victims, timeout=2)
    return len(victims)
