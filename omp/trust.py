"""Trust for the project config layer: a repository never chooses what runs (docs/trust.md#a-repository-never-chooses-what-runs).

A cloned repository can carry `R/.omp/config.json`. Its settings count only when its exact
bytes are known to this machine's user: either omp wrote them (`omp config set/unset`), or the
user read them and approved them (`omp trust`). Both record the file's sha256 in
`G/trust.json`, keyed by the project's real path:

    {"version": 1, "projects": {"/real/path": {"sha256": "…", "by": "omp config set", "at": "…"}}}

Anything else — a file committed by someone else, changed by a pull, edited by hand, not a
regular file — is *untrusted* and ignored as a whole: no key of it counts.

The project's active directives (`R/.omp/project-memory.json`) are held to the same rule, since
omp's block tells every session to follow them: omp records the file's digest each time it
writes it (`record_directives`, the entry's `directives_sha256`), and a file it did not write on
this machine — a repository that committed `.omp/` with its own rules — is not shown until the
user reads it and runs `omp trust` (`directives_verdict`).

The file is read once; the bytes that are hashed are the bytes that are parsed, so nothing can
be swapped in between. A `G/trust.json` that does not parse trusts nothing (and is never
rewritten: recording trust then fails with the file named).

The rule itself — which digest, keyed how, trusted when — is omp.core.settings' (the hooks
apply it from there without importing this module); this module adds the reasons in words,
the file-and-line errors, recording and withdrawing trust.
"""

from __future__ import annotations

import contextlib
import os
import time
import unicodedata
from pathlib import Path
from typing import Any, Callable, Literal, NamedTuple


from omp.core import layout, settings as core_settings
from omp.core.files import read_regular
from omp.errors import OmpError
from omp.fsio import (CorruptFileError, atomic_write_json, decode_text, expect_object, parse_json, read_json,
                      read_json_object)
from omp.paths import GlobalPaths, ProjectPaths
from omp.project import global_lock, project_lock

TRUST_FILE = layout.TRUST_FILE
TRUST_VERSION = 1
FIX = core_settings.TRUST_FIX  # the command every "ignored" message names
DIRECTIVES_DIGEST = core_settings.DIRECTIVES_DIGEST

State = Literal["absent", "trusted", "untrusted"]


class LayerTrust(NamedTuple):
    """The verdict on one project's config file."""

    path: Path
    state: State
    digest: str | None = None  # sha256 of the bytes read (None when absent or unreadable)
    reason: str | None = None  # why it is untrusted, in words

    @property
    def ignored(self) -> bool:
        return self.state == "untrusted"

    def notice(self) -> str:
        """One line for every surface that must say the file is ignored (and the fix)."""
        return f"{self.path} is ignored: {self.reason} — review it, then run: {FIX}"


class ProjectLayer(NamedTuple):
    """The project config as omp may use it: its settings ({} unless trusted) and the verdict."""

    data: dict[str, Any]
    trust: LayerTrust
    raw: bytes | None = None  # the bytes read (kept for `omp trust`, which shows them)


def trust_path(global_paths: GlobalPaths | None = None) -> Path:
    return (global_paths or GlobalPaths.current()).home / TRUST_FILE


def project_key(root: Path) -> str:
    """The project's real path: a symlinked checkout and its target are the same project."""
    return core_settings.project_key(root)


def digest(raw: bytes) -> str:
    return core_settings.sha256_hex(raw)


def _trusted_digests(global_paths: GlobalPaths) -> tuple[dict[str, Any], str | None]:
    """`projects` of G/trust.json, and a problem (the file does not parse) if there is one."""
    try:
        data = read_json(trust_path(global_paths), default={})
    except CorruptFileError as exc:
        return {}, exc.message
    projects = data.get("projects") if isinstance(data, dict) else None
    return (projects if isinstance(projects, dict) else {}), None


def _verdict(project: ProjectPaths, raw: bytes, global_paths: GlobalPaths) -> LayerTrust:
    found = digest(raw)
    projects, problem = _trusted_digests(global_paths)
    if problem:
        return LayerTrust(project.config, "untrusted", found, f"not trusted ({problem})")
    verdict = core_settings.trust_verdict(projects, project.root, found)
    if verdict == core_settings.TRUSTED:
        return LayerTrust(project.config, "trusted", found)
    if verdict == core_settings.NEVER_APPROVED:
        reason = "not trusted (omp did not write it on this machine and it was never approved)"
    else:
        reason = "not trusted (it changed since omp wrote or you approved it)"
    return LayerTrust(project.config, "untrusted", found, reason)


