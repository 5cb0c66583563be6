"""Starting, running and ending processes: the one place omp does it (docs/behaviour.md#exactly-once-claims-the-retry-queue-and-sweeps, docs/reviewers.md, docs/trust.md#hooks-create-nothing-outside-a-git-project, docs/reviewers.md#headless-runs-and-hooks-only).

Six things, one set of rules, portable through psutil where POSIX and Windows differ:

- **the safe start of omp's own Python** (`safe_start`: `omp_argv`, `review_environment`,
  `neutral_cwd`, `start_omp`): every Python process omp starts of itself gets the same three guards —
  - a neutral working folder (the filesystem root), never the project: nothing the repository
    holds is found by a relative path;
  - the project off `sys.path`: the child runs `python -c` with a first statement that drops the
    working-folder entry `python -c`/`-m` would put first, so a `click.py`, `psutil.py` or
    `filelock.py` at the project's top level is never imported (`-I` would do it too, but it
    also drops the user's site-packages, where `pip install --user omp` puts omp);
  - the environment the review needs and no more: the user's (as Copilot handed it to the hook)
    plus `G/reviewer.env` (or `$OMP_REVIEWER_ENV_FILE`: `KEY=VALUE` lines giving back what
    Copilot strips from hook environments, `COPILOT_PROVIDER_*`, `COPILOT_OFFLINE`, …), without
    `OMP_REVIEWER` (the review is not a reviewer session) and without the variables that make an
    interpreter run extra code (`PYTHONSTARTUP`, `PYTHONINSPECT`, `PYTHONBREAKPOINT`), with
    `PWD` naming the real working folder;
- **a detached start** (`spawn.spawn_detached`): stdin /dev/null, stdout and stderr a log, no other
  descriptor, its own session (POSIX) or a detached, windowless process group (Windows), so a
  hook's pipes, the terminal's Ctrl-C and Copilot's exit do not reach it;
- **a captured run** (`captured.run_captured`): stdin text fed by a thread, stdout and stderr collected as
  they arrive (stdout up to a size bound), a timeout, an early stop once the output is complete,
  and on timeout, overflow, a failed reader or Ctrl-C the child's whole tree ended;
- **telling a process by its start time** (`identity`: `start_time`, `is_alive`): a pid alone may have been
  reused; the claim protocol records both (psutil's `create_time`);
- **ending a tree** (`tree`: inside `run_captured`, and `end_run_leftovers` for a run whose starter was
  killed): psutil finds the descendants, they are terminated, then killed after a grace period;
  psutil checks a process's start time before it signals it, and a leftover of a killed run is
  only hit after its start time and a token in its environment proved it is the one meant, so a
  reused pid is never hit;
- **a foreground run** (`foreground.run_foreground`): the user's Copilot session on our terminal, with
  SIGTERM/SIGHUP (and a SIGINT the terminal did not already deliver) passed on.

POSIX-only calls (`os.killpg`, `SIGKILL`, sessions, `tcgetpgrp`) appear in this package and nowhere
else in omp (tests/test_process_module.py checks it), each behind a check for the platform.

Light at import (os, sys, time): the sessionEnd hook imports this package to detach its review,
and importing subprocess alone would eat a third of its budget (docs/performance.md#where-speed-matters). subprocess, signal,
threading and psutil load inside the functions that use them. Paths are plain strings for the
same reason.

The package's modules each hold one of those jobs; the names below are what the rest of omp
imports from `omp.process`.
"""

from __future__ import annotations

from omp.process.captured import Finished, OutputReadError, run_captured
from omp.process.foreground import run_foreground
from omp.process.identity import START_TIME_TOLERANCE, command_line, is_alive, start_time
from omp.process.safe_start import (
    OMP_ENTRY,
    REVIEWER_ENV_FILE_VAR,
    neutral_cwd,
    omp_argv,
    read_env_file,
    review_environment,
    reviewer_env_file,
    start_omp,
)
from omp.process.spawn import Detached, spawn_detached
from omp.process.tree import IS_WINDOWS, TERMINATE_GRACE_SECONDS, end_run_leftovers

__all__ = [
    "IS_WINDOWS", "OMP_ENTRY", "REVIEWER_ENV_FILE_VAR", "START_TIME_TOLERANCE", "TERMINATE_GRACE_SECONDS",
    "Detached", "Finished", "OutputReadError", "command_line", "end_run_leftovers", "is_alive", "neutral_cwd",
    "omp_argv", "read_env_file", "review_environment", "reviewer_env_file", "run_captured", "run_foreground",
    "spawn_detached", "start_omp", "start_time",
]
