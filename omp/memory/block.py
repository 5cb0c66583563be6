"""The managed block (docs/behaviour.md#project-memory-and-the-managed-block): what Copilot reads from memory at the start of every session.

Between `<!-- omp:memory:start -->` and `<!-- omp:memory:end -->` in
`R/.github/copilot-instructions.md`: the active directives (global ones too, marked) within
`memory-directive-cap` / `memory-directive-char-cap`, the newest note titles with their ids
within `memory-note-cap` / `memory-note-char-cap`, how to read more, and `+N more` lines for
what did not fit. An item too long for the room left is skipped, and the next one still gets its
chance. Global directives also get a block of their own in `C/copilot-instructions.md`
(Copilot's personal instructions), so they follow the user into every project.

The file outside the markers is never changed, byte for byte. No markers: the block is appended.
No file: it is created (only when there is something to say). Markers that are unbalanced,
duplicated or out of order: nothing is written and the error says how to fix it.

With `memory-inject` = `hook` no instruction file is written; the sessionStart hook injects
`render_block_lines()` instead. Switching to `hook` removes blocks omp wrote before, so the same
memory is never read twice (`sync_after_config_change`).

Every text is re-neutralised when rendered (a store may have been edited by hand). What the
block shows (the selections within the caps, its lines) is omp.memory.render's, which the
sessionStart hook loads when its cached context is stale; this module writes the files. The
markers, the record's name and the hook's "is the file out of step?" check live in omp.core.
"""

from __future__ import annotations

import contextlib
import json
from pathlib import Path
from typing import Any, NamedTuple


from omp import config
from omp.core import layout
from omp.core.instructions import END_MARKER, START_MARKER
from omp.core.settings import sha256_hex
from omp.errors import OmpError
from omp.fsio import atomic_write, confine, read_text
from omp.memory import directives as dirs, notes as notes_mod
from omp.memory.neutralise import neutralise_line
from omp.memory.render import Selection, block_lines, refresh_hook_context, select, selections, untrusted_directives
from omp.paths import GlobalPaths, ProjectPaths
from omp.project import global_lock, project_lock
from omp.safety.injection import injection_reasons


class BlockMarkerError(OmpError):
    """The instruction file's markers are not one start followed by one end."""


def _settings(paths: ProjectPaths | None, global_paths: GlobalPaths | None = None) -> dict[str, Any]:
    return {k: s.value for k, s in config.resolve(paths, global_paths).items()}


def project_selections(
    paths: ProjectPaths, settings: dict[str, Any] | None = None, global_paths: GlobalPaths | None = None,
    with_global: bool = False,
) -> tuple[Selection, Selection]:
    """(directives, notes) as the project block shows them (with global ones for the hook)."""
    directive_sel, note_sel, _shown = selections(paths, settings or _settings(paths, global_paths),
                                                 global_paths or GlobalPaths.current(), with_global)
    return directive_sel, note_sel


def render_block_lines(
    paths: ProjectPaths, settings: dict[str, Any] | None = None, global_paths: GlobalPaths | None = None
) -> list[str]:
    """The project block's content (without markers): what a session should start knowing."""
    return block_lines(*project_selections(paths, settings, global_paths), untrusted_directives(paths))


def _rendered_block(paths: ProjectPaths, settings: dict[str, Any], global_paths: GlobalPaths) -> tuple[list[str], bool]:
    """(the project block's content, whether there is any memory to show), from one read of the
    stores; the note catalogue is kept for the next reader (a sync writes anyway)."""
    directive_sel, note_sel = project_selections(paths, settings, global_paths)
    held_back = untrusted_directives(paths)
    anything = bool(directive_sel.shown or directive_sel.skipped or note_sel.shown or note_sel.skipped or held_back)
    return block_lines(directive_sel, note_sel, held_back), anything


def held_back_items(paths: ProjectPaths) -> list[str]:
    """Stored directives and note titles the block leaves out because they read as instruction
    injection (stored by an older omp, or committed by a repository), as `what: why` lines."""
    held = []
    for number, directive in enumerate(dirs.read_directives(paths.directives), start=1):
        reasons = injection_reasons(directive.text)
        if reasons:
            held.append(f"directive {number} of {paths.directives.name}: {reasons[0]}")
    for note in notes_mod.list_notes(paths.notes):
        reason = note_held_back(note)
        if reason:
            held.append(f"note {note.id}: {reason}")
    return held


