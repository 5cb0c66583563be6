"""The note catalogue: every note's id, title, `created` and block line, kept between reads, in
an index whose use costs the same at 20 notes and at 20,000 (docs/memory-at-scale.md).

Memory grows: a project that has used omp for a year may hold 20,000 notes. What needs the notes
as a list (the managed block's lines, the dedupe of a new note, the known items a review's prompt
lists, `omp project-memory index`, `forget`, `prune-notes`) needs only their id, title and
`created`, never their bodies. So what each note gave is kept in an SQLite file (the standard
library's `sqlite3`) with the note's identity, what `stat` says of the file (size, mtime and
ctime in nanoseconds, inode). A note whose identity still matches is not read again; any other
note is read, neutralised and screened as before.

Where it lives: `G/state/note-catalog/<hash of the project's real path>.sqlite`, in omp's own home,
never in the repository. A repository cannot commit, forge or link it; another checkout of the
same repository gets its own. Losing it (or finding it damaged, or made by other code) costs one
full read of the notes.

Two ways to read it:

- `catalog(root)`: every note, each one's `stat` checked. `memory sync`, `index`, `forget`,
  `prune-notes` and `doctor` use it; it is linear in the notes (a `stat` each) and reads only
  what changed.
- the index's queries (`newest`, `duplicate_of`, `count_with_lines`): the block's selection,
  `add-note`'s dedupe and a review's known items. They do not stat every note. The notes folder's
  own `stat` says whether a note was added, removed or renamed since the index was last brought
  in step (omp's writes, a `git pull`, an editor that saves by renaming all change it); when it
  changed, every note is checked as `catalog` does. What the queries give is checked again where
  it matters: a note the block *shows* and a note a new one *duplicates* is stat'ed and re-read if
  it changed. A note the block does not show, edited where it lies, is seen at the next change of
  the folder, the next `memory sync` or review that lists every note.

A folder time on a filesystem that keeps whole seconds only (a changed folder could keep its time
within the same second) is trusted only once it is two seconds old.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import json
import os
import sqlite3
import time
from pathlib import Path
from typing import Any, Iterator, NamedTuple

from omp import __version__
from omp.core import layout
from omp.core.settings import sha256_hex
from omp.errors import OmpError
from omp.fsio import remove_leftover_temps
from omp.memory import dedupe, frontmatter, neutralise, notes as notes_mod
from omp.memory.neutralise import neutralise_line
from omp.safety import injection, lookalikes
from omp.safety.injection import injection_reasons

FORMAT = 6  # 6: how many notes hold each word; 5: screening verdicts kept; 4: SQLite in G/state/note-catalog/
FOLDER = os.path.join(layout.STATE_SUBDIR, "note-catalog")  # under G
# What an entry depends on besides the note: the code that reads, neutralises and screens it.
_MAKERS = tuple(os.path.abspath(module.__file__ or "") for module in (
    notes_mod, frontmatter, neutralise, injection, lookalikes, dedupe,
)) + (os.path.abspath(__file__),)
_NO_DATE = "0000"  # orders before every date: a note without one is the oldest
_COARSE_CLOCK_GRACE_NS = 2_000_000_000
_SCHEMA = (
    "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    "CREATE TABLE notes (name TEXT PRIMARY KEY, id TEXT NOT NULL, size INTEGER, mtime INTEGER, ctime INTEGER,"
    " inode INTEGER, created TEXT NOT NULL, stamp TEXT NOT NULL, title TEXT NOT NULL, line TEXT,"
    " fold TEXT NOT NULL, words INTEGER NOT NULL)",
    "CREATE INDEX notes_newest ON notes (stamp, id)",
    "CREATE INDEX notes_fold ON notes (fold)",
    "CREATE INDEX notes_line_length ON notes (length(line)) WHERE line IS NOT NULL",
    # How many notes have a line, kept by the table itself: counting them never reads them all.
    "CREATE TABLE counts (lines INTEGER NOT NULL)",
    "INSERT INTO counts (lines) VALUES (0)",
    "CREATE TRIGGER line_added AFTER INSERT ON notes WHEN new.line IS NOT NULL"
    " BEGIN UPDATE counts SET lines = lines + 1; END",
    "CREATE TRIGGER line_removed AFTER DELETE ON notes WHEN old.line IS NOT NULL"
    " BEGIN UPDATE counts SET lines = lines - 1; END",
    "CREATE TABLE words (word TEXT NOT NULL, name TEXT NOT NULL, PRIMARY KEY (word, name)) WITHOUT ROWID",
    "CREATE INDEX words_name ON words (name)",
    # How many notes hold each word, kept by the table itself: a new title's dedupe asks only its
    # rarest words' notes (`duplicate_of`), whatever the common ones are.
    "CREATE TABLE word_counts (word TEXT PRIMARY KEY, notes INTEGER NOT NULL) WITHOUT ROWID",
    "CREATE TRIGGER word_added AFTER INSERT ON words BEGIN"
    " INSERT OR IGNORE INTO word_counts (word, notes) VALUES (new.word, 0);"
    " UPDATE word_counts SET notes = notes + 1 WHERE word = new.word; END",
    "CREATE TRIGGER word_removed AFTER DELETE ON words BEGIN"
    " UPDATE word_counts SET notes = notes - 1 WHERE word = old.word; END",
    # The injection screen's verdict on a directive's exact text (`NoteIndex.screened_clean`).
    "CREATE TABLE screened (text TEXT PRIMARY KEY, clean INTEGER NOT NULL) WITHOUT ROWID",
)
_COLUMNS = "name, id, size, mtime, ctime, inode, created, stamp, title, line"


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
    # line Copilot might read as an instruction (docs/secrets-and-poisoning.md).
    return f"note {note.id}: {json.dumps(title, ensure_ascii=False)}"


def catalog(root: Path) -> list[NoteSummary]:
    """Every note in `R/.omp/memory/notes`, newest first (by `created`, ties by id, as
    `notes.list_notes` orders them), each one's `stat` checked: a note changed in any way is read."""
    with open_index(root, check_every_note=True) as index:
        return list(index.newest())


