"""Where things live (docs/files.md#where-things-live): the state names, the homes, the project root, the session-id rule.

Names are relative to the project root `R` (or to a home): `os.path.join(root, PENDING_MD)`.
omp.paths builds its ProjectPaths / GlobalPaths from these, and the hooks use them directly.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations only: importing typing costs the hook start-up time
    from typing import Mapping

STATE_DIR = ".omp"
LEGACY_DIR = ".oh-my-copilot"
STATE_SUBDIR = "state"  # R/.omp/state (and G/state): logs, caches, records

PROJECT_CONFIG = os.path.join(STATE_DIR, "config.json")
DIRECTIVES = os.path.join(STATE_DIR, "project-memory.json")
NOTES_DIR = os.path.join(STATE_DIR, "memory", "notes")
DRAFTS_DIR = os.path.join(STATE_DIR, "self-evolve", "drafts")
REVIEW_DIR = os.path.join(STATE_DIR, "memory-review")
PENDING_MD = os.path.join(REVIEW_DIR, "pending-directives.md")
QUEUE_DIR = os.path.join(REVIEW_DIR, "queue")
STATE_FOLDER = os.path.join(STATE_DIR, STATE_SUBDIR)
BLOCK_RECORD_NAME = "managed-block.json"
BLOCK_RECORD = os.path.join(STATE_FOLDER, BLOCK_RECORD_NAME)
CONTEXT_CACHE = os.path.join(STATE_FOLDER, "hook-context.txt")

MEMORY_ON_FILE = os.path.join(STATE_FOLDER, "memory-on-since")
INSTRUCTIONS = os.path.join(".github", "copilot-instructions.md")

# under the global home G
GLOBAL_CONFIG = "config.json"
GLOBAL_DIRECTIVES = "directives.json"
TRUST_FILE = "trust.json"
LOGS_DIR = "logs"

HOME_HAS_GIT = "home-has-git"  # find_root's refusals (discovered, not explicit, roots only)
IS_HOME = "is-home"

_ID_FIRST = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
_ID_REST = _ID_FIRST | frozenset("._-")
MAX_SESSION_ID = 128


def home_dir(env: Mapping[str, str] | None = None) -> str:
    """The user's home, from `$HOME` first so tests can relocate it (in `env`, default ours)."""
    return (os.environ if env is None else env).get("HOME") or os.path.expanduser("~")


def global_home(env: Mapping[str, str] | None = None) -> str:
    """G: `$OMP_HOME`, else `~/.omp`."""
    explicit = (os.environ if env is None else env).get("OMP_HOME")
    return os.path.expanduser(explicit) if explicit else os.path.join(home_dir(env), ".omp")


def copilot_home(env: Mapping[str, str] | None = None) -> str:
    """C: `$COPILOT_HOME`, else `~/.copilot` (as a process with environment `env` sees it)."""
    explicit = (os.environ if env is None else env).get("COPILOT_HOME")
    return os.path.expanduser(explicit) if explicit else os.path.join(home_dir(env), ".copilot")


def is_valid_session_id(value: str) -> bool:
    """Letters, digits, '.', '_' or '-', starting with a letter or digit, at most 128, no '..':
    safe to build a path from."""
    return (
        0 < len(value) <= MAX_SESSION_ID
        and value[0] in _ID_FIRST
        and all(ch in _ID_REST for ch in value)
        and ".." not in value
    )


def same_path(a: str, b: str) -> bool:
    try:
        return os.path.realpath(a) == os.path.realpath(b)
    except OSError:
        return False


def find_root(base: str, explicit: bool) -> tuple[str, str | None]:
    """The project root for the resolved folder `base`, and a refusal (or None).

    The nearest ancestor holding `.git`, else `base` itself. A discovered root is never the
    home folder (`HOME_HAS_GIT`, `IS_HOME`): a stray `.git` in `$HOME` (a dotfiles repository)
    or a command run from `~` would otherwise turn the whole home into one project. An explicit
    one (`--root`) may be the home, and is never widened to it.
    """
    home = home_dir()
    candidate = base
    while True:
        if os.path.exists(os.path.join(candidate, ".git")):
            if same_path(candidate, home) and not (explicit and same_path(base, home)):
                return (base, None) if explicit else (candidate, HOME_HAS_GIT)
            return candidate, None
        parent = os.path.dirname(candidate)
        if parent == candidate:
            break
        candidate = parent
    if same_path(base, home) and not explicit:
        return base, IS_HOME
    return base, None


def project_root(cwd: str | None) -> str | None:
    """The root omp would find if started in `cwd` (not `--root`); None when it would refuse."""
    if not cwd:
        return None
    try:
        base = os.path.realpath(os.path.expanduser(cwd))
    except (OSError, ValueError):
        return None
    if not os.path.isdir(base):
        return None
    root, refusal = find_root(base, explicit=False)
    return None if refusal else root


def git_project_root(cwd: str | None) -> str | None:
    """The git repository around `cwd`; None outside one (docs/trust.md#hooks-create-nothing-outside-a-git-project).

    A hook never creates anything in a folder that is not inside a git repository: Copilot can
    run anywhere (`/`, the home folder, a downloads folder), and a global memory-mode must not
    scatter `.omp/` folders over all of them.
    """
    root = project_root(cwd)
    if root is None or not os.path.exists(os.path.join(root, ".git")):
        return None
    return root


def state_inside_project(root: str) -> bool:
    """Does `R/.omp/state` really lie inside R? (A `.omp` or `state` linked out of the project
    gets nothing from a hook; the library's `fsio.confine` is the same rule for everything else.)"""
    return is_inside(os.path.join(root, STATE_FOLDER), root)


def is_inside(path: str, root: str) -> bool:
    """Does `path`, links resolved, lie strictly inside `root`?"""
    real_root = os.path.realpath(root).rstrip(os.sep) + os.sep
    return os.path.realpath(path).startswith(real_root)
