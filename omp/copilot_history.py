"""Keeping omp's reviewer sessions out of the user's Copilot history (docs/reviewers.md, COPILOT.md §7).

A `copilot` reviewer call is a real Copilot session: the CLI records it in
`C/session-state/<id>/` and indexes it in `C/session-store.db` (SQLite). Left there, `copilot
--continue` resumes omp's review instead of the user's last session, `/resume` lists one entry
per review, and `/chronicle improve` and session search read the review prompt (the user's
transcript) as if the user had typed it.

So the reviewer is started with a session id omp chose (`--session-id <uuid>`), and afterwards
`forget_session` removes exactly that session from the Copilot home the reviewer process ran with
(`copilot_home_of` its environment): its folder, and its rows in every table of the
store that is keyed by a session (`sessions.id`, and `session_id` in `turns`, `checkpoints`,
`session_files`, the full-text `search_index`, …). The tables are found by their columns, not
listed by name, so a newer CLI that adds one is handled too.

A review of a session kept in a throwaway Copilot home (`omp eval`, `omp demo`) still needs the
user's Copilot login, which lives in the user's Copilot home. Such a run names that home in
`OMP_REVIEWER_COPILOT_HOME` (empty: the user sets no COPILOT_HOME); `use_reviewer_home` makes it
the reviewer's COPILOT_HOME, so the reviewer's session is written where it is then forgotten.
(Before, a shell wrapper switched the home behind omp's back, and every case's reviewer session
stayed in the user's history.)

Careful by design:
- only a UUID omp generated is ever acted on, and only inside `C/session-state`;
- the database is touched only if it already exists (never created), inside one transaction,
  waiting a few seconds for a lock the user's own running Copilot may hold; if it stays locked
  or does not parse, nothing in it changes and the id is kept in `G/state/forget-sessions.txt`,
  so the next reviewer call tries again.
"""

from __future__ import annotations

import shutil
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Mapping

from omp.core import layout
from omp.fsio import atomic_write
from omp.lazyre import lazy
from omp.sessions.discovery import is_reviewer_cwd, session_info

if TYPE_CHECKING:  # sqlite3 (~5 ms) is imported where a store is opened: after a copilot reviewer ran, not before
    import sqlite3