def check_every_note(root: Path) -> None:
    """Bring the index in step with every note's `stat` (`omp memory sync`): a note edited where
    it lies, which the folder's own `stat` does not tell, is read."""
    with open_index(root, check_every_note=True):
        pass


def note_lines(root: Path) -> list[str]:
    """The block's line of every note that gives one, newest first."""
    return [note.line for note in catalog(root) if note.line is not None]


@contextlib.contextmanager
def open_index(root: Path, check_every_note: bool = False) -> Iterator["NoteIndex"]:
    """The index of `root`'s notes, brought in step with the notes folder (see the module doc).

    A file that cannot be opened or is damaged is made anew; one that cannot be written at all
    (a read-only home) gives way to an index in memory, built by reading every note."""
    folder = Path(root) / layout.NOTES_DIR
    path = index_path(root)
    connection = _connect(path)
    try:
        index = NoteIndex(connection, folder)
        try:
            index.bring_in_step(check_every_note)
        except sqlite3.Error:  # locked past the timeout, a full disk: the notes are read into memory
            connection.close()
            connection = _create(sqlite3.connect(":memory:"), json.dumps(_makers()))
            index = NoteIndex(connection, folder)
            index.bring_in_step(True)
        yield index
    finally:
        connection.close()


def settle(root: Path) -> None:
    """`NoteIndex.settle` for `root` (omp.memory.store calls it when a batch ends)."""
    folder = Path(root) / layout.NOTES_DIR
    connection = _connect(index_path(root))
    try:
        # A note that cannot be read now fails the next reader, as it would have without the index.
        with contextlib.suppress(sqlite3.Error, OSError, OmpError):
            NoteIndex(connection, folder).settle()
    finally:
        connection.close()


def index_path(root: Path) -> Path:
    """`G/state/note-catalog/<sha256 of the project's real path>.sqlite`."""
    real = os.path.realpath(root)
    digest = sha256_hex(os.fsencode(real))[:32]  # the hook's cold render loads no OpenSSL for it
    return Path(layout.global_home()) / FOLDER / f"{digest}.sqlite"


