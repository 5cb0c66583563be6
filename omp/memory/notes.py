"""Notes: durable facts about the project, one Markdown file each (docs/files.md#what-omp-writes).

`R/.omp/memory/notes/<id>.md`:

    ---
    id: release-process
    title: "How releases are cut"
    created: 2025-01-31T12:00:00Z
    session: 3f2a...
    evidence: "verbatim words from the session"
    ---
    # How releases are cut

    body...

The id is the slug of the title, made unique by exclusive create (`-2`, `-3`, ...). "Newest"
always means the `created` field, never the file's mtime (copies and checkouts change mtimes);
only a note without a readable `created` falls back to its mtime.

The managed block lists note titles (omp.memory.note_catalog keeps each note's title and line
between reads); the sessionStart hook reads them only through its cached context,
omp.core.context_cache.
"""

from __future__ import annotations

import datetime as _dt
import os
import re
import unicodedata
from pathlib import Path
from typing import NamedTuple, Protocol, TYPE_CHECKING, TypeVar


from omp.errors import UsageError
from omp.fsio import is_temp_name
from omp.lazyre import lazy
from omp.memory import frontmatter
from omp.memory.neutralise import neutralise_body, neutralise_title, strip_hidden_markdown

if TYPE_CHECKING:  # annotations only: reading notes never needs the journal
    from omp.memory.journal import Writer

MAX_SLUG = 60
UNTITLED = "Untitled note"  # a title that held nothing visible
_ID_RE = lazy(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")


class Dated(Protocol):
    """A note or a note's summary (omp.memory.note_catalog): anything with a `created`."""

    @property
    def created(self) -> str: ...


D = TypeVar("D", bound=Dated)


class Note(NamedTuple):
    id: str
    title: str
    created: str  # ISO 8601 UTC, e.g. 2025-01-31T12:00:00Z
    session: str | None
    evidence: str | None
    body: str
    path: Path

    def summary(self) -> dict[str, str | None]:
        return {"id": self.id, "title": self.title, "created": self.created, "session": self.session}


def slugify(text: str, fallback: str = "note") -> str:
    """Lowercase ASCII words joined by '-', at most 60 characters, cut at a word boundary."""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    slug = re.sub(r"[^a-z0-9]+", "-", ascii_text.lower()).strip("-")
    if len(slug) > MAX_SLUG:
        cut = slug[:MAX_SLUG]
        slug = cut.rsplit("-", 1)[0] if "-" in cut else cut
    return slug or fallback


def parse_created(value: str | None) -> _dt.datetime | None:
    if not value:
        return None
    try:
        parsed = _dt.datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
    except ValueError:
        return None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=_dt.timezone.utc)


def _mtime_iso(path: Path) -> str:
    stamp = _dt.datetime.fromtimestamp(path.stat().st_mtime, _dt.timezone.utc)
    return stamp.strftime("%Y-%m-%dT%H:%M:%SZ")


def read_note(path: Path) -> Note:
    """Parse one note file. CorruptFileError if it is unreadable (it is never rewritten)."""
    fields, body = frontmatter.read_file(path)
    body = body.lstrip("\n")
    title = fields.get("title", "").strip()
    first, _, rest = body.partition("\n")
    if first.startswith("# "):
        title = title or first[2:].strip()
        body = rest.lstrip("\n")
    # A note an older omp stored (or a repository committed) may hold hidden Markdown: it is
    # read as it renders, so the block and `omp project-memory read` never pass it on (docs/behaviour.md#what-gets-written).
    title, body = _shown(title).strip(), _shown(body).strip("\n")
    created = fields.get("created", "")
    if parse_created(created) is None:
        created = _mtime_iso(path)
    return Note(
        id=path.stem,
        title=title or path.stem,
        created=created,
        session=fields.get("session") or None,
        evidence=fields.get("evidence") or None,
        body=body.rstrip("\n"),
        path=path,
    )


def _shown(text: str) -> str:
    """`text` without the Markdown its rendering hides."""
    return strip_hidden_markdown(text)