def read_project_layer(project: ProjectPaths, global_paths: GlobalPaths | None = None) -> ProjectLayer:
    """The project config's settings when trusted, else {} — and why. Raises CorruptFileError
    only for a *trusted* file that does not parse (an untrusted one is never even parsed)."""
    global_paths = global_paths or GlobalPaths.current()
    try:
        raw = read_regular(project.config)
    except OSError as exc:
        detail = exc.strerror or str(exc)
        if "not a regular file" in str(exc):
            detail = "not a regular file"
        return ProjectLayer({}, LayerTrust(project.config, "untrusted", None, f"not trusted ({detail})"))
    if raw is None:
        return ProjectLayer({}, LayerTrust(project.config, "absent"))
    verdict = _verdict(project, raw, global_paths)
    if verdict.state != "trusted":
        return ProjectLayer({}, verdict, raw)
    return ProjectLayer(parse_layer(project.config, raw), verdict, raw)


def parse_layer(path: Path, raw: bytes) -> dict[str, Any]:
    """Config bytes as an object, with fsio's errors (file and line named)."""
    return expect_object(path, parse_json(path, decode_text(path, raw)))


def check(project: ProjectPaths | None, global_paths: GlobalPaths | None = None) -> LayerTrust | None:
    """The verdict on the project's config (None outside a project)."""
    if project is None:
        return None
    return read_project_layer(project, global_paths).trust


def ignored_notice(project: ProjectPaths | None) -> str | None:
    """The "ignored, run omp trust" line when the project's config is untrusted, else None."""
    try:
        verdict = check(project)
    except OmpError:
        return None
    return verdict.notice() if verdict is not None and verdict.ignored else None


def _global_lock_unless_held(global_paths: GlobalPaths, held: Path | None) -> Any:
    """The global lock — unless the caller holds that very file already (a project at `~`
    with OMP_HOME=~/.omp: its project lock *is* the global lock, and taking it twice deadlocks)."""
    if held is not None and os.path.realpath(held) == os.path.realpath(global_paths.lock):
        return contextlib.nullcontext()
    return global_lock(global_paths)


def record(project: ProjectPaths, raw: bytes, by: str, global_paths: GlobalPaths | None = None,
           previous: str | None = None, held: Path | None = None) -> None:
    """Remember `raw` as this project's trusted config bytes (atomic, under the global lock).

    `previous`: a digest that stays trusted too, for the moment between recording new bytes and
    writing them (omp.config records, writes, then records again without it). `held`: a lock
    file the caller holds (see `_global_lock_unless_held`).
    """
    def change(before: dict[str, Any]) -> dict[str, Any]:
        entry: dict[str, Any] = {"sha256": digest(raw), "by": by, "at": time.strftime("%Y-%m-%dT%H:%M:%S%z")}
        if previous and previous != entry["sha256"]:
            entry["previous"] = previous
        if DIRECTIVES_DIGEST in before:
            entry[DIRECTIVES_DIGEST] = before[DIRECTIVES_DIGEST]  # the directives' trust is their own
        return entry

    _update_entry(project, change, global_paths or GlobalPaths.current(), held)


def _update_entry(project: ProjectPaths, change: Callable[[dict[str, Any]], dict[str, Any]],
                  global_paths: GlobalPaths, held: Path | None) -> None:
    """Replace this project's entry of G/trust.json by `change(entry)` (atomic, under the
    global lock); a G/trust.json that does not parse is reported, never reset."""
    path = trust_path(global_paths)
    with _global_lock_unless_held(global_paths, held):
        data = read_json_object(path)
        projects = data.get("projects")
        if not isinstance(projects, dict):
            projects = {}
        before = projects.get(project_key(project.root))
        projects[project_key(project.root)] = change(dict(before) if isinstance(before, dict) else {})
        data["version"] = data.get("version", TRUST_VERSION)
        data["projects"] = projects
        atomic_write_json(path, data)


def record_directives(project: ProjectPaths, raw: bytes, global_paths: GlobalPaths | None = None,
                      held: Path | None = None) -> None:
    """Remember `raw` as the bytes omp wrote (or the user approved) for this project's active
    directives. The caller holds the project lock (`held`), as for `record`."""
    _update_entry(project, lambda entry: {**entry, DIRECTIVES_DIGEST: digest(raw)},
                  global_paths or GlobalPaths.current(), held)


