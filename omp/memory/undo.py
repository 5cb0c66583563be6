"""`omp memory-review undo SESSION`, item by item (docs/behaviour.md#the-review-run).

Undo takes back what the review(s) of one session added — its notes, its pending queue items,
its skill drafts — and puts back the notes it pruned (`memory-note-auto-keep`). It never
restores whole files, so nothing that happened since is lost:

- other reviews' notes, queue items and drafts are not touched (they are other items);
- an item of this review a human dismissed stays dismissed: the decision in `decisions.jsonl`
  is kept and the item does not come back to the queue;
- an item of this review a human promoted (a directive made active, a draft promoted to
  `.github/skills/`) is reported and left alone: that is the human's decision now, undone with
  `remove-directive` or by deleting the skill;
- a note or draft edited by hand since the review is reported and left alone, unless `force`
  (then it is removed like the others: the user asked for it after being told);
- an item already gone (forgotten, pruned, deleted by hand) is reported as gone.

Any review of the session can be undone, in any order; each batch is undone once.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from omp.core.settings import sha256_hex
from omp.errors import OmpError, UsageError
from omp.fsio import create_exclusive
from omp.memory import dedupe
from omp.memory import directives as dirs
from omp.memory.batch import MemoryBatch
from omp.memory.journal import (
    decode_prior,
    journal_path,
    load_journal,
    remove_empty_parents,
    save_journal,
    utc_now,
)
from omp.memory.store import memory_batch
from omp.paths import ProjectPaths, check_session_id

MIN_PREFIX = 7


@dataclass(frozen=True)
class Kept:
    item: str  # "note <id>", "pending: <text>", "draft <slug>"
    why: str


@dataclass(frozen=True)
class UndoReport:
    session: str
    removed: tuple[str, ...]  # items the review added, now taken out
    restored: tuple[str, ...]  # notes the review pruned, now back
    kept: tuple[Kept, ...]  # items of the review left alone, and why
    gone: tuple[str, ...]  # items of the review already removed by someone else
    old_journal: bool = False  # a version 1 journal (queue items found by session)


@dataclass
class _Plan:
    created: dict[str, str] = field(default_factory=dict)  # rel path -> sha256 the review left
    pruned: dict[str, bytes] = field(default_factory=dict)  # rel path -> bytes before the prune
    pending: list[tuple[str, str]] = field(default_factory=list)  # (kind, text) the review queued
    # A version 1 journal does not list queue items: they are the items `pending.json` says the
    # session proposed, minus those already queued before its first batch.
    by_session: bool = False
    queued_before: set[tuple[str, str]] = field(default_factory=set)


def find_journal(paths: ProjectPaths, session: str) -> tuple[str, Path]:
    """The session id and journal for a full id or a unique prefix of at least 7 characters."""
    check_session_id(session)
    exact = journal_path(paths, session)
    if exact.is_file():
        return session, exact
    try:
        names = sorted(n[: -len(".json")] for n in os.listdir(paths.journal) if n.endswith(".json"))
    except FileNotFoundError:
        names = []
    matches = [n for n in names if n.startswith(session)] if len(session) >= MIN_PREFIX else []
    if len(matches) == 1:
        return matches[0], journal_path(paths, matches[0])
    if len(matches) > 1:
        raise UsageError(
            f"session prefix {session!r} matches {len(matches)} reviewed sessions: " + ", ".join(matches[:5]),
            "give more characters of the session id",
        )
    raise OmpError(
        f"nothing to undo for session {session}: no review journal for it in {paths.journal}",
        "pass the full session id (or 7+ characters of it) of a session omp reviewed",
    )


def _read(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None


def _plan(batches: list[dict[str, Any]], where: Path) -> _Plan:
    """The net effect of the batches, oldest first: per file the first prior, the last after."""
    plan = _Plan()
    first_prior: dict[str, bytes | None] = {}
    last_after: dict[str, str | None] = {}
    for batch in batches:
        for entry in batch.get("entries", []):
            rel = entry["path"]
            if rel not in first_prior:
                first_prior[rel] = decode_prior(entry.get("prior"), where)
            last_after[rel] = entry.get("after_sha256")
        if "pending" not in batch:
            plan.by_session = True
        for item in batch.get("pending", []):
            key = (str(item["kind"]), str(item["text"]))
            if key not in plan.pending:
                plan.pending.append(key)
    for rel, prior in first_prior.items():
        after = last_after[rel]
        if prior is None and after is not None:
            plan.created[rel] = after
        elif prior is not None and after is None:
            plan.pruned[rel] = prior
        if plan.by_session and rel.endswith("memory-review/pending.json") and prior is not None:
            plan.queued_before = _keys_in_metadata(prior)
    return plan


def _keys_in_metadata(raw: bytes) -> set[tuple[str, str]]:
    try:
        items = json.loads(raw.decode("utf-8")).get("items", [])
        return {("forget" if i.get("kind") == "forget" else "add", i["text"]) for i in items if isinstance(i, dict)}
    except (ValueError, UnicodeDecodeError, AttributeError, KeyError, TypeError):
        return set()  # unreadable history: fall back to "everything the session proposed"


def _is_under(path: Path, folder: Path) -> bool:
    try:
        path.resolve().relative_to(folder.resolve())
    except (ValueError, OSError):
        return False
    return True


def undo_review(paths: ProjectPaths, session: str, force: bool = False) -> UndoReport:
    """Undo every not-yet-undone review batch of `session`. Call under the project lock."""
    session, path = find_journal(paths, session)
    data = load_journal(path, session)
    batches = [b for b in data["batches"] if isinstance(b, dict) and not b.get("undone_at")]
    if not batches:
        raise OmpError(f"the review of session {session} was already undone", None)
    plan = _plan(batches, path)
    removed: list[str] = []
    restored: list[str] = []
    kept: list[Kept] = []
    gone: list[str] = []
    with memory_batch(paths, lock_held=True) as batch:
        _undo_pending(batch, session, plan, removed, kept, gone)
        for rel, after in plan.created.items():
            target = paths.root / rel
            if _is_under(target, paths.notes):
                _undo_file(batch, target, after, f"note {target.stem}", force, removed, kept, gone)
            elif _is_under(target, paths.drafts) and target.name == "SKILL.md":
                label = f"draft {target.parent.name}"
                if _read(target) is None and (paths.skills / target.parent.name).exists():
                    kept.append(Kept(label, f"promoted to .github/skills/{target.parent.name}; left alone"))
                    continue
                if _undo_file(batch, target, after, label, force, removed, kept, gone):
                    remove_empty_parents(target.parent, paths.state)
        for rel, prior in plan.pruned.items():
            target = paths.root / rel
            if _is_under(target, paths.notes) and not os.path.lexists(target):
                if create_exclusive(target, prior, paths.root):
                    restored.append(f"note {target.stem}")
    stamp = utc_now()
    for item in batches:
        item["undone_at"] = stamp
    save_journal(paths, path, data)
    return UndoReport(session, tuple(removed), tuple(restored), tuple(kept), tuple(gone), plan.by_session)


def _undo_file(batch: MemoryBatch, target: Path, after: str, label: str, force: bool,
               removed: list[str], kept: list[Kept], gone: list[str]) -> bool:
    now = _read(target)
    if now is None:
        gone.append(label)
        return False
    if sha256_hex(now) != after and not force:
        kept.append(Kept(label, "edited by hand since the review; left alone (undo --force removes it)"))
        return False
    batch.writer.delete(target)
    removed.append(label)
    return True


def _undo_pending(batch: MemoryBatch, session: str, plan: _Plan, removed: list[str], kept: list[Kept],
                  gone: list[str]) -> None:
    keys = list(plan.pending)
    if plan.by_session:
        keys += [p.key for p in batch.pending
                 if p.session == session and p.key not in plan.queued_before and p.key not in keys]
    open_keys = {p.key for p in batch.pending}
    decisions = {(d.kind, dedupe.fold(d.text)): d for d in dirs.iter_decisions(batch.paths.decisions)}
    doomed: set[tuple[str, str]] = set()
    for kind, text in keys:
        label = f"pending: {'FORGET: ' if kind == 'forget' else ''}{text}"
        if (kind, text) in open_keys:
            doomed.add((kind, text))
            removed.append(label)
            continue
        decision = decisions.get((kind, dedupe.fold(text)))  # the latest decision on it
        if decision is not None and decision.status == "promoted":
            kept.append(Kept(label, "already promoted by a human; left alone "
                                    "(take it back with: omp project-memory remove-directive N)"))
        elif decision is not None:
            kept.append(Kept(label, f"{'dismissed' if decision.status == 'rejected' else decision.status}; stays so"))
        else:
            gone.append(label)
    if doomed:
        batch.pending = [p for p in batch.pending if p.key not in doomed]
        batch.save_pending()
