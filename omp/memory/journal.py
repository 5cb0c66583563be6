"""The undo journal of a review (docs/behaviour.md#what-gets-written): what it created or changed, item by item.

`R/.omp/memory-review/journal/<session>.json`:

    {"version": 2, "session": "<id>",
     "batches": [{"started_at": "...", "undone_at": null,
                  "entries": [{"path": "<relative to R>", "prior": null | {"encoding": "utf-8"|"base64", "data": "..."},
                               "after_sha256": null | "<hex>"}],
                  "pending": [{"kind": "add"|"forget", "text": "..."}]}]}

`prior` is the file's bytes before the batch touched it (null: it did not exist); `after_sha256`
is the hash of what the batch left there (null: the batch deleted it). `pending` lists the
queue items the batch added. Each review of a session (a resumed session is reviewed again from
its cursor) appends one batch. Version 1 journals (no `pending`) are still undone: their queue
items are found by the session recorded in `pending.json` (`omp.memory.undo`).

Crash safety: the entry for a file (or item) is written (atomically) *before* the file is
changed, so a crash can leave an entry whose change never happened — undo recognises that as
"nothing to revert" — but never a change the journal does not know about.

Undo (`omp.memory.undo`) works item by item: it takes back the notes, queue items and drafts
the review added and the notes it pruned, and leaves everything else — other reviews' items,
human decisions — exactly as it is.
"""

from __future__ import annotations

import base64
import contextlib
import datetime as _dt
import os
import time
from pathlib import Path
from typing import Any

from omp.core.settings import sha256_hex
from omp.errors import OmpError
from omp.fsio import CorruptFileError, atomic_write, atomic_write_json, confine, create_exclusive, read_json_object
from omp.paths import ProjectPaths, check_session_id

JOURNAL_VERSION = 2
READABLE_VERSIONS = (1, 2)
JOURNAL_RETENTION_DAYS = 90


def utc_now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _sha(data: bytes | None) -> str | None:
    return None if data is None else sha256_hex(data)