# The pending items omp queued on this machine, by digest. A ticked box in the pending checklist
# is an approval only for one of these: a checklist a repository committed, ticks included, never
# promotes its own lines into the directives every session follows (docs/trust.md#a-repository-never-chooses-what-runs).
QUEUED_DIGESTS = "queued_sha256"


def item_digest(kind: str, text: str) -> str:
    return digest(f"{kind}\n{text}".encode("utf-8"))


def queued_here(project: ProjectPaths, global_paths: GlobalPaths | None = None) -> frozenset[str]:
    """Digests of the pending items omp queued for this project on this machine (none when the
    trust file cannot be read: a tick then waits, it is never taken on faith)."""
    projects, problem = _trusted_digests(global_paths or GlobalPaths.current())
    entry = projects.get(project_key(project.root)) if not problem else None
    values = entry.get(QUEUED_DIGESTS) if isinstance(entry, dict) else None
    return frozenset(v for v in values if isinstance(v, str)) if isinstance(values, list) else frozenset()


def record_queued(project: ProjectPaths, keys: list[tuple[str, str]], global_paths: GlobalPaths | None = None,
                  held: Path | None = None) -> None:
    """Remember the items the pending checklist holds as omp wrote it. The caller holds the
    project lock (`held`), as for `record`."""
    global_paths = global_paths or GlobalPaths.current()
    wanted = sorted({item_digest(kind, text) for kind, text in keys})
    if set(wanted) == queued_here(project, global_paths):
        return
    _update_entry(project, lambda entry: {**entry, QUEUED_DIGESTS: wanted}, global_paths, held)


def directives_verdict(project: ProjectPaths, raw: bytes | None, global_paths: GlobalPaths | None = None) -> bool:
    """Are these bytes of the directives file ones omp wrote, or the user approved, here? (An
    absent file is trusted: it holds nothing.)"""
    if raw is None:
        return True
    projects, problem = _trusted_digests(global_paths or GlobalPaths.current())
    return not problem and core_settings.directives_trusted(projects, project.root, raw)


def directives_reason(project: ProjectPaths, raw: bytes | None, global_paths: GlobalPaths | None = None) -> str | None:
    """Why these bytes of the directives file are not trusted, in words; None when they are."""
    if raw is None:
        return None
    projects, problem = _trusted_digests(global_paths or GlobalPaths.current())
    if problem:
        return f"no trust can be read ({problem})"
    if core_settings.directives_trusted(projects, project.root, raw):
        return None
    entry = projects.get(project_key(project.root))
    if isinstance(entry, dict) and entry.get(DIRECTIVES_DIGEST):
        return "it changed since omp wrote it or you approved it (a pull, a merge or a hand edit)"
    return ("omp did not write it on this machine and you never approved it (committed to the repository, "
            "or migrated from .oh-my-copilot)")


class DirectivesNotTrusted(OmpError):
    """A write of the active directives file refused: it holds bytes nobody here approved, and
    rewriting them would record them as trusted (docs/trust.md#a-repository-never-chooses-what-runs: no write of omp's launders them)."""


def refuse_directives_write(project: ProjectPaths, read: bytes | None, global_paths: GlobalPaths | None = None) -> None:
    """Raise DirectivesNotTrusted unless omp may rewrite the directives file: what is on disk now
    is trusted, and is what the caller read (`read`) and built its change from. Call under the
    project lock, right before writing."""
    path = project.directives
    try:
        now = read_regular(path)
    except OSError as exc:
        raise DirectivesNotTrusted(f"{path} is not a regular file, so omp will not change it",
                                   "replace it with a regular file (or remove it)") from exc
    reason = directives_reason(project, now, global_paths)
    if reason is not None:
        raise DirectivesNotTrusted(
            f"{path} is not trusted, so omp will not change it: {reason}. Writing it would make every "
            "directive in it trusted, ones you have never seen included; nothing was changed",
            f"review it, then run: {FIX} (or delete the file and add your directives again)")
    if now != read:
        raise DirectivesNotTrusted(f"{path} changed while omp was working on it; nothing was changed",
                                   "run the command again")


