"""The undo journal of a review (SPEC §5.4): what it created or changed, and how to take it back.

`R/.omp/memory-review/journal/<session>.json`:

    {"version": 1, "session": "<id>",
     "batches": [{"started_at": "...", "undone_at": null,
                  "entries": [{"path": "<relative to R>", "prior": null | {"encoding": "utf-8"|"base64", "data": "..."},
                               "after_sha256": null | "<hex>"}]}]}

`prior` is the file's bytes before the batch touched it (null: it did not exist); `after_sha256`
is the hash of what the batch left there (null: the batch deleted it). Each review of a session
(a resumed session is reviewed again from its cursor) appends one batch.

Crash safety: the entry for a file is written (atomically) *before* the file is changed, so a
crash can leave an entry whose file still holds its prior bytes — undo recognises that state as
"nothing to revert" — but never a change the journal does not know about.

Undo walks the batches newest first and refuses, changing nothing, if any file now differs from
what the journal says the review left there (someone edited it since), unless forced.
"""

from __future__ import annotations

import base64
import contextlib
import datetime as _dt
import hashlib
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from omp.errors import OmpError
from omp.fsio import CorruptFileError, atomic_write, atomic_write_json, create_exclusive, read_json_object
from omp.paths import ProjectPaths, check_session_id

JOURNAL_VERSION = 1
JOURNAL_RETENTION_DAYS = 90


def utc_now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _sha(data: bytes | None) -> str | None:
    return None if data is None else hashlib.sha256(data).hexdigest()


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
        self.batch: dict[str, Any] = {"started_at": utc_now(), "undone_at": None, "entries": []}
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

    def forget(self, target: Path) -> None:
        """Drop the entry of a write that did not happen (an exclusive create that lost)."""
        rel = self._relative(target)
        self.batch["entries"] = [e for e in self.batch["entries"] if e["path"] != rel]
        self._save()

    def _save(self) -> None:
        if not self._saved:
            self.data["batches"].append(self.batch)
            self._saved = True
        atomic_write_json(self.path, self.data)

    @property
    def touched(self) -> list[str]:
        return [e["path"] for e in self.batch["entries"]]


def _load(path: Path, session: str) -> dict[str, Any]:
    data = read_json_object(path)
    if not data:
        return {"version": JOURNAL_VERSION, "session": session, "batches": []}
    if not isinstance(data.get("batches"), list):
        raise CorruptFileError(path, "missing the 'batches' list")
    return data


class Writer:
    """Every store write of a batch goes through here, so a journal (if any) sees it first."""

    def __init__(self, journal: Journal | None = None) -> None:
        self.journal = journal

    def write(self, path: Path, data: str | bytes) -> None:
        payload = data.encode("utf-8") if isinstance(data, str) else data
        if self.journal is not None:
            self.journal.record(path, payload)
        atomic_write(path, payload)

    def create(self, path: Path, data: str | bytes) -> bool:
        """Exclusive create; False (nothing recorded) when the file already exists."""
        payload = data.encode("utf-8") if isinstance(data, str) else data
        if os.path.lexists(path):
            return False
        if self.journal is not None:
            self.journal.record(path, payload)
        if create_exclusive(path, payload):
            return True
        if self.journal is not None:
            self.journal.forget(path)
        return False

    def delete(self, path: Path) -> None:
        if self.journal is not None:
            self.journal.record(path, None)
        with contextlib.suppress(FileNotFoundError):
            path.unlink()


@dataclass
class UndoReport:
    session: str
    restored: list[str] = field(default_factory=list)  # files put back to their prior bytes
    deleted: list[str] = field(default_factory=list)  # files the review had created
    unchanged: list[str] = field(default_factory=list)  # already in their prior state
    forced: list[str] = field(default_factory=list)  # changed since the review, overwritten


def _plan_undo(data: dict[str, Any], root: Path, where: Path) -> tuple[dict[str, bytes | None], list[str], list[str]]:
    """Target bytes per path, paths whose current bytes differ from the journal, paths already reverted."""
    current: dict[str, bytes | None] = {}
    conflicts: list[str] = []
    already: list[str] = []
    for batch in reversed(data["batches"]):
        if batch.get("undone_at"):
            continue
        for entry in reversed(batch.get("entries", [])):
            rel = entry["path"]
            if rel not in current:
                current[rel] = _read_bytes(root / rel)
            prior = _decode(entry.get("prior"), where)
            now = _sha(current[rel])
            if now == entry.get("after_sha256"):
                pass
            elif now == _sha(prior):
                already.append(rel)  # crashed before the write, or reverted by hand
            elif rel not in conflicts:
                conflicts.append(rel)
            current[rel] = prior
    return current, conflicts, already


def undo_journal(paths: ProjectPaths, session: str, force: bool = False) -> UndoReport:
    """Revert every not-yet-undone batch of `session`. Call under the project lock."""
    path = journal_path(paths, session)
    if not path.exists():
        raise OmpError(
            f"nothing to undo for session {session}: no journal at {path}",
            "list reviewed sessions in .omp/memory-review/journal/",
        )
    data = _load(path, session)
    if all(batch.get("undone_at") for batch in data["batches"]):
        raise OmpError(f"the review of session {session} was already undone", None)
    targets, conflicts, already = _plan_undo(data, paths.root, path)
    if conflicts and not force:
        raise OmpError(
            f"cannot undo session {session}: changed since that review: " + ", ".join(conflicts),
            f"check those files, then run: omp memory-review undo {session} --force (overwrites them)",
        )
    report = UndoReport(session=session, unchanged=sorted(set(already) - set(conflicts)), forced=conflicts)
    for rel, prior in targets.items():
        target = paths.root / rel
        if _read_bytes(target) == prior:
            continue
        if prior is None:
            target.unlink(missing_ok=True)
            _remove_empty_parents(target.parent, paths.state)
            report.deleted.append(rel)
        else:
            atomic_write(target, prior)
            report.restored.append(rel)
    stamp = utc_now()
    for batch in data["batches"]:
        batch["undone_at"] = batch.get("undone_at") or stamp
    atomic_write_json(path, data)
    return report


def cleanup_journals(paths: ProjectPaths, max_age_days: int = JOURNAL_RETENTION_DAYS) -> int:
    """Delete journals not written for `max_age_days` (SPEC §7.4); returns how many."""
    import time

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


def _remove_empty_parents(folder: Path, stop: Path) -> None:
    # A created draft lives in its own folder; leave no empty folder behind, never above R/.omp.
    while folder != stop and stop in folder.parents:
        try:
            folder.rmdir()
        except OSError:
            return
        folder = folder.parent


__all__ = ["Journal", "UndoReport", "Writer", "cleanup_journals", "journal_path", "undo_journal", "utc_now"]