def note_held_back(note: notes_mod.Note) -> str | None:
    """Why a stored note is not shown (its title or body reads as instruction injection), or
    None. The block shows titles only, so it screens those alone (`note_lines`); reading a
    note in full (`omp project-memory read`, which the block points sessions to) screens both."""
    reasons = injection_reasons(note.title) or injection_reasons(note.body)
    return reasons[0] if reasons else None


def refresh_after_trust(paths: ProjectPaths) -> None:
    """After `omp trust` approved the directives: the instruction file (or the hook's cached
    context) shows them from now on."""
    sync_block(paths)


def render_global_block_lines(global_paths: GlobalPaths, settings: dict[str, Any] | None = None) -> list[str]:
    """The personal block's content: global directives, in every project."""
    settings = settings or _settings(None, global_paths)
    texts = [t for t in (neutralise_line(d.text) for d in dirs.read_directives(global_paths.directives)) if t]
    sel = select(texts, settings["memory-directive-cap"], settings["memory-directive-char-cap"])
    lines = [
        "## Personal directives (kept by omp)",
        "",
        "Apply in every project. omp rewrites this block; change it with "
        "`omp project-memory add-directive --global` / `remove-directive --global`.",
        "",
    ]
    lines += [f"- {text}" for text in sel.shown] or ["Nothing remembered yet."]
    if sel.skipped:
        lines.append(f"+{sel.skipped} more directive(s) not shown (over the directive caps)")
    return lines


def pending_count(paths: ProjectPaths) -> int:
    """Open items in the pending checklist (for the sessionStart nudge)."""
    return dirs.count_open(paths.pending_md)


# ---------------------------------------------------------------------------------------------
# Writing the block into a file


def _newline(text: str) -> str:
    return "\r\n" if "\r\n" in text else "\n"


def _check_markers(text: str, path: Path) -> tuple[int, int] | None:
    """(start, end) offsets of the one block, None when there is none; BlockMarkerError otherwise."""
    starts, ends = text.count(START_MARKER), text.count(END_MARKER)
    if starts == 0 and ends == 0:
        return None
    if starts == 1 and ends == 1:
        start, end = text.index(START_MARKER), text.index(END_MARKER)
        if start < end:
            return start, end + len(END_MARKER)
        problem = "the end marker comes before the start marker"
    else:
        problem = f"it has {starts} start marker(s) `{START_MARKER}` and {ends} end marker(s) `{END_MARKER}`"
    problem += f" ({_marker_lines(text)})"
    raise BlockMarkerError(
        f"{path}: {problem}, so omp cannot tell which part is its block; nothing was written",
        f"edit {path} to keep exactly one start marker followed by one end marker (or delete "
        "all of them and omp appends a fresh block), then run: omp memory sync",
    )


def _marker_lines(text: str) -> str:
    """Where the markers stand, as `start marker on line 3, end marker on lines 9 and 14`."""
    found: dict[str, list[int]] = {"start": [], "end": []}
    for number, line in enumerate(text.splitlines(), start=1):
        found["start"] += [number] * line.count(START_MARKER)
        found["end"] += [number] * line.count(END_MARKER)
    parts = []
    for kind, numbers in found.items():
        if numbers:
            where = " and ".join(", ".join(map(str, numbers)).rsplit(", ", 1))
            parts.append(f"{kind} marker on line{'s' if len(numbers) > 1 else ''} {where}")
    return ", ".join(parts)


def replace_block(text: str, lines: list[str], path: Path) -> str:
    """`text` with its managed block replaced (or appended); every other byte kept."""
    nl = _newline(text)
    block = START_MARKER + nl + nl.join(lines) + nl + END_MARKER
    span = _check_markers(text, path)
    if span is not None:
        return text[: span[0]] + block + text[span[1] :]
    if not text:
        return block + nl
    separator = "" if text.endswith(nl + nl) else (nl if text.endswith(nl) else nl + nl)
    return text + separator + block + nl


def remove_block(text: str, path: Path) -> str:
    """`text` without its managed block (and the line break that ended it)."""
    span = _check_markers(text, path)
    if span is None:
        return text
    nl = _newline(text)
    end = span[1] + len(nl) if text.startswith(nl, span[1]) else span[1]
    before, after = text[: span[0]], text[end:]
    if not after and before.endswith(nl + nl):
        before = before[: -len(nl)]  # the blank line omp put before an appended block
    return before + after