def _read_bytes(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None


def _encode(data: bytes | None) -> dict[str, str] | None:
    if data is None:
        return None
    try:
        return {"encoding": "utf-8", "data": data.decode("utf-8")}
    except UnicodeDecodeError:
        return {"encoding": "base64", "data": base64.b64encode(data).decode("ascii")}


def _decode(value: Any, where: Path) -> bytes | None:
    if value is None:
        return None
    if not isinstance(value, dict) or not isinstance(value.get("data"), str):
        raise CorruptFileError(where, "an entry's 'prior' is not {encoding, data}")
    if value.get("encoding") == "base64":
        return base64.b64decode(value["data"])
    return value["data"].encode("utf-8")


def journal_path(paths: ProjectPaths, session: str) -> Path:
    return paths.journal / f"{check_session_id(session)}.json"


class Journal:
    """Records one batch of writes for a session. Use through `Writer`, under the project lock."""

    def __init__(self, paths: ProjectPaths, session: str) -> None:
        self.paths = paths
        self.session = check_session_id(session)
        self.path = journal_path(paths, session)
        self.data = _load(self.path, session)
        self.batch: dict[str, Any] = {"started_at": utc_now(), "undone_at": None, "entries": [], "pending": []}
        self._saved = False

    def _relative(self, target: Path) -> str:
        try:
            return target.resolve().relative_to(self.paths.root.resolve()).as_posix()
        except ValueError as exc:
            raise OmpError(f"refusing to journal {target}: it is outside the project {self.paths.root}") from exc

    def record(self, target: Path, after: bytes | None) -> None:
        """Note that `target` is about to hold `after` (None: be deleted). Durable on return."""
        rel = self._relative(target)
        entry = next((e for e in self.batch["entries"] if e["path"] == rel), None)
        if entry is None:
            entry = {"path": rel, "prior": _encode(_read_bytes(target)), "after_sha256": None}
            self.batch["entries"].append(entry)
        entry["after_sha256"] = _sha(after)
        self._save()

    def record_pending(self, items: list[tuple[str, str]]) -> None:
        """Note that these queue items (kind, text) are about to be added. Durable on return."""
        known = {(e["kind"], e["text"]) for e in self.batch["pending"]}
        for kind, text in items:
            if (kind, text) not in known:
                self.batch["pending"].append({"kind": kind, "text": text})
                known.add((kind, text))
        self._save()

    def forget(self, target: Path) -> None:
        """Drop the entry of a write that did not happen (an exclusive create that lost)."""
        rel = self._relative(target)
        self.batch["entries"] = [e for e in self.batch["entries"] if e["path"] != rel]
        self._save()

    def _save(self) -> None:
        if not self._saved:
            self.data["batches"].append(self.batch)
            self._saved = True
        self.data["version"] = JOURNAL_VERSION
        atomic_write_json(self.path, self.data, within=self.paths.root)

    @property
    def touched(self) -> list[str]:
        return [e["path"] for e in self.batch["entries"]]


def _load(path: Path, session: str) -> dict[str, Any]:
    data = read_json_object(path)
    if not data:
        return {"version": JOURNAL_VERSION, "session": session, "batches": []}
    if not isinstance(data.get("batches"), list):
        raise CorruptFileError(path, "missing the 'batches' list")
    if data.get("version", 1) not in READABLE_VERSIONS:
        raise OmpError(
            f"{path} was written by a newer omp (journal version {data.get('version')!r})",
            "upgrade omp to undo this review",
        )
    return data


def load_journal(path: Path, session: str) -> dict[str, Any]:
    """A journal's data (CorruptFileError when it does not parse; never rewritten then)."""
    return _load(path, session)


def decode_prior(value: Any, where: Path) -> bytes | None:
    return _decode(value, where)


def save_journal(paths: ProjectPaths, path: Path, data: dict[str, Any]) -> None:
    atomic_write_json(path, data, within=paths.root)


class Writer:
    """Every store write of a batch goes through here, so a journal (if any) sees it first.

    `within` (the project root) confines every write: a store file or folder that links out of
    the project is refused (`omp.fsio.confine`), never written through.
    """

    def __init__(self, journal: Journal | None = None, within: Path | None = None) -> None:
        self.journal = journal
        self.within = within if within is not None else (journal.paths.root if journal else None)
        self.touched: list[Path] = []  # every path written, created or deleted (the note index reads it)

    def write(self, path: Path, data: str | bytes) -> None:
        payload = data.encode("utf-8") if isinstance(data, str) else data
        if self.within is not None:
            confine(path, self.within)  # refuse before the journal records anything
        if self.journal is not None:
            self.journal.record(path, payload)
        atomic_write(path, payload, self.within)
        self.touched.append(path)

    def create(self, path: Path, data: str | bytes) -> bool:
        """Exclusive create; False (nothing recorded) when the file already exists."""
        payload = data.encode("utf-8") if isinstance(data, str) else data
        if os.path.lexists(path):
            return False
        if self.within is not None:
            confine(path, self.within)
        if self.journal is not None:
            self.journal.record(path, payload)
        if create_exclusive(path, payload, self.within):
            self.touched.append(path)
            return True
        if self.journal is not None:
            self.journal.forget(path)
        return False

    def delete(self, path: Path) -> None:
        if self.journal is not None:
            self.journal.record(path, None)
        self.touched.append(path)
        with contextlib.suppress(FileNotFoundError):
            path.unlink()  # unlinking a link removes the link, never what it points at

    def note_pending(self, items: list[tuple[str, str]]) -> None:
        """Queue items (kind, text) about to be added, so undo can take exactly those back."""
        if self.journal is not None and items:
            self.journal.record_pending(items)


def cleanup_journals(paths: ProjectPaths, max_age_days: int = JOURNAL_RETENTION_DAYS) -> int:
    """Delete journals not written for `max_age_days` (docs/writes-and-undo.md#leftovers-of-killed-runs); returns how many."""
    cutoff = time.time() - max_age_days * 86400
    removed = 0
    try:
        entries = list(os.scandir(paths.journal))
    except FileNotFoundError:
        return 0
    for entry in entries:
        if entry.name.endswith(".json") and entry.is_file(follow_symlinks=False):
            with contextlib.suppress(OSError):
                if entry.stat(follow_symlinks=False).st_mtime < cutoff:
                    os.unlink(entry.path)
                    removed += 1
    return removed


def remove_empty_parents(folder: Path, stop: Path) -> None:
    # A created draft lives in its own folder; leave no empty folder behind, never above R/.omp.
    while folder != stop and stop in folder.parents:
        try:
            folder.rmdir()
        except OSError:
            return
        folder = folder.parent


__all__ = ["Journal", "Writer", "cleanup_journals", "journal_path", "load_journal", "save_journal", "utc_now"]
