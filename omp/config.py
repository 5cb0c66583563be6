"""Configuration keys and their layered resolution (SPEC §3).

Per key, the first layer that has it wins: environment (`OMP_<KEY>`, e.g. `OMP_MEMORY_MODE`)
› project `R/.omp/config.json` › global `G/config.json` › defaults.

Files hold JSON of each value's type; keys omp does not know are kept as they are. A file that
does not parse stops the command (exit 1, file and line named) and is never rewritten.

Standard library only on the read path: the hooks resolve `memory-mode` with it.
"""

from __future__ import annotations

import os
import re
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Literal

from omp.errors import OmpError, UsageError
from omp.fsio import CorruptFileError, read_json_object
from omp.paths import GlobalPaths, ProjectPaths

Origin = Literal["env", "project", "global", "default"]
Scope = Literal["project", "global"]

_MODEL_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._:/@+-]{0,127}$")


@dataclass(frozen=True)
class Key:
    name: str
    default: Any
    accepts: str  # shown in help and in every error about this key
    parse: Callable[[str], Any]  # text from the command line or the environment
    check: Callable[[Any], bool]  # a typed value (from a file, or after parse)

    @property
    def env_var(self) -> str:
        return "OMP_" + self.name.upper().replace("-", "_")


def _choice(*choices: str) -> tuple[Callable[[str], Any], Callable[[Any], bool]]:
    return (lambda raw: raw.strip().lower()), (lambda value: value in choices)


def _integer(minimum: int) -> tuple[Callable[[str], Any], Callable[[Any], bool]]:
    def check(value: Any) -> bool:
        return isinstance(value, int) and not isinstance(value, bool) and value >= minimum

    return (lambda raw: int(raw.strip(), 10)), check


def _seconds(minimum: float) -> tuple[Callable[[str], Any], Callable[[Any], bool]]:
    def parse(raw: str) -> int | float:
        number = float(raw.strip())
        return int(number) if number.is_integer() else number

    def check(value: Any) -> bool:
        return (
            isinstance(value, (int, float))
            and not isinstance(value, bool)
            and value == value  # not NaN
            and minimum <= value < float("inf")
        )

    return parse, check


def _model() -> tuple[Callable[[str], Any], Callable[[Any], bool]]:
    return (lambda raw: raw.strip()), (lambda value: isinstance(value, str) and bool(_MODEL_RE.match(value)))


def _command() -> tuple[Callable[[str], Any], Callable[[Any], bool]]:
    def check(value: Any) -> bool:
        if not isinstance(value, str) or not value.strip():
            return False
        try:
            return bool(shlex.split(value))
        except ValueError:
            return False

    return (lambda raw: raw.strip()), check


def _key(name: str, default: Any, accepts: str, rule: tuple[Callable[[str], Any], Callable[[Any], bool]]) -> Key:
    return Key(name, default, accepts, rule[0], rule[1])


# The table's order is the order `omp config get` prints.
KEYS: dict[str, Key] = {
    key.name: key
    for key in (
        _key("memory-mode", "off", "on | off", _choice("on", "off")),
        _key("memory-review-model", "gpt-5-mini", "a model name, e.g. gpt-5-mini", _model()),
        _key("memory-reviewer", "copilot", "copilot | command | offline", _choice("copilot", "command", "offline")),
        _key("memory-reviewer-command", None, "a command line (run without a shell, prompt on stdin)", _command()),
        _key("memory-review-min-messages", 4, "an integer >= 0", _integer(0)),
        _key("memory-review-timeout", 120, "seconds, a number >= 1", _seconds(1)),
        _key("memory-review-max-input-tokens", 24000, "an integer >= 1000", _integer(1000)),
        _key("memory-note-cap", 12, "an integer >= 1", _integer(1)),
        _key("memory-note-char-cap", 1200, "an integer >= 1", _integer(1)),
        _key("memory-directive-cap", 12, "an integer >= 1", _integer(1)),
        _key("memory-directive-char-cap", 1200, "an integer >= 1", _integer(1)),
        _key("memory-note-auto-keep", 0, "an integer >= 0 (0 = never prune)", _integer(0)),
        _key("memory-pending-retention-days", 30, "an integer >= 0 (0 = never expire)", _integer(0)),
        _key("memory-inject", "block", "block | hook", _choice("block", "hook")),
    )
}

# Keys whose change alters what the managed block shows.
BLOCK_KEYS = frozenset(
    {"memory-note-cap", "memory-note-char-cap", "memory-directive-cap", "memory-directive-char-cap", "memory-inject"}
)


@dataclass(frozen=True)
class Setting:
    key: str
    value: Any
    origin: Origin
    source: str | None = None  # the file or variable that supplied it


