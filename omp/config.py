"""Configuration keys and their layered resolution (docs/reference/config.md).

Per key, the first layer that has it wins: environment (`OMP_<KEY>`, e.g. `OMP_MEMORY_MODE`)
› project `R/.omp/config.json` › global `G/config.json` › defaults.

Files hold JSON of each value's type; keys omp does not know are kept as they are. A file that
does not parse stops the command (exit 1, file and line named) and is never rewritten.

The project layer counts only when it is trusted (omp.trust, docs/trust.md#a-repository-never-chooses-what-runs): omp wrote its exact
bytes or the user approved them with `omp trust`. An untrusted one is ignored as a whole, and
`set`/`unset` refuse to build on it (that would turn bytes nobody reviewed into trusted ones).

Every integer has an upper bound no person would exceed (docs/reference/config.md): a value such as 1e300 seconds
or 10**30 days would otherwise be accepted here and crash every later command with an
OverflowError deep inside datetime or time arithmetic.

The order of the layers, the environment variable's name and the two settings the hooks read
(`memory-mode`, `memory-inject`: their choices and defaults) are omp.core.settings'; the hooks
resolve those with that module and come here only for a value it cannot judge.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Callable, Literal, NamedTuple


from omp.core import settings as core_settings
from omp.core.files import read_regular
from omp.errors import OmpError, UsageError
from omp.fsio import CorruptFileError, atomic_write, atomic_write_json, dump_json
from omp.lazyre import lazy
from omp.paths import GlobalPaths, ProjectPaths
from omp.project import global_lock, project_lock
from omp.review import backends
from omp.trust import FIX, ProjectLayer, Review, parse_layer, read_project_layer, record, visible

Origin = Literal["env", "project", "global", "default"]
Scope = Literal["project", "global"]

_MODEL_RE = lazy(r"^[A-Za-z0-9][A-Za-z0-9._:/@+-]{0,127}$")


class Key(NamedTuple):
    name: str
    default: Any
    accepts: str  # shown in help and in every error about this key
    parse: Callable[[str], Any]  # text from the command line or the environment
    check: Callable[[Any], bool]  # a typed value (from a file, or after parse)

    @property
    def env_var(self) -> str:
        return core_settings.env_var(self.name)


def _choice(*choices: str) -> tuple[Callable[[str], Any], Callable[[Any], bool]]:
    return core_settings.normalise_choice, (lambda value: value in choices)


# Upper bounds (docs/reference/config.md). Character caps are not item caps: their default (1200) is already
# above 1000, so they get a bound of their own.
MAX_DAYS = 36500
MAX_SECONDS = 86400
MAX_TOKENS = 2_000_000
MAX_CAP = core_settings.MAX_CAP
MAX_CHAR_CAP = core_settings.MAX_CHAR_CAP
MAX_MESSAGES = 1000


def _integer(minimum: int, maximum: int) -> tuple[Callable[[str], Any], Callable[[Any], bool]]:
    def parse(raw: str) -> int:
        text = raw.strip()
        if len(text) > core_settings.MAX_NUMBER_TEXT:
            raise ValueError("too long")
        return int(text, 10)

    def check(value: Any) -> bool:
        return isinstance(value, int) and not isinstance(value, bool) and minimum <= value <= maximum

    return parse, check


def _seconds(minimum: float, maximum: float) -> tuple[Callable[[str], Any], Callable[[Any], bool]]:
    def parse(raw: str) -> int | float:
        text = raw.strip()
        if len(text) > core_settings.MAX_NUMBER_TEXT:
            raise ValueError("too long")
        number = float(text)
        return int(number) if number.is_integer() else number

    def check(value: Any) -> bool:
        return (
            isinstance(value, (int, float))
            and not isinstance(value, bool)
            and value == value  # not NaN
            and minimum <= value <= maximum
        )

    return parse, check


def _model() -> tuple[Callable[[str], Any], Callable[[Any], bool]]:
    return (lambda raw: raw.strip()), (lambda value: isinstance(value, str) and bool(_MODEL_RE.match(value)))


def _command() -> tuple[Callable[[str], Any], Callable[[Any], bool]]:
    def check(value: Any) -> bool:
        if not isinstance(value, str) or not value.strip():
            return False
        import shlex  # here, not at the top: the sessionStart hook's cold render imports omp.config

        try:
            argv = shlex.split(value)
        except ValueError:
            return False
        return bool(argv) and is_program_name_allowed(argv[0])

    return (lambda raw: raw.strip()), check


def _url() -> tuple[Callable[[str], Any], Callable[[Any], bool]]:
    return (lambda raw: raw.strip()), (lambda value: isinstance(value, str) and backends.url_problem(value) is None)


def is_program_name_allowed(program: str) -> bool:
    """A reviewer program is a name looked up on PATH or an absolute path (docs/trust.md#a-repository-never-chooses-what-runs): a
    relative path such as `./review.sh` would mean "whatever file sits there", and is refused."""
    if os.path.isabs(program):
        return True
    return "/" not in program and (os.sep not in program) and (os.altsep is None or os.altsep not in program)


def _key(name: str, default: Any, accepts: str, rule: tuple[Callable[[str], Any], Callable[[Any], bool]]) -> Key:
    return Key(name, default, accepts, rule[0], rule[1])


# The table's order is the order `omp config get` prints.
KEYS: dict[str, Key] = {
    key.name: key
    for key in (
        _key("memory-mode", core_settings.DEFAULTS["memory-mode"], "on | off",
             _choice(*core_settings.CHOICES["memory-mode"])),
        _key("memory-review-model", "gpt-5-mini", "a model name, e.g. gpt-5-mini", _model()),
        _key("memory-reviewer", backends.DEFAULT, " | ".join(backends.NAMES), _choice(*backends.NAMES)),
        _key("memory-reviewer-command", None,
             "a command line whose program is on PATH or an absolute path (run without a shell, prompt on stdin)",
             _command()),
        _key("memory-reviewer-url", None,
             "the base URL of an OpenAI-compatible server, e.g. http://127.0.0.1:11434/v1 "
             "(plain http only to 127.0.0.1, ::1 or localhost; https elsewhere)", _url()),
        _key("memory-review-min-messages", 4, f"an integer from 0 to {MAX_MESSAGES}", _integer(0, MAX_MESSAGES)),
        # The default depends on the backend (docs/reference/config.md): see `resolve`. 120 is copilot's.
        _key("memory-review-timeout", 120, f"seconds, a number from 1 to {MAX_SECONDS} (default: 120 for copilot, "
             "900 for openai and command)", _seconds(1, MAX_SECONDS)),
        _key("memory-review-max-input-tokens", 24000, f"an integer from 1000 to {MAX_TOKENS}",
             _integer(1000, MAX_TOKENS)),
        *(_key(name, default, f"an integer from 1 to {maximum}", _integer(1, maximum))
          for name, (default, maximum) in core_settings.BLOCK_CAPS.items()),
        _key("memory-note-auto-keep", 0, f"an integer from 0 to {MAX_CAP} (0 = never prune)", _integer(0, MAX_CAP)),
        _key("memory-pending-retention-days", 30, f"an integer from 0 to {MAX_DAYS} (0 = never expire)",
             _integer(0, MAX_DAYS)),
        _key("memory-inject", core_settings.DEFAULTS["memory-inject"], "block | hook",
             _choice(*core_settings.CHOICES["memory-inject"])),
    )
}

# Keys whose change alters what the managed block shows.
BLOCK_KEYS = frozenset({*core_settings.BLOCK_CAPS, "memory-inject"})


class Setting(NamedTuple):
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


def _shown(value: Any) -> str:
    """A value for an error message; a 5000-digit number is not worth echoing in full."""
    text = repr(value)
    return text if len(text) <= 80 else text[:60] + f"… ({len(text)} characters)"


def parse_value(key: Key, raw: str, where: str | None = None) -> Any:
    """Turn command-line or environment text into the key's typed value, or refuse (exit 2)."""
    try:
        value = key.parse(raw)
    except (ValueError, OverflowError):
        value = None
    if value is None or not key.check(value):
        origin = f" (from {where})" if where else ""
        raise UsageError(
            f"invalid value {_shown(raw)} for {key.name}{origin}: expected {key.accepts}",
            f"run: omp config set {key.name} <{key.accepts}>" if not where else f"fix or unset {where}",
        )
    return value


def stored_value(key: Key, value: Any, path: Path, origin: Origin) -> Any:
    """A value read from a config file; a hand-written string form ("12") is accepted too."""
    if key.check(value):
        return value
    if isinstance(value, str):
        try:
            parsed = key.parse(value)
        except (ValueError, OverflowError):
            parsed = None
        if parsed is not None and key.check(parsed):
            return parsed
    raise OmpError(
        f"{path}: invalid value {_shown(value)} for {key.name}: expected {key.accepts}",
        f"fix it in the file, or run: omp config unset {key.name}" + (" --global" if origin == "global" else ""),
    )


_stored_value = stored_value  # the name the rest of the code base used first


def read_layer(path: Path) -> dict[str, Any]:
    """One config file as stored (unknown keys included). Raises CorruptFileError."""
    try:
        raw = read_regular(path)
    except OSError as exc:
        raise CorruptFileError(path, str(exc.strerror or exc)) from exc
    return {} if raw is None else parse_layer(path, raw)


def resolve(project: ProjectPaths | None, global_paths: GlobalPaths | None = None) -> dict[str, Setting]:
    """Every key's effective value and where it came from. An untrusted project config is
    ignored as a whole (omp.trust); `omp.trust.check` says whether that happened."""
    global_paths = global_paths or GlobalPaths.current()
    layers: list[tuple[Origin, Path, dict[str, Any]]] = []
    if project is not None:
        layers.append(("project", project.config, read_project_layer(project, global_paths).data))
    layers.append(("global", global_paths.config, read_layer(global_paths.config)))

    settings: dict[str, Setting] = {}
    for key in KEYS.values():
        settings[key.name] = _resolve_key(key, layers)
    timeout = settings["memory-review-timeout"]
    if timeout.origin == "default":
        # Set in no layer: the backend's own default (CPU inference on a local server is slow).
        backend = settings["memory-reviewer"].value
        settings[timeout.key] = timeout._replace(value=_whole(backends.default_timeout(backend)))
    return settings


def _whole(seconds: float) -> int | float:
    return int(seconds) if float(seconds).is_integer() else seconds


def _resolve_key(key: Key, layers: list[tuple[Origin, Path, dict[str, Any]]]) -> Setting:
    found = core_settings.first_setting(key.name, os.environ, [data for _, _, data in layers])
    if found is None:
        return Setting(key.name, key.default, "default")
    if found[0] == core_settings.ENV:
        value = parse_value(key, found[1], where=f"environment variable {key.env_var}")
        return Setting(key.name, value, "env", key.env_var)
    origin, path, _ = layers[found[0]]
    return Setting(key.name, stored_value(key, found[1], path, origin), origin, str(path))


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


def _update_file(
    scope: Scope,
    project: ProjectPaths | None,
    edit: Callable[[dict[str, Any]], None],
    skip_if: Callable[[dict[str, Any]], bool] | None = None,
) -> None:
    global_paths = GlobalPaths.current()
    path = _scope_file(scope, project, global_paths)
    if scope == "global":
        # Reads and writes G only: no project is looked for, nothing is created where we stand.
        read_layer(path)  # refuse before creating anything if the file is already unreadable
        with global_lock(global_paths):
            data = read_layer(path)  # re-read under the lock: another process may have written
            if skip_if is not None and skip_if(data):
                return
            edit(data)
            atomic_write_json(path, data)
        return
    assert project is not None
    _update_project_file(project, global_paths, edit, skip_if)


def _update_project_file(
    project: ProjectPaths,
    global_paths: GlobalPaths,
    edit: Callable[[dict[str, Any]], None],
    skip_if: Callable[[dict[str, Any]], bool] | None,
) -> None:
    """Edit the project config and trust the bytes written (docs/trust.md#a-repository-never-chooses-what-runs).

    An existing file that is not trusted is refused, not edited: keeping its other keys and
    recording the result as trusted would launder bytes nobody reviewed (a committed
    `memory-reviewer-command`, say) into trusted ones. The user reviews it with `omp trust`
    first, or removes it.
    """
    # No check before the lock: another `config set` may be between its write and its trust
    # record. An untrusted file already has its `.omp`, so the lock creates nothing for it.
    with project_lock(project):
        layer = read_project_layer(project, global_paths)
        _refuse_untrusted(layer, FIX)
        data = layer.data
        if skip_if is not None and skip_if(data):
            return
        edit(data)
        raw = dump_json(data).encode("utf-8")
        # Trust the new bytes (keeping the old ones trusted) before writing them, and drop the
        # old ones after: a reader in between (a hook) and a crash anywhere see trusted bytes,
        # old or new, never a file of omp's own that looks untrusted.
        record(project, raw, "omp config set", global_paths, previous=layer.trust.digest, held=project.lock)
        atomic_write(project.config, raw)
        record(project, raw, "omp config set", global_paths, held=project.lock)


def _refuse_untrusted(layer: ProjectLayer, fix: str) -> None:
    if layer.trust.ignored:
        raise OmpError(
            f"{layer.trust.path} is not trusted, so omp will not change it: {layer.trust.reason}",
            f"review it, then run: {fix} (or delete the file and set your values again)",
        )


_MISSING = object()


# ---------------------------------------------------------------------------------------------
# `omp trust` shows what the file would change before it records the bytes (omp.trust.approve)


def prepare_trust_review(project: ProjectPaths) -> Review:
    """Read the project config for `omp trust`: the file as safe text and the known keys it
    sets (with their values). Refuses a file omp could not use anyway."""
    layer = read_project_layer(project)
    if layer.trust.state == "absent":
        raise OmpError(f"{project.config} does not exist: nothing to trust",
                       "settings you write with omp config set are trusted already")
    if layer.raw is None:
        raise OmpError(f"cannot trust {project.config}: {layer.trust.reason}",
                       "replace it with a regular file (or remove it)")
    data = parse_layer(project.config, layer.raw)
    shown: list[tuple[str, str]] = []
    for name, key in KEYS.items():
        if name in data and data[name] is not None:
            value = stored_value(key, data[name], project.config, "project")
            shown.append((name, visible(str(value), keep="")))  # one line: no faked ones
    return Review(layer.trust, visible(layer.raw.decode("utf-8")), shown, layer.raw)


__all__ = [
    "BLOCK_KEYS",
    "CorruptFileError",
    "KEYS",
    "Key",
    "Setting",
    "get_value",
    "lookup_key",
    "parse_value",
    "prepare_trust_review",
    "resolve",
    "set_value",
    "stored_value",
    "unset_value",
]
