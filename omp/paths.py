"""Where everything lives (docs/files.md#where-things-live). Every path omp touches derives from this module.

- project root `R`: nearest ancestor of the start folder holding `.git` (else the folder itself,
  but never `$HOME` unless the user passed it explicitly with `--root`);
- project state `R/.omp/`;
- global home `G`: `$OMP_HOME`, else `~/.omp`;
- Copilot home `C`: `$COPILOT_HOME`, else `~/.copilot`.

The names, the homes, root discovery and the session-id rule are omp.core.layout's (the hook
fast path uses that module directly); this one wraps them in Path objects and in errors that
name the fix.
"""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple


from omp.core import layout
from omp.core.layout import is_valid_session_id
from omp.errors import OmpError, UsageError

STATE_DIR_NAME = layout.STATE_DIR
LEGACY_DIR_NAME = layout.LEGACY_DIR


def home_dir() -> Path:
    """The user's home, from `$HOME` first so tests can relocate it."""
    return Path(layout.home_dir())


def global_home() -> Path:
    return Path(layout.global_home())


def copilot_home() -> Path:
    return Path(layout.copilot_home())


def session_state_dir() -> Path:
    return copilot_home() / "session-state"


def check_session_id(session_id: str) -> str:
    """Refuse an unsafe id before any path is built from it."""
    if not isinstance(session_id, str) or not is_valid_session_id(session_id):
        raise UsageError(
            f"invalid session id: {session_id!r}",
            "a session id is letters, digits, '.', '_' or '-' (at most 128, no '..'); "
            "or pass --session latest",
        )
    return session_id


def find_project_root(start: Path | str | None = None) -> Path:
    """The project root for `start` (or the working directory): omp.core.layout.find_root.

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
    root, refusal = layout.find_root(str(base), explicit)
    if refusal == layout.HOME_HAS_GIT:
        raise UsageError(
            f"the nearest .git above {base} is your home folder, not a project",
            "run omp inside a project (a folder with .git) or pass --root DIR",
        )
    if refusal == layout.IS_HOME:
        raise UsageError(
            f"{base} is your home folder, not a project",
            "run omp inside a project (a folder with .git) or pass --root DIR",
        )
    return Path(root)


class ProjectPaths(NamedTuple):
    """All project-scoped paths, derived from the root `R`."""

    root: Path

    @classmethod
    def discover(cls, start: Path | str | None = None) -> "ProjectPaths":
        return cls(find_project_root(start))

    @property
    def state(self) -> Path:
        return self.root / layout.STATE_DIR

    @property
    def legacy_state(self) -> Path:
        return self.root / layout.LEGACY_DIR

    @property
    def config(self) -> Path:
        return self.root / layout.PROJECT_CONFIG

    @property
    def lock(self) -> Path:
        return self.state / ".lock"

    @property
    def logs(self) -> Path:
        return self.root / layout.STATE_FOLDER

    @property
    def review_log(self) -> Path:
        return self.logs / "memory-review.log"

    @property
    def cost_ledger(self) -> Path:
        return self.logs / "cost.jsonl"

    @property
    def review_dir(self) -> Path:
        return self.root / layout.REVIEW_DIR

    @property
    def claims(self) -> Path:
        return self.review_dir / "claims"

    @property
    def queue(self) -> Path:
        return self.root / layout.QUEUE_DIR

    @property
    def journal(self) -> Path:
        return self.review_dir / "journal"

    @property
    def pending_md(self) -> Path:
        return self.root / layout.PENDING_MD

    @property
    def pending_json(self) -> Path:
        return self.review_dir / "pending.json"

    @property
    def decisions(self) -> Path:
        return self.review_dir / "decisions.jsonl"

    @property
    def directives(self) -> Path:
        return self.root / layout.DIRECTIVES

    @property
    def notes(self) -> Path:
        return self.root / layout.NOTES_DIR

    @property
    def drafts(self) -> Path:
        return self.root / layout.DRAFTS_DIR

    @property
    def instructions(self) -> Path:
        return self.root / layout.INSTRUCTIONS

    @property
    def skills(self) -> Path:
        return self.root / ".github" / "skills"

    @property
    def gitignore(self) -> Path:
        return self.root / ".gitignore"


class GlobalPaths(NamedTuple):
    """Paths under the global home `G` and the Copilot home `C`."""

    home: Path
    copilot: Path

    @classmethod
    def current(cls) -> "GlobalPaths":
        return cls(global_home(), copilot_home())

    @property
    def config(self) -> Path:
        return self.home / layout.GLOBAL_CONFIG

    @property
    def lock(self) -> Path:
        return self.home / ".lock"

    @property
    def directives(self) -> Path:
        return self.home / layout.GLOBAL_DIRECTIVES

    @property
    def crash_logs(self) -> Path:
        return self.home / layout.LOGS_DIR

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
