"""The managed block (SPEC §7.3): what Copilot reads from memory at the start of every session.

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

Every text is re-neutralised when rendered (a store may have been edited by hand). Rendering
uses only the standard library, so the sessionStart hook can call it cheaply.
"""

from __future__ import annotations

import contextlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from omp import config
from omp.errors import OmpError
from omp.fsio import atomic_write, confine, read_text
from omp.memory import directives as dirs, notes as notes_mod
from omp.memory.neutralise import neutralise_line
from omp.paths import GlobalPaths, ProjectPaths

START_MARKER = "<!-- omp:memory:start -->"
END_MARKER = "<!-- omp:memory:end -->"
READ_MORE = "Read a note in full with `omp project-memory read <id>`; list them all with `omp project-memory index`."


class BlockMarkerError(OmpError):
    """The instruction file's markers are not one start followed by one end."""


@dataclass(frozen=True)
class Selection:
    shown: list[str]
    skipped: int


def select(items: list[str], cap: int, char_cap: int) -> Selection:
    """At most `cap` items whose lengths add up to at most `char_cap`, in order.

    An item that does not fit in the characters left is skipped and the next one is tried, so
    one long item cannot hide every short one after it.
    """
    shown: list[str] = []
    used = 0
    for item in items:
        if len(shown) < cap and used + len(item) <= char_cap:
            shown.append(item)
            used += len(item)
    return Selection(shown, len(items) - len(shown))


def _settings(paths: ProjectPaths | None, global_paths: GlobalPaths | None = None) -> dict[str, Any]:
    return {k: s.value for k, s in config.resolve(paths, global_paths).items()}


def _directive_texts(paths: ProjectPaths, global_paths: GlobalPaths) -> list[str]:
    texts = [neutralise_line(d.text) for d in dirs.read_directives(paths.directives)]
    texts += [f"{neutralise_line(d.text)} (global)" for d in dirs.read_directives(global_paths.directives)]
    return [t for t in texts if t and t != "(global)"]


def _note_entries(paths: ProjectPaths) -> list[str]:
    entries = []
    for note in notes_mod.list_notes(paths.notes):
        title = neutralise_line(note.title)
        if title:
            # Quoted: a note is written without a human, so its title is shown as data (what a
            # session learned), never as a line Copilot might read as an instruction (SPEC §6.2).
            entries.append(f"`{note.id}`: {json.dumps(title, ensure_ascii=False)}")
    return entries


def project_selections(
    paths: ProjectPaths, settings: dict[str, Any] | None = None, global_paths: GlobalPaths | None = None
) -> tuple[Selection, Selection]:
    """(directives, notes) as the project block shows them."""
    settings = settings or _settings(paths, global_paths)
    global_paths = global_paths or GlobalPaths.current()
    directive_sel = select(
        _directive_texts(paths, global_paths), settings["memory-directive-cap"], settings["memory-directive-char-cap"]
    )
    note_sel = select(_note_entries(paths), settings["memory-note-cap"], settings["memory-note-char-cap"])
    return directive_sel, note_sel


def render_block_lines(
    paths: ProjectPaths, settings: dict[str, Any] | None = None, global_paths: GlobalPaths | None = None
) -> list[str]:
    """The project block's content (without markers): what a session should start knowing."""
    return _block_lines(*project_selections(paths, settings, global_paths))


def _block_lines(directive_sel: Selection, note_sel: Selection) -> list[str]:
    lines = [
        "## Project memory (kept by omp)",
        "",
        "Remembered from earlier Copilot sessions in this project. omp rewrites this block; "
        "change it with `omp project-memory`.",
    ]
    if directive_sel.shown or directive_sel.skipped:
        lines += ["", "Directives to follow:"]
        lines += [f"- {text}" for text in directive_sel.shown]
        if directive_sel.skipped:
            lines.append(f"+{directive_sel.skipped} more directive(s) not shown (over the directive caps)")
    if note_sel.shown or note_sel.skipped:
        lines += ["", "Notes (newest first):"]
        lines += [f"- {entry}" for entry in note_sel.shown]
        if note_sel.skipped:
            lines.append(f"+{note_sel.skipped} more note(s)")
        lines += ["", READ_MORE]
    if not (directive_sel.shown or directive_sel.skipped or note_sel.shown or note_sel.skipped):
        lines += ["", "Nothing remembered yet."]
    return lines


