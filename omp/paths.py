"""Where everything lives (SPEC §2). Every path omp touches derives from this module.

- project root `R`: nearest ancestor of the start folder holding `.git` (else the folder itself,
  but never `$HOME` unless the user passed it explicitly with `--root`);
- project state `R/.omp/`;
- global home `G`: `$OMP_HOME`, else `~/.omp`;
- Copilot home `C`: `$COPILOT_HOME`, else `~/.copilot`.

Standard library only: the hook fast path imports this module.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from omp.errors import OmpError, UsageError

STATE_DIR_NAME = ".omp"
LEGACY_DIR_NAME = ".oh-my-copilot"

_SESSION_ID_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")


def home_dir() -> Path:
    """The user's home, from `$HOME` first so tests can relocate it."""
    env = os.environ.get("HOME")
    return Path(env) if env else Path.home()


def global_home() -> Path:
    env = os.environ.get("OMP_HOME")
    return Path(env).expanduser() if env else home_dir() / ".omp"


def copilot_home() -> Path:
    env = os.environ.get("COPILOT_HOME")
    return Path(env).expanduser() if env else home_dir() / ".copilot"


def session_state_dir() -> Path:
    return copilot_home() / "session-state"


def is_valid_session_id(session_id: str) -> bool:
    return bool(_SESSION_ID_RE.fullmatch(session_id)) and ".." not in session_id


def check_session_id(session_id: str) -> str:
    """Refuse an unsafe id before any path is built from it."""
    if not isinstance(session_id, str) or not is_valid_session_id(session_id):
        raise UsageError(
            f"invalid session id: {session_id!r}",
            "a session id is letters, digits, '.', '_' or '-' (at most 128, no '..'); "
            "or pass --session latest",
        )
    return session_id


def _same_path(a: Path, b: Path) -> bool:
    try:
        return a.resolve() == b.resolve()
    except OSError:
        return False


def find_project_root(start: Path | str | None = None) -> Path:
    """The project root for `start` (or the working directory).

    An explicit `start` (`--root`) may be the home folder; a discovered one may not, because a
    stray `.git` in `$HOME` (a dotfiles repository) or a command run from `~` would otherwise
    turn the whole home into one "project".
    """
    explicit = start is not None
    base = Path(start) if start is not None else Path.cwd()
    try:
        base = base.expanduser().resolve()
    except OSError as exc:
        raise UsageError(f"cannot resolve project folder {base}: {exc}") from exc
    if explicit and not base.is_dir():
        raise UsageError(f"--root {base} is not a folder", "pass an existing project folder")
    home = home_dir()
    for candidate in (base, *base.parents):
        if not (candidate / ".git").exists():
            continue
        if _same_path(candidate, home) and not (explicit and _same_path(base, home)):
            if explicit:
                return base  # the user named this folder: never widen it to the whole home
            raise UsageError(
                f"the nearest .git above {base} is your home folder, not a project",
                "run omp inside a project (a folder with .git) or pass --root DIR",
            )
        return candidate
    if _same_path(base, home) and not explicit:
        raise UsageError(
            f"{base} is your home folder, not a project",
            "run omp inside a project (a folder with .git) or pass --root DIR",
        )
    return base


@dataclass(frozen=True)
class ProjectPaths:
    """All project-scoped paths, derived from the root `R`."""

    root: Path

    @classmethod
    def discover(cls, start: Path | str | None = None) -> "ProjectPaths":
        return cls(find_project_root(start))

    @property
    def state(self) -> Path:
        return self.root / STATE_DIR_NAME

    @property
    def legacy_state(self) -> Path:
        return self.root / LEGACY_DIR_NAME

    @property
    def config(self) -> Path:
        return self.state / "config.json"

    @property
    def lock(self) -> Path:
        return self.state / ".lock"

    @property
    def logs(self) -> Path:
        return self.state / "state"

    @property
    def review_log(self) -> Path:
        return self.logs / "memory-review.log"

    @property
    def cost_ledger(self) -> Path:
        return self.logs / "cost.jsonl"

    @property
    def review_dir(self) -> Path:
        return self.state / "memory-review"

    @property
    def claims(self) -> Path:
        return self.review_dir / "claims"

    @property
    def queue(self) -> Path:
        return self.review_dir / "queue"

    @property
    def journal(self) -> Path:
        return self.review_dir / "journal"

    @property
    def pending_md(self) -> Path:
        return self.review_dir / "pending-directives.md"

    @property
    def pending_json(self) -> Path:
        return self.review_dir / "pending.json"

    @property
    def decisions(self) -> Path:
        return self.review_dir / "decisions.jsonl"

    @property
    def directives(self) -> Path:
        return self.state / "project-memory.json"

    @property
    def notes(self) -> Path:
        return self.state / "memory" / "notes"

    @property
    def drafts(self) -> Path:
        return self.state / "self-evolve" / "drafts"

    @property
    def instructions(self) -> Path:
        return self.root / ".github" / "copilot-instructions.md"

    @property
    def skills(self) -> Path:
        return self.root / ".github" / "skills"

    @property
    def gitignore(self) -> Path:
        return self.root / ".gitignore"


@dataclass(frozen=True)
class GlobalPaths:
    """Paths under the global home `G` and the Copilot home `C`."""

    home: Path
    copilot: Path

    @classmethod
    def current(cls) -> "GlobalPaths":
        return cls(global_home(), copilot_home())

    @property
    def config(self) -> Path:
        return self.home / "config.json"

    @property
    def lock(self) -> Path:
        return self.home / ".lock"

    @property
    def directives(self) -> Path:
        return self.home / "directives.json"

    @property
    def crash_logs(self) -> Path:
        return self.home / "logs"

    @property
    def copilot_instructions(self) -> Path:
        return self.copilot / "copilot-instructions.md"

    @property
    def session_state(self) -> Path:
        return self.copilot / "session-state"


def require_dir(path: Path) -> Path:
    """Create `path` (and parents), turning a permission problem into a readable error."""
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise OmpError(f"cannot create folder {path}: {exc.strerror}", "check its permissions") from exc
    return path