def forget(project: ProjectPaths, global_paths: GlobalPaths | None = None) -> bool:
    """Withdraw trust from this project's config. Returns False when none was recorded."""
    global_paths = global_paths or GlobalPaths.current()
    path = trust_path(global_paths)
    if not path.exists():
        return False
    with global_lock(global_paths):
        data = read_json(path, default={})
        projects = data.get("projects") if isinstance(data, dict) else None
        if not isinstance(projects, dict) or project_key(project.root) not in projects:
            return False
        del projects[project_key(project.root)]
        atomic_write_json(path, data)
    return True


# ---------------------------------------------------------------------------------------------
# `omp trust`: show the file, then record the bytes shown


class Review(NamedTuple):
    """What `omp trust` shows before asking: the file as safe text and what it would change."""

    trust: LayerTrust
    text: str  # the file's content with control characters made visible
    settings: list[tuple[str, str]]  # (key, value as shown) for every known key it sets
    raw: bytes


# Categories that draw nothing, or not what they are: controls (Cc: an escape sequence can erase
# the line above), format characters (Cf: bidirectional overrides and isolates that reorder
# what you read, zero-width spaces and joiners, tags that spell hidden ASCII), surrogates,
# private use and unassigned code points, and every separator but the plain space.
_HIDDEN_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp", "Zs"})
# A second line, for what draws nothing although its category is a letter, a mark or a symbol:
# Unicode's Default_Ignorable_Code_Point letters and marks (the combining grapheme joiner,
# the Hangul fillers, Khmer's inherent vowels, the Mongolian and the other variation selectors,
# the whole tag block) and the blank-looking Braille pattern.
_BLANK_RANGES = ((0x034F, 0x034F), (0x115F, 0x1160), (0x17B4, 0x17B5), (0x180B, 0x180F), (0x2800, 0x2800),
                 (0x3164, 0x3164), (0xFE00, 0xFE0F), (0xFFA0, 0xFFA0), (0xE0000, 0xE0FFF))


def hidden(ch: str) -> bool:
    """Does this character draw nothing (or not itself) on a terminal?"""
    if ch != " " and unicodedata.category(ch) in _HIDDEN_CATEGORIES:
        return True
    code = ord(ch)
    return any(low <= code <= high for low, high in _BLANK_RANGES)


def visible(text: str, keep: str = "\n\t") -> str:
    """`text` with every character that draws nothing, or not itself, shown by its code:
    controls as `\\xNN` (`\\x1b`), the rest as `<U+202E>`. `keep`: the characters that stay as
    they are (a file's line breaks and tabs; pass "" for one line of text, such as a directive)."""
    out = []
    for index, ch in enumerate(text):
        if ch == "\r" and "\n" in keep and text[index + 1:index + 2] == "\n":
            out.append(ch)  # a Windows line end; a lone carriage return could overwrite the line
        elif ch in keep or not hidden(ch):
            out.append(ch)
        elif ord(ch) < 0x100 and unicodedata.category(ch) == "Cc":
            out.append(f"\\x{ord(ch):02x}")
        else:
            out.append(f"<U+{ord(ch):04X}>")
    return "".join(out)


def approve(project: ProjectPaths, review: Review) -> None:
    """Trust exactly the bytes that were shown; refuse if the file changed in the meantime."""
    with project_lock(project):
        now = read_regular(project.config)
        if now != review.raw:
            raise OmpError(f"{project.config} changed while you were reading it; nothing trusted",
                           f"run {FIX} again")
        record(project, review.raw, "omp trust", held=project.lock)


def approve_directives(project: ProjectPaths, raw: bytes) -> None:
    """Trust exactly the directives file's bytes that were shown; refuse if it changed since."""
    with project_lock(project):
        if read_regular(project.directives) != raw:
            raise OmpError(f"{project.directives} changed while you were reading it; nothing trusted",
                           f"run {FIX} again")
        record_directives(project, raw, held=project.lock)


__all__ = [
    "DIRECTIVES_DIGEST",
    "DirectivesNotTrusted",
    "FIX",
    "LayerTrust",
    "ProjectLayer",
    "Review",
    "approve",
    "approve_directives",
    "check",
    "forget",
    "hidden",
    "ignored_notice",
    "read_project_layer",
    "read_regular",
    "record",
    "record_directives",
    "directives_reason",
    "directives_verdict",
    "refuse_directives_write",
    "visible",
]
