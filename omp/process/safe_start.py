"""The safe start of omp's own Python (`omp_argv`, `review_environment`, `neutral_cwd`,
`start_omp`): one place gives every Python process omp starts of itself a neutral working folder,
the project off `sys.path` and a scrubbed environment (omp/process/__init__.py says why).

On the hook path (the sessionEnd hook detaches its review through `start_omp`): light at import.
"""

from __future__ import annotations

import os
import sys

from omp.core.layout import global_home
from omp.process.spawn import Detached, spawn_detached

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Mapping

REVIEWER_ENV_FILE_VAR = "OMP_REVIEWER_ENV_FILE"


def reviewer_env_file() -> str:
    """`$OMP_REVIEWER_ENV_FILE`, else `G/reviewer.env`."""
    explicit = os.environ.get(REVIEWER_ENV_FILE_VAR)
    return os.path.expanduser(explicit) if explicit else os.path.join(global_home(), "reviewer.env")


def read_env_file(path: str | os.PathLike[str]) -> dict[str, str]:
    """`KEY=VALUE` lines (blank lines and `#` comments skipped; `export ` and quotes allowed)."""
    try:
        with open(path, "r", encoding="utf-8") as handle:
            text = handle.read()
    except (OSError, UnicodeDecodeError):
        return {}
    values: dict[str, str] = {}
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#") or "=" not in line:
            continue
        if line.startswith("export "):
            line = line[len("export ") :].lstrip()
        key, _, value = line.partition("=")
        key = key.strip()
        value = value.strip()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
            value = value[1:-1]
        if key and key.replace("_", "a").isalnum() and key.isascii() and not key[0].isdigit():
            values[key] = value
    return values


# Variables that make a Python interpreter run code of their own choosing, or stop for input:
# nothing a background review needs.
_DROPPED_VARS = ("OMP_REVIEWER", "PYTHONSTARTUP", "PYTHONINSPECT", "PYTHONBREAKPOINT")
# `python -c`'s first statement: sys.path[0] is then '' (the working folder); drop it before
# anything else is imported. The same guard as hooks/run's.
_SAFE_START = "import sys; sys.path and sys.path[0] in ('', '.') and sys.path.pop(0); "
# omp's own starts run the `omp` command itself (omp.cli), as `python -m omp` would, from the
# neutral folder with the project off sys.path. claim.py recognises a live review by this text.
OMP_ENTRY = "from omp.cli import run; run()"


def neutral_cwd() -> str:
    """Where omp's own processes run: the filesystem root (it always exists, no project is
    there, and other users cannot put files in it)."""
    return os.path.abspath(os.sep)


def review_environment(base: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment of omp's own detached Python: ours, plus the user's reviewer.env file."""
    env = dict(os.environ if base is None else base)
    env.update(read_env_file(reviewer_env_file()))
    # The review is not itself a reviewer session (its reviewer process sets OMP_REVIEWER).
    for name in _DROPPED_VARS:
        env.pop(name, None)
    env["PWD"] = neutral_cwd()
    return env


def omp_argv(*args: str) -> list[str]:
    """`omp ARGS` with the very interpreter running now (the one that registered the hooks),
    its working folder off `sys.path` (see omp/process/__init__.py): the `omp` command itself,
    which parses ARGS with click like any command line a user types."""
    return [sys.executable, "-c", _SAFE_START + OMP_ENTRY, *args]


def start_omp(args: list[str], log_path: str, *, delay: float = 0.0) -> Detached:
    """Detach `omp ARGS`: the one place omp starts its own Python (neutral folder, project off
    sys.path, scrubbed environment). ARGS must name the project with an absolute `--root`."""
    cwd = neutral_cwd()
    label = f"omp {' '.join(args)} (python {sys.executable}, in {cwd}, project off sys.path)"
    return spawn_detached(omp_argv(*args), log_path, cwd=cwd, env=review_environment(), delay=delay, label=label)