class NoteIndex:
    """One open index; its queries give `NoteSummary`s newest first."""

    def __init__(self, connection: sqlite3.Connection, folder: Path) -> None:
        self.connection = connection
        self.folder = folder
        self.in_step_with: list[int] | None = None  # the folder's identity when it was last checked

    # -- queries --------------------------------------------------------------------------------

    def screened_clean(self, text: str) -> bool:
        """Does `text` pass the injection screen (`injection_reasons`)? A verdict is kept per exact
        text, so the sessionStart hook's render screens a directive once, not at every render (it
        compiled the screen's 25 patterns each time: ≈ 11 ms of its 40 ms budget). The index is
        made anew whenever the screening code changes (`_MAKERS`), and it lives in omp's home,
        where a repository cannot write a verdict."""
        row = self.connection.execute("SELECT clean FROM screened WHERE text = ?", (text,)).fetchone()
        if row is not None:
            return bool(row[0])
        clean = not injection_reasons(text)
        with contextlib.suppress(sqlite3.Error), self.connection:  # a locked index: screened again next time
            self.connection.execute("INSERT OR REPLACE INTO screened (text, clean) VALUES (?, ?)", (text, int(clean)))
        return clean

    def newest(self, with_lines: bool = False, limit: int | None = None) -> Iterator[NoteSummary]:
        """Notes newest first, as the index holds them (`with_lines`: only those the block can show)."""
        where = "WHERE line IS NOT NULL " if with_lines else ""
        bound = f"LIMIT {int(limit)}" if limit is not None else ""
        rows = self.connection.execute(f"SELECT {_COLUMNS} FROM notes {where}ORDER BY stamp DESC, id DESC {bound}")
        for row in rows:
            yield self._summary(row)

    def newest_titles(self, limit: int) -> list[tuple[str, str]]:
        """(id, title) of the `limit` newest notes: what a review's prompt lists, read without
        building a summary of each (a prompt lists titles, nothing else)."""
        rows = self.connection.execute("SELECT id, title FROM notes ORDER BY stamp DESC, id DESC LIMIT ?", (int(limit),))
        return [(str(note_id), str(title)) for note_id, title in rows]

    def count_with_lines(self) -> int:
        return int(self.connection.execute("SELECT lines FROM counts").fetchone()[0])

    def shortest_line(self) -> int:
        found = self.connection.execute("SELECT min(length(line)) FROM notes WHERE line IS NOT NULL").fetchone()[0]
        return int(found or 0)

    def duplicate_of(self, title: str) -> NoteSummary | None:
        """The newest note whose title `title` duplicates (omp.memory.dedupe), checked on disk."""
        folded, words = dedupe.fold(title), dedupe.tokens(title)
        names: set[str] = set()
        if folded:
            names.update(row[0] for row in self.connection.execute("SELECT name FROM notes WHERE fold = ?", (folded,)))
        if words:
            # A Jaccard similarity of at least the threshold needs that share of `words` in common,
            # and a word count near this one's. So a duplicate holds at least one of the
            # len(words) - needed + 1 rarest words: only their notes are candidates (prefix filtering,
            # as set-similarity joins do), and a title of common words costs what its rarest word does.
            needed = max(1, int(len(words) * dedupe.SIMILARITY_THRESHOLD + 0.999999))
            rarest = self._rarest(words, len(words) - needed + 1)
            most = int(len(words) / dedupe.SIMILARITY_THRESHOLD + 1e-9)  # and at least `needed` words
            rows = self.connection.execute(
                f"SELECT words.name, count(*), notes.words FROM words JOIN notes ON notes.name = words.name"
                f" WHERE word IN ({','.join('?' * len(words))}) AND notes.words BETWEEN ? AND ?"
                f" AND words.name IN (SELECT name FROM words WHERE word IN ({','.join('?' * len(rarest))}))"
                f" GROUP BY words.name HAVING count(*) >= ?", (*sorted(words), needed, most, *rarest, needed))
            # The similarity from the index's word counts: only a likely duplicate is checked on disk.
            names.update(name for name, shared, count in rows
                         if shared / (len(words) + count - shared) >= dedupe.SIMILARITY_THRESHOLD)
        candidates = [self.checked(summary) for summary in self._by_names(names)]
        matches = [c for c in candidates if c is not None and dedupe.is_duplicate(title, c.title)]
        matches.sort(key=lambda note: (order_stamp(note.created), note.id), reverse=True)
        return matches[0] if matches else None

    def _rarest(self, words: frozenset[str], count: int) -> list[str]:
        """The `count` words of `words` that the fewest notes hold."""
        marks = ",".join("?" * len(words))
        held = dict(self.connection.execute(f"SELECT word, notes FROM word_counts WHERE word IN ({marks})", sorted(words)))
        return sorted(words, key=lambda word: (held.get(word, 0), word))[:count]

    def checked(self, note: NoteSummary) -> NoteSummary | None:
        """`note` as it is on disk now: read again if its `stat` changed; None when it is gone."""
        name = f"{note.id}.md"
        identity = _identity(os.path.join(self.folder, name))
        if identity is None:
            with self.connection:
                self._forget([name])
            return None
        if list(note.identity) == identity:
            return note
        with self.connection:
            return self._read_into_index(name, identity)

    # -- keeping it in step -----------------------------------------------------------------

    def bring_in_step(self, check_every_note: bool = False) -> None:
        """Check the notes folder; when it changed since the last check (or when asked), check
        every note's `stat` and read the notes that changed."""
        folder_now = _folder_identity(self.folder)
        self.in_step_with = folder_now
        if not check_every_note and folder_now is not None and self._meta("folder") == json.dumps(folder_now):
            return
        with self.connection:
            known = {row[0]: list(row[1:]) for row in self.connection.execute(
                "SELECT name, size, mtime, ctime, inode FROM notes")}
            present = self._listed()
            for name in present:
                identity = _identity(os.path.join(self.folder, name))
                if identity is None or known.get(name) != identity:
                    self._read_into_index(name, identity)
            self._forget(sorted(set(known) - set(present)))
            trusted = folder_now if folder_now is not None and _clock_is_fine(folder_now) else None
            self._set_meta("folder", json.dumps(trusted))

    def sweep_leftovers(self) -> int:
        """Remove the temp files killed writers left in the notes folder (`remove_leftover_temps`),
        when the last listing of the folder saw one. A review does not list 20,000 notes to look
        for them: the index's own listings, made only when the folder changes, say whether to."""
        if self._meta("leftovers") != "true":
            return 0
        removed = remove_leftover_temps(self.folder, recursive=False)
        with contextlib.suppress(sqlite3.Error), self.connection:
            self._listed()  # a write in progress may have left one young enough to keep
        return removed

    def _listed(self) -> list[str]:
        """The notes folder's notes, listed once; whether a temp file is there too is recorded
        (`sweep_leftovers`). Inside the caller's transaction."""
        present, temps = notes_mod.folder_entries(self.folder)
        self._set_meta("leftovers", json.dumps(temps))
        return present

    def record_own_changes(self, names: list[Path]) -> None:
        """omp wrote, created or deleted these notes since the index was brought in step (under
        the project lock): read or drop each and record the folder as it is now, reading nothing
        else. Another program's change to the folder in the same moment waits for the next full
        check (`memory sync`)."""
        if self.in_step_with is None or self._meta("folder") != json.dumps(self.in_step_with):
            return  # not in step when opened: the next reader checks the folder
        with self.connection:
            for path in names:
                identity = _identity(os.fspath(path))
                if identity is None:
                    self._forget([path.name])
                elif notes_mod.is_note_file_name(path.name):
                    self._read_into_index(path.name, identity)
            folder_now = _folder_identity(self.folder)
            trusted = folder_now if folder_now is not None and _clock_is_fine(folder_now) else None
            self._set_meta("folder", json.dumps(trusted))

    def settle(self) -> None:
        """After omp's own writes (under the project lock): notes added or removed since the index
        was brought in step are read or dropped, by name, and the folder is recorded again. Only
        what another program changed in place in the same moment waits for the next full check."""
        folder_now = _folder_identity(self.folder)
        if folder_now is not None and self._meta("folder") == json.dumps(folder_now):
            return
        with self.connection:
            known = {row[0] for row in self.connection.execute("SELECT name FROM notes")}
            present = self._listed()
            for name in present:
                if name not in known:
                    self._read_into_index(name, _identity(os.path.join(self.folder, name)))
            self._forget(sorted(known - set(present)))
            trusted = folder_now if folder_now is not None and _clock_is_fine(folder_now) else None
            self._set_meta("folder", json.dumps(trusted))

    def _read_into_index(self, name: str, identity: list[int] | None) -> NoteSummary:
        note = notes_mod.read_note(self.folder / name)
        # A note that cannot be stat'ed (it went away as it was read) is never trusted: -1s match nothing.
        size, mtime, ctime, inode = identity or [-1, -1, -1, -1]
        words = dedupe.tokens(note.title)
        row = (name, name[:-3], size, mtime, ctime, inode, note.created, order_stamp(note.created), note.title,
               note_line(note))
        # DELETE then INSERT, not INSERT OR REPLACE: a replace fires no delete trigger (`counts`).
        self.connection.execute("DELETE FROM notes WHERE name = ?", (name,))
        self.connection.execute(f"INSERT INTO notes ({_COLUMNS}, fold, words) VALUES "
                                f"(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", (*row, dedupe.fold(note.title), len(words)))
        self.connection.execute("DELETE FROM words WHERE name = ?", (name,))
        self.connection.executemany("INSERT OR IGNORE INTO words (word, name) VALUES (?, ?)",
                                    [(word, name) for word in words])
        return self._summary(row)

    def _forget(self, names: list[str]) -> None:
        for name in names:
            self.connection.execute("DELETE FROM notes WHERE name = ?", (name,))
            self.connection.execute("DELETE FROM words WHERE name = ?", (name,))

    def _by_names(self, names: set[str]) -> list[NoteSummary]:
        found: list[NoteSummary] = []
        ordered = sorted(names)
        for start in range(0, len(ordered), 500):  # SQLite's bound on host parameters
            chunk = ordered[start:start + 500]
            found += [self._summary(row) for row in self.connection.execute(
                f"SELECT {_COLUMNS} FROM notes WHERE name IN ({','.join('?' * len(chunk))})", chunk)]
        return found

    def _summary(self, row: tuple[Any, ...]) -> NoteSummary:
        _name, note_id, size, mtime, ctime, inode, created, _stamp, title, line = row
        return NoteSummary(note_id, title, created, line, self.folder, (size, mtime, ctime, inode))

    def _meta(self, key: str) -> str | None:
        row = self.connection.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def _set_meta(self, key: str, value: str) -> None:
        self.connection.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (key, value))


