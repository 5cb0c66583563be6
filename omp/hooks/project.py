"""Which project a hook acts on, and its settings: what both hooks decide first."""

from __future__ import annotations


from omp.core import layout, settings as core_settings
from omp.core.memory_on import is_recorded, note_memory_on
from omp.core.settings import DEFAULTED, IGNORED
from omp.hooks.outcome import HookResult, problem

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations only: importing typing costs start-up time
    from typing import Any, Mapping

UNTRUSTED_NUDGE = "[MEMORY REVIEW] this project's .omp/config.json is ignored (not trusted) — review it, then run omp trust"


def session_id_of(payload: Mapping[str, Any]) -> str | None:
    """camelCase `sessionId` (Copilot configs) or snake_case `session_id` (Claude-style ones)."""
    value = payload.get("sessionId", payload.get("session_id"))
    return value if isinstance(value, str) else None


def cwd_of(payload: Mapping[str, Any], env: Mapping[str, str]) -> str | None:
    cwd = payload.get("cwd")
    if isinstance(cwd, str) and cwd:
        return cwd
    # A plugin hook runs in the plugin's folder, never the project's: only Copilot's own
    # variable can stand in for a missing `cwd`.
    return env.get("COPILOT_PROJECT_DIR") or None


def settings_for(root: str, env: Mapping[str, str]) -> dict[str, Any] | None:
    """`memory-mode` and `memory-inject` (env › trusted project › global › default), `IGNORED`:
    whether an untrusted project config was left out, and `DEFAULTED`: the keys no layer sets;
    None if unreadable."""
    try:
        return core_settings.hook_settings(root, env)
    except core_settings.Unsure:
        pass
    # Let the library judge and word the error (imported here: it is heavy); the hook then
    # stays quiet.
    from pathlib import Path

    from omp.config import resolve
    from omp.errors import OmpError
    from omp.paths import ProjectPaths
    from omp.trust import check

    try:
        paths = ProjectPaths(Path(root))
        resolved = resolve(paths)
        found: dict[str, Any] = {name: setting.value for name, setting in resolved.items()}
        found[DEFAULTED] = [name for name, setting in resolved.items() if setting.origin == "default"]
        verdict = check(paths)
        found[IGNORED] = bool(verdict and verdict.ignored)
        return found
    except OmpError as exc:
        problem(f"config: {exc.message}")
        return None


def untrusted_output(found: Mapping[str, Any]) -> dict[str, Any]:
    return {"additionalContext": UNTRUSTED_NUDGE} if found.get(IGNORED) else {}


def git_project(payload: Mapping[str, Any], env: Mapping[str, str]) -> tuple[str, dict[str, Any]] | HookResult:
    """The git project and its settings, whatever the mode; otherwise why not."""
    root = layout.git_project_root(cwd_of(payload, env))
    if root is None:
        return HookResult({}, "no git project")
    found = settings_for(root, env)
    if found is None:
        return HookResult({}, "memory-mode off")
    return root, found


def memory_project(payload: Mapping[str, Any], env: Mapping[str, str]) -> tuple[str, dict[str, Any]] | HookResult:
    """The git project and its settings when memory-mode is on there; otherwise why not."""
    located = git_project(payload, env)
    if isinstance(located, HookResult):
        return located
    return memory_on_in(*located)


def memory_on_in(root: str, found: dict[str, Any]) -> tuple[str, dict[str, Any]] | HookResult:
    """`root` and its settings when memory-mode is on there (noting since when); else why not."""
    if found["memory-mode"] != "on":
        return HookResult(untrusted_output(found), "memory-mode off")
    if not is_recorded(root):
        note_memory_on(root)
    return root, found