def write_block(path: Path, lines: list[str], create: bool, within: Path) -> str:
    """Put the block into `path`: "written", "unchanged" or "absent" (no file and `create` false).

    `within` is the folder the file must really be in (R, or C for the personal file): a link
    out of it is refused before the file is even read, so no outside byte is ever copied in.
    """
    real = confine(path, within)
    text = read_text(real)
    if text is None and not create:
        return "absent"
    new = replace_block(text or "", lines, path)
    if new == text:
        return "unchanged"
    atomic_write(real, new)
    return "written"


def _strip_block_file(path: Path, within: Path) -> str:
    real = confine(path, within)
    text = read_text(real)
    if text is None:
        return "absent"
    new = remove_block(text, path)
    if new == text:
        return "unchanged"
    if not new.strip() and not path.is_symlink():
        path.unlink()  # the file held nothing but omp's block
        return "removed"
    atomic_write(real, new)  # a linked file (AGENTS.md) is emptied, never unlinked from under its link
    return "removed"


class SyncResult(NamedTuple):
    inject: str  # "block" | "hook"
    project_file: Path
    project: str  # "written" | "unchanged" | "absent" | "removed" | "skipped"
    global_file: Path
    global_: str
    repaired: tuple[str, ...] = ()  # what another tool had done to a block, and what omp did about it

    def to_json(self) -> dict[str, Any]:
        return {
            "inject": self.inject,
            "project_file": str(self.project_file),
            "project": self.project,
            "global_file": str(self.global_file),
            "global": self.global_,
            "repaired": list(self.repaired),
        }


# ---------------------------------------------------------------------------------------------
# Another tool editing the file (docs/behaviour.md#project-memory-and-the-managed-block): Copilot's `/chronicle improve` rewrites
# `.github/copilot-instructions.md` with the agent's file tools. omp remembers what it last put
# between its markers (a hash, and the file's stat for the sessionStart hook's cheap check), so
# the next sync can tell an edit inside the block from a change in the stores, say what it found,
# and restore the block from the stores; every byte outside the markers stays the other tool's.

BLOCK_RECORD = layout.BLOCK_RECORD_NAME


def _record_path(state_dir: Path) -> Path:
    return state_dir / layout.STATE_SUBDIR / BLOCK_RECORD


def _inner(text: str, path: Path) -> str | None:
    span = _check_markers(text, path)
    return None if span is None else text[span[0] : span[1]]


def _digest(text: str) -> str:
    return sha256_hex(text.encode("utf-8"))