def sort_key(created: str, note_id: str) -> tuple[_dt.datetime, str]:
    """Newest first means this key, descending: `created`, ties by id (so the order is stable)."""
    return (parse_created(created) or _dt.datetime.min.replace(tzinfo=_dt.timezone.utc), note_id)


def note_names(folder: Path) -> list[str]:
    """The file names of every note in `folder` (regular `.md` files, not hidden), sorted."""
    return folder_entries(folder)[0]


def folder_entries(folder: Path) -> tuple[list[str], bool]:
    """`note_names(folder)`, and whether an atomic write's temp file is there too (a killed
    writer's leftover, or a write in progress), from one listing of the folder."""
    names: list[str] = []
    temps = False
    try:
        with os.scandir(folder) as it:
            for entry in it:
                # DirEntry.is_file(follow_symlinks=False) uses the d_type readdir gave: no stat per note.
                if is_note_file_name(entry.name) and entry.is_file(follow_symlinks=False):
                    names.append(entry.name)
                elif is_temp_name(entry.name):
                    temps = True
    except FileNotFoundError:
        pass
    return sorted(names), temps


def is_note_file_name(name: str) -> bool:
    return name.endswith(".md") and not name.startswith(".")


def list_notes(folder: Path) -> list[Note]:
    """Every note, newest first (by `created`; ties by id, so the order is stable)."""
    notes = [read_note(folder / name) for name in note_names(folder)]
    notes.sort(key=lambda note: sort_key(note.created, note.id), reverse=True)
    return notes


def is_note_id(note_id: str) -> bool:
    """Can `note_id` name a note (`omp project-memory read` accepts it)?"""
    return bool(_ID_RE.match(note_id)) and ".." not in note_id


def note_path(folder: Path, note_id: str) -> Path:
    """The file of an existing note; UsageError for an unknown or unsafe id."""
    note_id = note_id.removesuffix(".md")
    path = folder / f"{note_id}.md"
    if not is_note_id(note_id) or not path.is_file() or path.is_symlink():
        raise UsageError(
            f"no note with id {note_id!r}",
            "list the notes with: omp project-memory index",
        )
    return path


def clean_title(title: str) -> str:
    """The title a note is stored under: one line, without hidden Markdown (docs/behaviour.md#what-gets-written)."""
    return neutralise_title(title) or UNTITLED


def render_note(note_id: str, title: str, created: str, session: str | None, evidence: str | None, body: str) -> str:
    """The note file. Every way a note is written comes here, so no path stores hidden Markdown."""
    title, body = clean_title(title), neutralise_body(body)
    head = frontmatter.render(
        [("id", note_id), ("title", title), ("created", created), ("session", session), ("evidence", evidence)]
    )
    text = f"{head}# {title}\n"
    if body.strip():
        text += f"\n{body.strip()}\n"
    return text


def create_note(
    writer: Writer,
    folder: Path,
    title: str,
    body: str,
    created: str,
    session: str | None,
    evidence: str | None,
) -> Path:
    """Write a new note under a unique id (the title's slug, then -2, -3, ...)."""
    title = clean_title(title)
    base = slugify(title)
    for attempt in range(1, 10_000):
        note_id = base if attempt == 1 else f"{base}-{attempt}"
        path = folder / f"{note_id}.md"
        if writer.create(path, render_note(note_id, title, created, session, evidence, body)):
            return path
    raise RuntimeError(f"no free note id for {base!r} in {folder}")


def notes_to_prune(notes: list[D], keep: int | None = None, older_than_days: int | None = None) -> list[D]:
    """Notes to delete: all but the newest `keep`, or those created more than N days ago."""
    if keep is not None:
        return notes[keep:]
    if older_than_days is None:
        return []
    cutoff = _dt.datetime.now(_dt.timezone.utc) - _dt.timedelta(days=older_than_days)
    return [n for n in notes if (parse_created(n.created) or cutoff) < cutoff]