def lookup_key(name: str) -> Key:
    try:
        return KEYS[name]
    except KeyError:
        raise UsageError(
            f"unknown config key: {name!r}",
            "known keys: " + ", ".join(KEYS),
        ) from None


def parse_value(key: Key, raw: str, where: str | None = None) -> Any:
    """Turn command-line or environment text into the key's typed value, or refuse (exit 2)."""
    try:
        value = key.parse(raw)
    except ValueError:
        value = None
    if value is None or not key.check(value):
        origin = f" (from {where})" if where else ""
        raise UsageError(
            f"invalid value {raw!r} for {key.name}{origin}: expected {key.accepts}",
            f"run: omp config set {key.name} <{key.accepts}>" if not where else f"fix or unset {where}",
        )
    return value


def _stored_value(key: Key, value: Any, path: Path, origin: Origin) -> Any:
    """A value read from a config file; a hand-written string form ("12") is accepted too."""
    if key.check(value):
        return value
    if isinstance(value, str):
        try:
            parsed = key.parse(value)
        except ValueError:
            parsed = None
        if parsed is not None and key.check(parsed):
            return parsed
    raise OmpError(
        f"{path}: invalid value {value!r} for {key.name}: expected {key.accepts}",
        f"fix it in the file, or run: omp config unset {key.name}" + (" --global" if origin == "global" else ""),
    )


def read_layer(path: Path) -> dict[str, Any]:
    """One config file as stored (unknown keys included). Raises CorruptFileError."""
    return read_json_object(path)


def resolve(project: ProjectPaths | None, global_paths: GlobalPaths | None = None) -> dict[str, Setting]:
    """Every key's effective value and where it came from."""
    global_paths = global_paths or GlobalPaths.current()
    layers: list[tuple[Origin, Path, dict[str, Any]]] = []
    if project is not None:
        layers.append(("project", project.config, read_layer(project.config)))
    layers.append(("global", global_paths.config, read_layer(global_paths.config)))

    settings: dict[str, Setting] = {}
    for key in KEYS.values():
        settings[key.name] = _resolve_key(key, layers)
    return settings


def _resolve_key(key: Key, layers: list[tuple[Origin, Path, dict[str, Any]]]) -> Setting:
    raw_env = os.environ.get(key.env_var)
    if raw_env is not None and raw_env.strip() != "":
        value = parse_value(key, raw_env, where=f"environment variable {key.env_var}")
        return Setting(key.name, value, "env", key.env_var)
    for origin, path, data in layers:
        if key.name in data and data[key.name] is not None:
            return Setting(key.name, _stored_value(key, data[key.name], path, origin), origin, str(path))
    return Setting(key.name, key.default, "default")


def get_value(name: str, project: ProjectPaths | None) -> Any:
    return resolve(project)[lookup_key(name).name].value


def _scope_file(scope: Scope, project: ProjectPaths | None, global_paths: GlobalPaths) -> Path:
    if scope == "global":
        return global_paths.config
    if project is None:
        raise UsageError("no project to configure", "run inside a project, pass --root DIR, or use --global")
    return project.config


def set_value(name: str, raw: str, scope: Scope, project: ProjectPaths | None) -> Any:
    """Validate, then write one key into the project or global file (atomic, locked)."""
    key = lookup_key(name)
    value = parse_value(key, raw)
    _update_file(scope, project, lambda data: data.__setitem__(key.name, value))
    return value


def unset_value(name: str, scope: Scope, project: ProjectPaths | None) -> bool:
    """Remove a key from one file. Returns False when it was not set there (nothing written)."""
    key = lookup_key(name)
    removed: list[bool] = []

    def edit(data: dict[str, Any]) -> None:
        removed.append(data.pop(key.name, _MISSING) is not _MISSING)

    _update_file(scope, project, edit, skip_if=lambda data: key.name not in data)
    return bool(removed and removed[0])


_MISSING = object()


def _update_file(
    scope: Scope,
    project: ProjectPaths | None,
    edit: Callable[[dict[str, Any]], None],
    skip_if: Callable[[dict[str, Any]], bool] | None = None,
) -> None:
    from omp.fsio import atomic_write_json
    from omp.project import global_lock, project_lock

    global_paths = GlobalPaths.current()
    path = _scope_file(scope, project, global_paths)
    # Refuse before creating anything if the file is already unreadable.
    read_layer(path)
    lock = global_lock(global_paths) if scope == "global" else project_lock(project)  # type: ignore[arg-type]
    with lock:
        data = read_layer(path)  # re-read under the lock: another process may have written
        if skip_if is not None and skip_if(data):
            return
        edit(data)
        atomic_write_json(path, data)


__all__ = [
    "BLOCK_KEYS",
    "CorruptFileError",
    "KEYS",
    "Key",
    "Setting",
    "get_value",
    "lookup_key",
    "parse_value",
    "resolve",
    "set_value",
    "unset_value",
]
