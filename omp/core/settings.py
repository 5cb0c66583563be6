"""The config layers and the trust check, as the hook and omp.config / omp.trust all apply them.

Per key, the first layer that sets it wins: the environment (`OMP_<KEY>`), the project's
`R/.omp/config.json` — only when trusted (docs/trust.md#a-repository-never-chooses-what-runs) — then `G/config.json`, then the default.
A project config is trusted when its sha256 is the one (or the previous one) `G/trust.json`
records under the project's real path.

omp.config holds every key with its validation and errors; this module holds the order, the
trust verdict, the two keys a hook reads (`memory-mode`, `memory-inject`) and the block's caps
that the hook's render of the block reads (`BLOCK_CAPS`). `hook_settings` and `block_settings`
resolve them with nothing but this package, and raise `Unsure` for anything only the library can
judge and word (a bad value, a trusted file that does not parse).
"""

from __future__ import annotations

import os

from omp.core import jsonlite, layout
from omp.core.files import read_regular

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations only: importing typing costs the hook start-up time
    from typing import Any, Mapping

# The two settings the hook reads, with their choices and defaults (omp.config.KEYS uses these).
CHOICES = {"memory-mode": ("on", "off"), "memory-inject": ("block", "hook")}
DEFAULTS = {"memory-mode": "off", "memory-inject": "block"}
# The managed block's caps, read by the hook's render of it (omp.config.KEYS uses these): each is
# an integer from 1 to its maximum; (default, maximum).
MAX_CAP = 1000
MAX_CHAR_CAP = 100_000
BLOCK_CAPS = {
    "memory-note-cap": (12, MAX_CAP),
    "memory-note-char-cap": (1200, MAX_CHAR_CAP),
    "memory-directive-cap": (12, MAX_CAP),
    "memory-directive-char-cap": (1200, MAX_CHAR_CAP),
}
MAX_NUMBER_TEXT = 40  # longer text is refused before int() sees it: a 5000-digit number is no setting

IGNORED = "project-config-ignored"  # hook_settings' flag: an untrusted project config was left out
DEFAULTED = "left-to-default"  # hook_settings' list: the keys no layer sets (only the default applies)

# trust_verdict's answers
TRUSTED = "trusted"
NEVER_APPROVED = "never-approved"
CHANGED = "changed"


class Unsure(Exception):
    """Something only the library can judge (and word): a bad value, a file that does not parse."""


def env_var(name: str) -> str:
    """`memory-mode` → `OMP_MEMORY_MODE`."""
    return "OMP_" + name.upper().replace("-", "_")


def env_setting(name: str, env: Mapping[str, str]) -> str | None:
    """The environment's text for `name` as given, or None when it is unset or blank."""
    raw = env.get(env_var(name))
    return raw if raw is not None and raw.strip() else None


def layer_setting(name: str, layers: list[dict[str, Any]]) -> tuple[int, Any] | None:
    """(index, value) of the first layer that sets `name` (a null value does not count)."""
    for index, data in enumerate(layers):
        if data.get(name) is not None:
            return index, data[name]
    return None


ENV = -1  # first_setting's index for the environment


def first_setting(name: str, env: Mapping[str, str], layers: list[dict[str, Any]]) -> tuple[int, Any] | None:
    """The one order of the layers (docs/reference/config.md): (ENV, text) when the environment sets `name`, else
    (index, value) of the first file layer that does, else None (the default applies).
    omp.config.resolve (every key) and hook_settings (the hook's two) both ask this."""
    raw = env_setting(name, env)
    if raw is not None:
        return ENV, raw
    return layer_setting(name, layers)


def normalise_choice(text: str) -> str:
    """How a choice is read: `" Hook "` is `hook`."""
    return text.strip().lower()


def is_reviewer_session(env: Mapping[str, str]) -> bool:
    """A reviewer's own Copilot session (`OMP_REVIEWER` set, or `OMP_MEMORY_MODE=off`): no
    review of it, no context for it."""
    return bool(env.get("OMP_REVIEWER", "").strip()) or env.get("OMP_MEMORY_MODE", "").strip().lower() == "off"


# ---------------------------------------------------------------------------------------------
# trust (docs/trust.md#a-repository-never-chooses-what-runs)


def sha256_hex(raw: bytes) -> str:
    # The builtin module is a third of hashlib's import time (hashlib loads OpenSSL).
    try:
        from _sha256 import sha256  # type: ignore[import-not-found]  # Python <= 3.11
    except ImportError:
        try:
            from _sha2 import sha256  # type: ignore[import-not-found, no-redef]  # Python >= 3.12
        except ImportError:
            from hashlib import sha256  # type: ignore[assignment]
    return str(sha256(raw).hexdigest())


def project_key(root: str | os.PathLike[str]) -> str:
    """The project's key in G/trust.json, its real path: a symlinked checkout and its target
    are the same project."""
    return os.path.realpath(root)


def trust_verdict(projects: Mapping[str, Any], root: str | os.PathLike[str], found: str) -> str:
    """TRUSTED when `found` (a sha256) is what `projects` (G/trust.json's) records for `root`,
    else NEVER_APPROVED or CHANGED (it changed since omp wrote or the user approved it)."""
    entry = projects.get(project_key(root))
    if not isinstance(entry, dict):
        return NEVER_APPROVED
    if found in (entry.get("sha256"), entry.get("previous")):
        return TRUSTED
    return NEVER_APPROVED if entry.get("sha256") is None else CHANGED


DIRECTIVES_DIGEST = "directives_sha256"  # the entry's digest of R/.omp/project-memory.json
TRUST_FIX = "omp trust"  # the command every "ignored" message names


