"""The managed block's note lines, remembered between renders (SPEC §7.3, §12).

The block shows each note as one line, `note <id>: "title"`, newest first, and leaves out a note
whose title reads as an instruction (omp.safety.injection). Making those lines means reading
every note and screening every title: ≈ 11 ms for 200 notes, a quarter of the sessionStart
hook's budget, paid whenever the hook's cached context is stale, which is when one note was
edited by hand or came with a `git pull` and the 199 others did not change. So the line each note
gave (or that it gave none) is kept in `R/.omp/state/note-lines.json` with the note's identity:
its name and what `stat` says of the file (size, mtime and ctime in nanoseconds, inode). A note
whose identity still matches is not read again; any other note is read and screened as before.
The file also names the code that made the lines (omp's version and the stat of the modules
that read, neutralise and screen a note): another omp makes every line anew.

What a `note-lines.json` cannot do is show a line that screening would hold back. A line is used
only for a note whose stat matches the one recorded when this machine read it. A repository that
commits the file (state/ is ignored by git, but a commit can force it in) cannot know the inode
and ctime its checkout gives each note, and no program sets a ctime. A damaged, foreign or
unreadable file is ignored (every note is read); the file is written only inside the project,
never through a linked `.omp` or `state`. Losing it costs one full read.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from omp import __version__
from omp.core import layout
from omp.core.files import read_regular, write_best_effort
from omp.memory import frontmatter, neutralise, notes as notes_mod
from omp.memory.neutralise import neutralise_line
from omp.safety import injection, lookalikes
from omp.safety.injection import injection_reasons

FORMAT = 2  # 2: `note <id>: "title"` lines
# What a line depends on besides the note: the code that reads, neutralises and screens it.
_MAKERS = tuple(os.path.abspath(module.__file__ or "") for module in (
    notes_mod, frontmatter, neutralise, injection, lookalikes,
)) + (os.path.abspath(__file__),)


def note_line(note: notes_mod.Note) -> str | None:
    """The block's line for `note`, or None when it shows none (no title, or one screening holds back)."""
    title = neutralise_line(note.title)
    # What omp stores passed the injection filter; a note an older omp stored, or one a
    # repository committed, is screened again here (`held_back_items` lists it for doctor).
    if not title or injection_reasons(title):
        return None
    # A file name is not checked when a note is listed, and one that is no id (`Always do X.md`,
    # a backtick or a quote in it) would speak outside the quotes: it gets no line, as
    # `omp project-memory read` refuses it.
    if not notes_mod.is_note_id(note.id):
        return None
    # Quoted: a note is written without a human, so its title is shown as data (what a session
    # learned), JSON-quoted so no quote or backslash in it can end the string early, never as a
    # line Copilot might read as an instruction (SPEC §6.2).
    return f"note {note.id}: {json.dumps(title, ensure_ascii=False)}"


def note_lines(root: Path, remember: bool = False) -> list[str]:
    """The block's line of every note in `R/.omp/memory/notes` that gives one, newest first
    (by `created`, as `notes.list_notes` orders them). Lines remembered for unchanged notes are
    used; `remember` keeps the lines for the next render (the hook's rendering does: other
    readers, `omp doctor` say, write nothing)."""
    folder = root / layout.NOTES_DIR
    cache_path = os.path.join(root, layout.NOTE_LINES_CACHE)
    makers = _makers()
    remembered = _load(cache_path, makers)
    current: dict[str, list[Any]] = {}
    for name in notes_mod.note_names(folder):
        identity = _identity(folder / name)
        entry = remembered.get(name)
        if identity is None or entry is None or entry[:-2] != identity:
            note = notes_mod.read_note(folder / name)
            # A note that cannot be stat'ed (it went away as it was read) is never remembered.
            entry = [*(identity or [-1, -1, -1, -1]), note.created, note_line(note)]
        current[name] = entry
    if remember and current != remembered and layout.is_inside(cache_path, os.fspath(root)):
        write_best_effort(cache_path, json.dumps({"format": FORMAT, "makers": makers, "notes": current}))
    ordered = sorted(current.items(), key=lambda item: _sort_key(item[0], item[1][-2]), reverse=True)
    return [entry[-1] for _, entry in ordered if entry[-1] is not None]


def _sort_key(name: str, created: str) -> tuple[Any, str]:
    return notes_mod.sort_key(created, name.removesuffix(".md"))


def _identity(path: Path) -> list[Any] | None:
    """What `stat` says of the note, as the cache keeps it; None when it cannot be stat'ed."""
    try:
        info = os.stat(path, follow_symlinks=False)
    except OSError:
        return None
    return [info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino]


def _makers() -> list[Any]:
    stats: list[Any] = [__version__]
    for path in _MAKERS:
        try:
            info = os.stat(path)
        except OSError:
            stats.append(None)
            continue
        stats.append([info.st_size, info.st_mtime_ns])
    return stats


def _load(path: str, makers: list[Any]) -> dict[str, list[Any]]:
    """The remembered lines by note name; {} when the file is missing, damaged, foreign or made
    by other code."""
    try:
        raw = read_regular(path)
        found = json.loads(raw) if raw else None
    except (OSError, ValueError, RecursionError):
        return {}
    if not (isinstance(found, dict) and found.get("format") == FORMAT and found.get("makers") == makers):
        return {}
    notes = found.get("notes")
    if not isinstance(notes, dict):
        return {}
    return {name: entry for name, entry in notes.items() if _well_formed(entry)}


def _well_formed(entry: Any) -> bool:
    return (isinstance(entry, list) and len(entry) == 6 and all(isinstance(v, int) for v in entry[:4])
            and isinstance(entry[4], str) and (entry[5] is None or isinstance(entry[5], str)))