STORE_NAME = "session-store.db"
LEFT_OVER_FILE = "forget-sessions.txt"
LOCK_WAIT_SECONDS = 5.0
LEFT_OVER_CAP = 200
REVIEWER_HOME_VAR = "OMP_REVIEWER_COPILOT_HOME"
_UUID = lazy(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")


@dataclass(frozen=True)
class Forgotten:
    """What `forget_session` removed (for logs and tests)."""

    session: str
    folder_removed: bool
    rows_removed: int
    store_error: str | None = None  # why the database was left as it was


def new_session_id() -> str:
    return str(uuid.uuid4())


def copilot_home_of(env: Mapping[str, str]) -> Path:
    """`C` as the reviewer process saw it (its own COPILOT_HOME / HOME)."""
    return Path(layout.copilot_home(env))


def use_reviewer_home(env: dict[str, str]) -> None:
    """Give the reviewer the Copilot home a throwaway run named (`REVIEWER_HOME_VAR`), in place.

    The variable itself never reaches the reviewer; without it `env` is left as it is."""
    home = env.pop(REVIEWER_HOME_VAR, None)
    if home is None:
        return
    if home:
        env["COPILOT_HOME"] = home
    else:
        env.pop("COPILOT_HOME", None)  # the user has none set: Copilot's own default, ~/.copilot


def _session_tables(db: sqlite3.Connection) -> list[tuple[str, str]]:
    """(table, column) pairs that hold one row per session or per session's item.

    FTS shadow tables (`search_index_content`, …) are skipped: deleting from the virtual table
    keeps them consistent, touching them directly would corrupt the index.
    """
    rows = db.execute("SELECT name, sql FROM sqlite_master WHERE type = 'table'").fetchall()
    virtual = [name for name, sql in rows if (sql or "").upper().startswith("CREATE VIRTUAL TABLE")]
    found: list[tuple[str, str]] = []
    for name, _ in rows:
        if name.startswith("sqlite_") or any(name.startswith(v + "_") for v in virtual):
            continue
        columns = {row[1] for row in db.execute(f'PRAGMA table_info("{name}")')}
        if "session_id" in columns:
            found.append((name, "session_id"))
        elif name == "sessions" and "id" in columns:
            found.append((name, "id"))
    return found


def _forget_rows(store: Path, session_ids: list[str]) -> tuple[int, str | None]:
    """Delete the sessions' rows in one transaction; (rows removed, error or None)."""
    if not store.is_file() or store.is_symlink():
        return 0, None
    import sqlite3  # only a history with a session store needs it (1.6 ms)

    try:
        db = sqlite3.connect(f"file:{store}?mode=rw", uri=True, timeout=LOCK_WAIT_SECONDS,
                             isolation_level=None)
    except sqlite3.Error as exc:
        return 0, f"{store}: {exc}"
    removed = 0
    try:
        db.execute("BEGIN IMMEDIATE")  # wait for (and then hold) the write lock before reading
        try:
            for table, column in _session_tables(db):
                marks = ",".join("?" for _ in session_ids)
                try:
                    cursor = db.execute(f'DELETE FROM "{table}" WHERE "{column}" IN ({marks})', session_ids)
                except sqlite3.OperationalError as exc:
                    if "no such module" in str(exc):  # an FTS module this Python lacks: skip it
                        continue
                    raise
                removed += max(cursor.rowcount, 0)
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
    except sqlite3.Error as exc:
        return 0, f"{store}: {exc}"
    finally:
        db.close()
    return removed, None


def _left_over_path(global_home: Path) -> Path:
    return global_home / "state" / LEFT_OVER_FILE


def _read_left_over(global_home: Path) -> list[str]:
    try:
        text = _left_over_path(global_home).read_text(encoding="utf-8")
    except OSError:
        return []
    return [line.strip() for line in text.splitlines() if _UUID.match(line.strip())]


def _write_left_over(global_home: Path, ids: list[str]) -> None:
    path = _left_over_path(global_home)
    try:
        if not ids:
            path.unlink(missing_ok=True)
            return
        # Capped: a store that stays unreadable must not grow this list for ever. Written as
        # every store is (a temp name the housekeeping sweep knows, if a kill leaves it).
        atomic_write(path, "".join(f"{i}\n" for i in sorted(set(ids))[-LEFT_OVER_CAP:]))
    except OSError:
        pass  # best effort: the worst case is one review left in the user's history


def _remove_folder(state: Path, session_id: str) -> bool:
    folder = state / session_id
    if folder.is_symlink() or not folder.is_dir():
        return False
    if folder.resolve().parent != state.resolve():
        return False
    shutil.rmtree(folder, ignore_errors=True)
    return not folder.exists()


def forget_session(copilot_home: Path, session_id: str, global_home: Path | None = None) -> Forgotten:
    """Remove the reviewer session `session_id` from `C` (folder and store rows). Never raises.

    Ids a previous call could not clear from the store (it was locked) are retried here too.
    """
    if not _UUID.match(session_id):
        return Forgotten(session_id, False, 0, "not a session id omp generated")
    folder_removed = _remove_folder(copilot_home / "session-state", session_id)
    earlier = _read_left_over(global_home) if global_home else []
    ids = sorted({session_id, *earlier})
    rows, error = _forget_rows(copilot_home / STORE_NAME, ids)
    if global_home is not None:
        for old in earlier:
            _remove_folder(copilot_home / "session-state", old)
        _write_left_over(global_home, ids if error else [])
    return Forgotten(session_id, folder_removed, rows, error)


def hand_over_left_over(throwaway_global: Path, copilot_home: Path, global_home: Path) -> None:
    """After a throwaway run (`omp eval`, `omp demo`): the reviewer sessions whose store rows it
    could not remove from the user's `copilot_home` (the user's own Copilot held the store
    locked) are tried again now, and any still there join `global_home`'s list, so the user's
    next reviewer call retries them. The throwaway run's own list goes with its folder."""
    for session_id in _read_left_over(throwaway_global):
        forget_session(copilot_home, session_id, global_home)


# ---------------------------------------------------------------------------------------------
# reviewer sessions an earlier omp left behind (before it chose and removed their ids)


def _store_reviewer_ids(store: Path) -> set[str]:
    """Ids in the store whose `sessions.cwd` is a reviewer's temporary folder (read-only)."""
    if not store.is_file():
        return set()
    import sqlite3  # only a history with a session store needs it (1.6 ms)

    try:
        db = sqlite3.connect(f"file:{store}?mode=ro", uri=True, timeout=LOCK_WAIT_SECONDS)
    except sqlite3.Error:
        return set()
    try:
        rows = db.execute("SELECT id, cwd FROM sessions").fetchall()
    except sqlite3.Error:
        return set()
    finally:
        db.close()
    return {str(sid) for sid, cwd in rows if _UUID.match(str(sid)) and is_reviewer_cwd(cwd)}


def reviewer_sessions(copilot_home: Path) -> list[str]:
    """omp's own reviewer sessions still in Copilot's history (session-state and the store)."""
    found = _store_reviewer_ids(copilot_home / STORE_NAME)
    state = copilot_home / "session-state"
    try:
        folders = [p for p in state.iterdir() if _UUID.match(p.name) and p.is_dir() and not p.is_symlink()]
    except OSError:
        folders = []
    for folder in folders:
        if folder.name not in found and session_info(folder).is_reviewer:
            found.add(folder.name)
    return sorted(found)


def forget_reviewer_sessions(copilot_home: Path, global_home: Path | None = None) -> list[Forgotten]:
    """Remove every reviewer session `reviewer_sessions` finds; what each removal did."""
    return [forget_session(copilot_home, sid, global_home) for sid in reviewer_sessions(copilot_home)]