def directives_trusted(projects: Mapping[str, Any], root: str | os.PathLike[str], raw: bytes | None) -> bool:
    """Are these bytes of the project's active directives ones omp wrote (or the user approved)
    on this machine, as `projects` (G/trust.json's) records? An absent file holds nothing."""
    if raw is None:
        return True
    entry = projects.get(project_key(root))
    return isinstance(entry, dict) and entry.get(DIRECTIVES_DIGEST) == sha256_hex(raw)


def directives_trusted_now(root: str | os.PathLike[str], raw: bytes | None) -> bool:
    """`directives_trusted` against G/trust.json as it is now: a trust file that cannot be read
    trusts nothing (an absent file holds nothing, and is trusted)."""
    if raw is None:
        return True
    try:
        projects = trusted_projects()
    except (OSError, ValueError, RecursionError):
        return False
    return directives_trusted(projects, root, raw)


def directives_held_back(root: str) -> int:
    """For the sessionStart nudge: how many directives the project holds that omp will not show
    (the file is not one omp wrote here; a trust file that cannot be read trusts nothing)."""
    try:
        raw = read_regular(os.path.join(root, layout.DIRECTIVES))
    except OSError:
        return 0  # not a regular file: the library says so when it renders
    if raw is None or directives_trusted_now(root, raw):
        return 0
    try:
        data = jsonlite.loads(raw.decode("utf-8"))
    except (ValueError, RecursionError):
        return 0  # unreadable: the library names the file and the line when it renders
    items = data.get("directives") if isinstance(data, dict) else data
    return len(items) if isinstance(items, list) else 0


def trusted_projects() -> dict[str, Any]:
    """`projects` of G/trust.json; raises OSError or ValueError when it cannot be read."""
    raw = read_regular(os.path.join(layout.global_home(), layout.TRUST_FILE))
    data = jsonlite.loads(raw.decode("utf-8")) if raw else {}
    projects = data.get("projects") if isinstance(data, dict) else None
    return projects if isinstance(projects, dict) else {}


def _object(path: str, raw: bytes) -> dict[str, Any]:
    try:
        data = jsonlite.loads(raw.decode("utf-8"))
    except (ValueError, RecursionError):
        raise Unsure(path) from None
    if not isinstance(data, dict):
        raise Unsure(path)
    return data


def project_layer(root: str) -> tuple[dict[str, Any], bool]:
    """The project config when trusted, else {} — and whether an untrusted one was ignored.

    An untrusted file is never parsed: whatever it holds cannot make a reader misbehave. A trust
    file that cannot be read trusts nothing.
    """
    path = os.path.join(root, layout.PROJECT_CONFIG)
    try:
        raw = read_regular(path)
    except OSError:
        return {}, True  # not a regular file (or unreadable): ignored
    if raw is None:
        return {}, False
    try:
        projects = trusted_projects()
    except (OSError, ValueError, RecursionError):
        return {}, True
    if trust_verdict(projects, root, sha256_hex(raw)) != TRUSTED:
        return {}, True
    return _object(path, raw), False


def global_layer() -> dict[str, Any]:
    path = os.path.join(layout.global_home(), layout.GLOBAL_CONFIG)
    try:
        raw = read_regular(path)
    except OSError:
        raise Unsure(path) from None
    return {} if raw is None else _object(path, raw)


def block_settings(root: str | None, env: Mapping[str, str], global_data: dict[str, Any] | None = None) -> dict[str, Any]:
    """The block's caps (`BLOCK_CAPS`) and `memory-inject` for `root` (None: no project, the
    global layers alone), as omp.config.resolve gives them, read with nothing but this package:
    the hook's render of the block (omp.memory.render) needs no more. Raises Unsure for
    anything only the library can judge and word (a value that is not a plain number or choice in
    range, a file that does not parse), whose reader then asks omp.config. `global_data`: the
    global config as `global_layer` read it, when the caller holds it already."""
    layers = [project_layer(root)[0] if root is not None else {}, global_layer() if global_data is None else global_data]
    values: dict[str, Any] = {}
    for name, (default, maximum) in BLOCK_CAPS.items():
        found = first_setting(name, env, layers)
        if found is None:
            values[name] = default
            continue
        value = found[1]
        if found[0] == ENV:
            text = value.strip()
            if not (text.isascii() and text.isdigit() and len(text) <= MAX_NUMBER_TEXT):
                raise Unsure(name)
            value = int(text)
        if type(value) is not int or not 1 <= value <= maximum:
            raise Unsure(name)
        values[name] = value
    found = first_setting("memory-inject", env, layers)
    if found is None:
        values["memory-inject"] = DEFAULTS["memory-inject"]
    elif isinstance(found[1], str) and normalise_choice(found[1]) in CHOICES["memory-inject"]:
        values["memory-inject"] = normalise_choice(found[1])
    else:
        raise Unsure("memory-inject")
    return values


def hook_settings(root: str, env: Mapping[str, str]) -> dict[str, Any]:
    """`memory-mode` and `memory-inject` for `root`, `IGNORED`, and `DEFAULTED`. Raises Unsure."""
    values: dict[str, Any] = {DEFAULTED: []}
    project, values[IGNORED] = project_layer(root)
    # The global file is read only when the environment leaves a key to the files.
    needs_files = any(env_setting(name, env) is None for name in CHOICES)
    layers = [project, global_layer()] if needs_files else []
    for name, choices in CHOICES.items():
        found = first_setting(name, env, layers)
        if found is None:
            values[name] = DEFAULTS[name]
            values[DEFAULTED].append(name)
            continue
        raw = found[1]
        if not isinstance(raw, str):
            raise Unsure(name)
        value = normalise_choice(raw)
        if value not in choices:
            raise Unsure(name)
        values[name] = value
    return values