def _connect(path: Path) -> sqlite3.Connection:
    """The index at `path` if it is sound and made by this code, else a new one there, else one
    in memory."""
    makers = json.dumps(_makers())
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        connection = _open_sound(path, makers)
        if connection is not None:
            return connection
        for leftover in (path, Path(f"{path}-journal")):
            leftover.unlink(missing_ok=True)
        return _create(sqlite3.connect(path, timeout=10), makers)
    except (OSError, sqlite3.Error):
        return _create(sqlite3.connect(":memory:"), makers)


def _open_sound(path: Path, makers: str) -> sqlite3.Connection | None:
    """The existing index, or None when there is none or it is damaged, foreign or from other code."""
    if not path.is_file():
        return None
    connection = sqlite3.connect(path, timeout=10)
    try:
        found = dict(connection.execute("SELECT key, value FROM meta WHERE key IN ('format', 'makers')").fetchall())
        if found == {"format": str(FORMAT), "makers": makers}:
            return connection
    except sqlite3.Error:
        pass
    connection.close()
    return None


def _create(connection: sqlite3.Connection, makers: str) -> sqlite3.Connection:
    with connection:
        for statement in _SCHEMA:
            connection.execute(statement)
        connection.executemany("INSERT INTO meta (key, value) VALUES (?, ?)",
                               [("format", str(FORMAT)), ("makers", makers), ("folder", "null")])
    return connection


def _identity(path: str) -> list[int] | None:
    """What `stat` says of the note, as the index keeps it; None when it cannot be stat'ed."""
    try:
        info = os.stat(path, follow_symlinks=False)
    except OSError:
        return None
    return [info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino]


def _folder_identity(folder: Path) -> list[int] | None:
    try:
        info = os.stat(folder)
    except OSError:
        return None
    return [info.st_mtime_ns, info.st_ctime_ns, info.st_ino, info.st_size]


def _clock_is_fine(identity: list[int]) -> bool:
    """Can the folder's time tell a change made in the same second? (Whole seconds: only once old.)"""
    mtime = identity[0]
    return mtime % 1_000_000_000 != 0 or time.time_ns() - mtime > _COARSE_CLOCK_GRACE_NS


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