def hook_context(paths: ProjectPaths) -> str:
    """The block's content as one text, for the sessionStart hook in `memory-inject=hook` mode.

    Empty when nothing is remembered (the hook then says nothing about memory).
    """
    directive_sel, note_sel = project_selections(paths)
    if not (directive_sel.shown or directive_sel.skipped or note_sel.shown or note_sel.skipped):
        return ""
    return "\n".join(_block_lines(directive_sel, note_sel))


def has_memory(paths: ProjectPaths, global_paths: GlobalPaths | None = None) -> bool:
    global_paths = global_paths or GlobalPaths.current()
    return bool(_directive_texts(paths, global_paths) or _note_entries(paths))


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
    raise BlockMarkerError(
        f"{path}: {problem}, so omp cannot tell which part is its block; nothing was written",
        f"edit {path} to keep exactly one start marker followed by one end marker (or delete "
        "all of them and omp appends a fresh block), then run: omp memory sync",
    )


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


@dataclass(frozen=True)
class SyncResult:
    inject: str  # "block" | "hook"
    project_file: Path
    project: str  # "written" | "unchanged" | "absent" | "removed" | "skipped"
    global_file: Path
    global_: str

    def to_json(self) -> dict[str, str]:
        return {
            "inject": self.inject,
            "project_file": str(self.project_file),
            "project": self.project,
            "global_file": str(self.global_file),
            "global": self.global_,
        }


def sync_block(paths: ProjectPaths, lock_held: bool = False, global_paths: GlobalPaths | None = None) -> SyncResult:
    """Re-render the managed blocks from the stores (project lock, then global lock)."""
    from omp.project import project_lock

    global_paths = global_paths or GlobalPaths.current()
    settings = _settings(paths, global_paths)
    if settings["memory-inject"] == "hook":
        # No instruction file in hook mode; render the sessionStart context now instead, so not
        # even the first session after this change pays for rendering it.
        from omp.hooks import refresh_context_cache

        refresh_context_cache(paths.root)
        return SyncResult("hook", paths.instructions, "skipped", global_paths.copilot_instructions, "skipped")
    lock = contextlib.nullcontext() if lock_held else project_lock(paths)
    with lock:
        # Render inside the lock: the block must show the stores as they are now.
        project = write_block(
            paths.instructions, render_block_lines(paths, settings, global_paths), has_memory(paths, global_paths),
            paths.root,
        )
    global_state = sync_global_block(global_paths)
    return SyncResult("block", paths.instructions, project, global_paths.copilot_instructions, global_state)


def sync_global_block(global_paths: GlobalPaths | None = None) -> str:
    """Re-render the personal block in `C/copilot-instructions.md` (global lock)."""
    from omp.project import global_lock

    global_paths = global_paths or GlobalPaths.current()
    settings = _settings(None, global_paths)
    if settings["memory-inject"] != "block":
        return "skipped"
    with global_lock(global_paths):
        has_global = bool(dirs.read_directives(global_paths.directives))
        return write_block(
            global_paths.copilot_instructions, render_global_block_lines(global_paths, settings), has_global,
            global_paths.copilot,
        )


def sync_after_config_change(paths: ProjectPaths) -> SyncResult:
    """Called by `omp config set/unset` when a cap or `memory-inject` changed.

    In `hook` mode the blocks omp wrote earlier are taken out (otherwise Copilot would read the
    memory from the file and again from the hook); otherwise the blocks are re-rendered.
    """
    from omp.project import global_lock, project_lock

    global_paths = GlobalPaths.current()
    if _settings(paths, global_paths)["memory-inject"] != "hook":
        return sync_block(paths, global_paths=global_paths)
    with project_lock(paths):
        project = _strip_block_file(paths.instructions, paths.root)
    global_state = "skipped"
    if _settings(None, global_paths)["memory-inject"] == "hook":
        with global_lock(global_paths):
            global_state = _strip_block_file(global_paths.copilot_instructions, global_paths.copilot)
    return SyncResult("hook", paths.instructions, project, global_paths.copilot_instructions, global_state)


def sync_after_global_config_change(global_paths: GlobalPaths | None = None) -> str:
    """`omp config set/unset --global` of a cap or `memory-inject`: the personal block only
    (a global change reads and writes no project)."""
    from omp.project import global_lock

    global_paths = global_paths or GlobalPaths.current()
    if _settings(None, global_paths)["memory-inject"] == "hook":
        with global_lock(global_paths):
            return _strip_block_file(global_paths.copilot_instructions)
    return sync_global_block(global_paths)


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
