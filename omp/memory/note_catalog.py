"""The note catalogue: every note's id, title, `created` and block line, kept between reads
(SPEC §7.1, §7.3, §12).

Memory grows: a project that has used omp for a year may hold 20,000 notes. Everything that
needs the notes as a list (the managed block's lines, the batch that dedupes a review's
proposals against them, `omp project-memory index`, `forget`, `prune-notes`) needs only their
id, title and `created`, never their bodies. Reading and parsing every note file for that took
seconds at 20,000 notes, in every sync, `add-note` and review. So what each note gave is kept in
`R/.omp/state/note-catalog.json` with the note's identity: its name and what `stat` says of the
file (size, mtime and ctime in nanoseconds, inode). A note whose identity still matches is not
read again; any other note is read, neutralised and screened as before. The file also names the
code that made the entries (omp's version and the stat of the modules that read, neutralise and
screen a note): another omp makes every entry anew.

The block shows each note as one line, `note <id>: "title"`, newest first, and leaves out a note
whose title reads as an instruction (omp.safety.injection); that line is kept with the entry.

What a `note-catalog.json` cannot do is show a line that screening would hold back, or hide an
edit. An entry is used only for a note whose stat matches the one recorded when this machine
read it. A repository that commits the file (state/ is ignored by git, but a commit can force it
in) cannot know the inode and ctime its checkout gives each note, and no program sets a ctime. A
damaged, foreign or unreadable file is ignored (every note is read); the file is written only
inside the project, never through a linked `.omp` or `state`. Losing it costs one full read.
"""

from __future__ import annotations

import datetime as _dt
import json
import os
from pathlib import Path
from typing import Any, NamedTuple

from omp import __version__
from omp.core import layout
from omp.core.files import read_regular, write_best_effort
from omp.memory import frontmatter, neutralise, notes as notes_mod
from omp.memory.neutralise import neutralise_line
from omp.safety import injection, lookalikes
from omp.safety.injection import injection_reasons

FORMAT = 3  # 3: [size, mtime_ns, ctime_ns, inode, created, order, title, line] per note
# What an entry depends on besides the note: the code that reads, neutralises and screens it.
_MAKERS = tuple(os.path.abspath(module.__file__ or "") for module in (
    notes_mod, frontmatter, neutralise, injection, lookalikes,
)) + (os.path.abspath(__file__),)
_NO_DATE = "0000"  # orders before every date: a note without one is the oldest


class NoteSummary(NamedTuple):
    """A note as lists need it: no body, no evidence (read those with notes.read_note(path))."""

    id: str
    title: str
    created: str  # as the note says, ISO 8601 UTC; a note without a readable one has its file's mtime
    line: str | None  # the managed block's line, None when it shows none
    folder: Path
    identity: tuple[int, ...] = ()  # [size, mtime_ns, ctime_ns, inode] of the file when it was read

    @property
    def path(self) -> Path:
        return self.folder / f"{self.id}.md"


def order_stamp(created: str) -> str:
    """`created` as a string that sorts as the moment does (UTC, fixed width)."""
    moment = notes_mod.parse_created(created)
    if moment is None:
        return _NO_DATE
    return moment.astimezone(_dt.timezone.utc).replace(tzinfo=None).isoformat(timespec="microseconds")


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


def catalog(root: Path, remember: bool = False) -> list[NoteSummary]:
    """Every note in `R/.omp/memory/notes`, newest first (by `created`, ties by id, as
    `notes.list_notes` orders them). Entries remembered for unchanged notes are used; `remember`
    keeps the entries for the next reader (writers do; read-only commands such as `omp doctor`
    write nothing)."""
    folder = root / layout.NOTES_DIR
    folder_name = os.fspath(folder)
    cache_path = os.path.join(root, layout.NOTE_CATALOG)
    makers = _makers()
    remembered = _load(cache_path, makers)
    current: dict[str, list[Any]] = {}
    for name in notes_mod.note_names(folder):
        identity = _identity(os.path.join(folder_name, name))
        entry = remembered.get(name)
        if identity is None or entry is None or entry[:4] != identity:
            note = notes_mod.read_note(folder / name)
            # A note that cannot be stat'ed (it went away as it was read) is never remembered.
            entry = [*(identity or [-1, -1, -1, -1]), note.created, order_stamp(note.created), note.title,
                     note_line(note)]
        current[name] = entry
    if remember and current != remembered and layout.is_inside(cache_path, os.fspath(root)):
        write_best_effort(cache_path, json.dumps({"format": FORMAT, "makers": makers, "notes": current}))
    # Newest first; ties by id, so the order is stable (the id is the name without ".md").
    ordered = sorted(current.items(), key=lambda item: (item[1][5], item[0][:-3]), reverse=True)
    return [NoteSummary(name[:-3], entry[6], entry[4], entry[7], folder, tuple(entry[:4])) for name, entry in ordered]


def note_lines(root: Path, remember: bool = False) -> list[str]:
    """The block's line of every note that gives one, newest first."""
    return [note.line for note in catalog(root, remember) if note.line is not None]


def _identity(path: str) -> list[Any] | None:
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
    return (isinstance(entry, list) and len(entry) == 8 and all(isinstance(v, int) for v in entry[:4])
            and all(isinstance(v, str) for v in entry[4:7]) and (entry[7] is None or isinstance(entry[7], str)))