def _read_record(record: Path) -> dict[str, Any]:
    try:
        data = json.loads(record.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _foreign_changes(path: Path, text: str | None, record: dict[str, Any]) -> list[str]:
    """What happened to omp's block since omp last wrote it (raises BlockMarkerError first)."""
    if text is None:
        return []
    inner = _inner(text, path)  # bad markers raise here, before anything is written
    if not record.get("sha256") or record.get("file") != str(path):
        return []  # omp has not written this file's block (or an older omp did): nothing to compare
    if inner is None:
        return [f"{path}: omp's block was removed by another tool; appended it again from omp's stores "
                "(to keep memory out of this file: omp config set memory-inject hook)"]
    if _digest(inner) != record["sha256"]:
        return [f"{path}: omp's block was edited by another tool (Copilot's /chronicle improve, say); "
                "restored it from omp's stores, text outside the block kept — change memory with omp project-memory"]
    return []


def _remember_block(path: Path, record: Path) -> None:
    """Note what omp's block now holds, and the file's stat (best effort: only a report depends on it)."""
    try:
        text = read_text(path)
        inner = _inner(text, path) if text is not None else None
        if inner is None:
            record.unlink(missing_ok=True)
            return
        info = path.stat()
        data = {"file": str(path), "sha256": _digest(inner), "stat": [info.st_mtime_ns, info.st_size]}
        record.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(record, json.dumps(data) + "\n")
    except (OSError, OmpError):
        pass


def _write_tracked(path: Path, lines: list[str], create: bool, record: Path, within: Path) -> tuple[str, list[str]]:
    """write_block, reporting (and so undoing) what another tool did to the block since."""
    # Confined first: a link out of `within` is refused before its target is even read.
    repaired = _foreign_changes(path, read_text(confine(path, within)), _read_record(record))
    state = write_block(path, lines, create, within)
    if state != "absent":
        _remember_block(path, record)
    return state, repaired


def _strip_tracked(path: Path, record: Path, within: Path) -> str:
    state = _strip_block_file(path, within)
    with contextlib.suppress(OSError):
        record.unlink(missing_ok=True)
    return state


def sync_block(paths: ProjectPaths, lock_held: bool = False, global_paths: GlobalPaths | None = None) -> SyncResult:
    """Bring both instruction files to what the mode demands, from the stores (project lock,
    then global lock). Convergent: whatever the files hold now, after a sync they hold exactly
    omp's block (`block` mode) or no omp block at all (`hook` mode)."""
    global_paths = global_paths or GlobalPaths.current()
    settings = _settings(paths, global_paths)
    lock = contextlib.nullcontext() if lock_held else project_lock(paths)
    record = _record_path(paths.state)
    repaired: list[str] = []
    if settings["memory-inject"] == "hook":
        # No instruction file in hook mode: a block an earlier mode left goes (else a removed
        # directive would stay in force there for good), and the sessionStart context is
        # rendered now, so not even the first session after this change pays for rendering it.
        with lock:
            project = _strip_tracked(paths.instructions, record, paths.root) if paths.instructions.exists() else "skipped"
        refresh_hook_context(paths.root)
    else:
        with lock:
            # Render inside the lock: the block must show the stores as they are now.
            lines, anything = _rendered_block(paths, settings, global_paths)
            project, repaired = _write_tracked(paths.instructions, lines, anything, record, paths.root)
    global_state, global_repaired = _sync_global(global_paths)
    return SyncResult(settings["memory-inject"], paths.instructions, project, global_paths.copilot_instructions,
                      global_state, tuple(repaired + global_repaired))


def _sync_global(global_paths: GlobalPaths) -> tuple[str, list[str]]:
    """The personal block in `C/copilot-instructions.md`, by the global mode (global lock)."""
    settings = _settings(None, global_paths)
    record = _record_path(global_paths.home)
    with global_lock(global_paths):
        if settings["memory-inject"] != "block":
            if global_paths.copilot_instructions.exists():
                return _strip_tracked(global_paths.copilot_instructions, record, global_paths.copilot), []
            return "skipped", []
        has_global = bool(dirs.read_directives(global_paths.directives))
        return _write_tracked(
            global_paths.copilot_instructions, render_global_block_lines(global_paths, settings), has_global, record,
            global_paths.copilot,
        )


def sync_global_block(global_paths: GlobalPaths | None = None) -> str:
    """Re-render the personal block in `C/copilot-instructions.md` (global lock)."""
    return _sync_global(global_paths or GlobalPaths.current())[0]


def sync_after_config_change(paths: ProjectPaths) -> SyncResult:
    """Called by `omp config set/unset` when a cap or `memory-inject` changed: the same
    convergent sync (in `hook` mode the blocks omp wrote earlier are taken out, otherwise Copilot
    would read the memory from the file and again from the hook)."""
    return sync_block(paths)


def sync_after_global_config_change(global_paths: GlobalPaths | None = None) -> str:
    """`omp config set/unset --global` of a cap or `memory-inject`: the personal block only
    (a global change reads and writes no project)."""
    return _sync_global(global_paths or GlobalPaths.current())[0]


def cap_warnings(paths: ProjectPaths) -> list[str]:
    """Warnings for items that exist but will not be injected because of the caps."""
    directive_sel, note_sel = project_selections(paths)
    warnings = []
    if directive_sel.skipped:
        warnings.append(
            f"{directive_sel.skipped} directive(s) are beyond memory-directive-cap / memory-directive-char-cap "
            "and will not be injected; remove some (omp project-memory remove-directive N) or raise the cap "
            "(omp config set memory-directive-cap N)"
        )
    if note_sel.skipped:
        warnings.append(
            f"{note_sel.skipped} older note(s) are beyond memory-note-cap / memory-note-char-cap: their titles "
            "will not be injected (they stay readable with omp project-memory read <id>)"
        )
    return warnings
