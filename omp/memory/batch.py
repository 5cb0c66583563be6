"""`MemoryBatch`: the project's memory stores, read under the project lock, and the methods that
change them (docs/behaviour.md#what-gets-written, docs/behaviour.md#project-memory-and-the-managed-block). Open one with `omp.memory.store.memory_batch`, never directly.

Each proposal gets an `ItemResult`: written, duplicate (of what), or rejected (why, with its
`RejectionCode`). Proposed text is neutralised (one line, no list syntax, no comment markers)
and refused if it carries a secret or an injection pattern (`omp.memory.neutralise`). Every
write goes through `self.writer`, which journals it first when a review opened the batch.
"""

from __future__ import annotations

import contextlib
import sqlite3
from dataclasses import dataclass, field
from typing import Any, Callable, Literal

from omp import config, trust
from omp.core.files import read_regular
from omp.errors import OmpError
from omp.fsio import CorruptFileError, append_jsonl, atomic_write, read_text
from omp.memory import dedupe
from omp.memory import directives as dirs
from omp.memory import drafts as drafts_mod
from omp.memory import notes as notes_mod
from omp.memory.directives import Decision, Directive, PendingItem
from omp.memory.drafts import Draft
from omp.memory.items import (
    DirectiveProposal,
    DraftProposal,
    ItemKind,
    ItemResult,
    NoteProposal,
    RejectionCode,
)
from omp.memory.journal import Writer, utc_now
from omp.memory.neutralise import (
    injection_reason,
    neutralise_body,
    neutralise_directive,
    neutralise_line,
    neutralise_title,
    secret_reason,
)
from omp.memory.note_catalog import NoteIndex, NoteSummary, catalog, open_index
from omp.paths import GlobalPaths, ProjectPaths
from omp.project import global_lock

Scope = Literal["project", "global"]

# Hard limits on what a batch accepts (the review validates tighter ones, docs/reviewer-answer-schema.md); they keep a
# hand-made or buggy call from writing absurd items.
MAX_DIRECTIVE = 2000
MAX_TITLE = 300
MAX_BODY = 20000


# ---------------------------------------------------------------------------------------------
# What opening the batch did


@dataclass
class Housekeeping:
    """What opening the batch did on its own (reported by the CLI, logged by the review)."""

    migrated: dict[str, int] = field(default_factory=dict)
    promoted_ticked: list[str] = field(default_factory=list)
    dismissed_deleted: list[str] = field(default_factory=list)
    adopted: list[str] = field(default_factory=list)  # lines a human added to the checklist
    expired: list[str] = field(default_factory=list)
    # Ticked items not promoted, because project-memory.json is not trusted (omp.trust): they
    # stay pending, unticked, until the user has run `omp trust` and promotes them.
    held_ticked: list[str] = field(default_factory=list)
    ticked_not_queued: list[str] = field(default_factory=list)  # ticked, but never queued by omp here

    @property
    def changed_active(self) -> bool:
        """Did it change what the managed block shows (so the block needs a refresh)?"""
        return bool(self.migrated or self.promoted_ticked)


# ---------------------------------------------------------------------------------------------
# The batch


class MemoryBatch:
    """The stores, read under the lock, with methods that change them. See the module doc."""

    def __init__(self, paths: ProjectPaths, global_paths: GlobalPaths | None = None) -> None:
        self.paths = paths
        self.global_paths = global_paths or GlobalPaths.current()
        self.settings: dict[str, Any] = {k: s.value for k, s in config.resolve(paths, self.global_paths).items()}
        self._writers: list[Writer] = []
        self.writer = Writer(within=paths.root)  # replaced by a journaling writer for a review's proposals
        self.housekeeping = Housekeeping()
        # The bytes the active directives were parsed from: a write is allowed only while the
        # file still holds them and they are trusted (`save_directives`).
        self.directives_raw: bytes | None = _read_active(paths.directives)
        self.directives: list[Directive] = dirs.parse_directives(paths.directives, self.directives_raw)
        self.global_directives: list[Directive] = dirs.read_directives(self.global_paths.directives)
        # The notes are many (20,000 in a year): a review or an `add-note` asks the note index
        # (omp.memory.note_catalog) what it needs; the whole list is read only when a command
        # works on every note (forget, prune), through `notes`.
        self._notes: list[NoteSummary] | None = None
        self._closing = contextlib.ExitStack()
        self._folds: dict[str, tuple[str, frozenset[str]]] = {}  # what the dedupe indexes have folded (`_index`)
        # Opened now: a note added since the index last saw the folder is read (and a corrupt one
        # named, CorruptFileError) before a review spends a model call.
        self._note_index: NoteIndex | None = self._closing.enter_context(open_index(paths.root))
        with contextlib.suppress(OSError, sqlite3.Error):  # a leftover that stays is swept next time
            self._note_index.sweep_leftovers()  # under the project lock, as omp's other leftovers
        self.drafts: list[Draft] = drafts_mod.list_drafts(paths.drafts)
        decisions = list(dirs.iter_decisions(paths.decisions))
        self.tombstones: list[Decision] = [d for d in decisions if d.status in dirs.TOMBSTONE_STATUSES]
        self.decided = {(d.kind, dedupe.fold(d.text)) for d in decisions}
        self.checklist_text: str | None = read_text(paths.pending_md)
        self.pending_metadata: list[PendingItem] = dirs.read_pending_metadata(paths.pending_json)
        self.pending: list[PendingItem] = []

    # -- reading -------------------------------------------------------------------------------

    @property
    def notes(self) -> list[NoteSummary]:
        """Every note, newest first (read once per batch, when a command needs them all)."""
        if self._notes is None:
            self._notes = catalog(self.paths.root)
        return self._notes

    @notes.setter
    def notes(self, value: list[NoteSummary]) -> None:
        self._notes = value

    @property
    def note_index(self) -> NoteIndex:
        """The note index, opened once for the batch (closed by `close`)."""
        if self._note_index is None:
            self._note_index = self._closing.enter_context(open_index(self.paths.root))
        return self._note_index

    @property
    def writer(self) -> Writer:
        return self._writers[-1]

    @writer.setter
    def writer(self, value: Writer) -> None:
        self._writers.append(value)  # each one's writes are told to the note index on close

    def close(self) -> None:
        """Tell the note index what this batch wrote in the notes folder, and close it."""
        if self._note_index is not None:
            touched = {path for writer in self._writers for path in writer.touched if path.parent == self.paths.notes}
            with contextlib.suppress(sqlite3.Error, OSError, OmpError):  # the next reader checks the folder
                self._note_index.record_own_changes(sorted(touched))
        self._closing.close()
        self._note_index = None

    def _duplicate_note(self, title: str) -> str | None:
        note = self.note_index.duplicate_of(title)
        return f"note {note.id}: {note.title}" if note is not None else None

    def _index(self, group: Literal["add", "forget"]) -> dedupe.DedupeIndex:
        index = dedupe.DedupeIndex(folds=self._folds)
        if group == "forget":
            for item in self.pending:
                if item.kind == "forget":
                    index.add(f"pending removal proposal: {item.text}", item.text)
            for tomb in self.tombstones:
                if tomb.kind == "forget":
                    index.add(f"dismissed removal proposal: {tomb.text}", tomb.text)
            return index
        for d in self.directives:
            index.add(f"active directive: {d.text}", d.text)
        for d in self.global_directives:
            index.add(f"active global directive: {d.text}", d.text)
        for item in self.pending:
            if item.kind == "add":
                index.add(f"pending directive: {item.text}", item.text)
        index.add_lookup(self._duplicate_note)
        for draft in self.drafts:
            if draft.description:
                index.add(f"skill draft {draft.slug}: {draft.description}", draft.description)
        for tomb in self.tombstones:
            if tomb.kind != "forget":
                index.add(f"{tomb.status} item: {tomb.text}", tomb.text)
        return index

    def is_active(self, item: PendingItem, scope: Scope = "project") -> bool:
        pool = self.global_directives if scope == "global" else self.directives
        return item.kind == "add" and any(dedupe.is_duplicate(d.text, item.text) for d in pool)

    # -- proposals (the review pipeline) --------------------------------------------------------

    def propose_directives(self, proposals: list[DirectiveProposal]) -> list[ItemResult]:
        """Queue directives and removal proposals for a human (never active on their own)."""
        results: list[ItemResult] = []
        indexes = {"add": self._index("add"), "forget": self._index("forget")}
        added: list[PendingItem] = []
        restored = False
        for proposal in proposals:
            rule = ItemKind(proposal.kind)  # DIRECTIVE or FORGET (DirectiveProposal checks)
            kind = rule.pending_kind
            text = neutralise_directive(proposal.text) if kind == "add" else _forget_target(proposal.text)
            refusal = _empty_or_long(text, MAX_DIRECTIVE) or _unsafe(proposal.text) or _secret(proposal.evidence)
            if refusal:
                results.append(ItemResult(rule, text, "rejected", refusal[1], code=refusal[0]))
                continue
            item = PendingItem(kind, text, utc_now(), proposal.session, _evidence(proposal.evidence))
            if self._restore_provenance(item):
                restored = True
                results.append(ItemResult(rule, text, "written", None, None, self._rel(self.paths.pending_md)))
                continue
            duplicate = indexes[kind].find(text)
            if duplicate:
                results.append(ItemResult(rule, text, "duplicate", f"duplicate of {duplicate}"))
                continue
            added.append(item)
            indexes[kind].add(f"pending {'removal proposal' if kind == 'forget' else 'directive'}: {text}", text)
            results.append(ItemResult(rule, text, "written", None, str(len(self.pending) + len(added)), self._rel(self.paths.pending_md)))
        if added:
            self.writer.note_pending([item.key for item in added])
            self.pending.extend(added)
        if added or restored:
            self.save_pending()
        return results

    def _restore_provenance(self, item: PendingItem) -> bool:
        """A review killed between writing the checklist and `pending.json` leaves its line
        adopted without a session; when the retried review proposes the very same text, the
        line gets its session and evidence back instead of being called a duplicate."""
        if item.session is None:
            return False
        for index, existing in enumerate(self.pending):
            if existing.key == item.key and existing.session is None:
                self.pending[index] = PendingItem(item.kind, item.text, existing.proposed_at, item.session, item.evidence)
                return True
        return False

    def propose_notes(self, proposals: list[NoteProposal]) -> list[ItemResult]:
        """Queue notes for a human: facts a review found outside the user's words (a web page, a
        network command's output, the assistant), which the note gate does not apply at once
        (docs/behaviour.md#what-gets-written). Checked as a note is, then kept with their body and source; a note
        dismissed before (a tombstone) or already known is never queued again."""
        results: list[ItemResult] = []
        index = self._index("add")
        for item in self.pending:
            if item.kind == "note":
                index.add(f"pending note: {item.text}", item.text)
        added: list[PendingItem] = []
        for proposal in proposals:
            title, body, refusal = _note_as_stored(proposal, check_injection=True)
            turned_away = _note_turned_away(title, refusal, index)
            if turned_away:
                results.append(turned_away)
                continue
            source = neutralise_line(proposal.source or "")[:300] or None
            added.append(PendingItem("note", title, utc_now(), proposal.session, _evidence(proposal.evidence), body, source))
            index.add(f"pending note: {title}", title)
            results.append(ItemResult(ItemKind.NOTE, title, "proposed", source, str(len(self.pending) + len(added)),
                                      self._rel(self.paths.pending_md)))
        if added:
            self.writer.note_pending([item.key for item in added])
            self.pending.extend(added)
            self.save_pending()
        return results

    def add_notes(self, proposals: list[NoteProposal], by_hand: bool = False) -> list[ItemResult]:
        """Write notes at once (notes are facts, not rules: no approval needed).

        `by_hand`: a human's `add-note`, checked for secrets but not for injection, and compared
        only with other notes.
        """
        results: list[ItemResult] = []
        index = self._index("add") if not by_hand else dedupe.DedupeIndex()
        if by_hand:
            index.add_lookup(self._duplicate_note)
        for proposal in proposals:
            title, body, refusal = _note_as_stored(proposal, check_injection=not by_hand)
            turned_away = _note_turned_away(title, refusal, index)
            if turned_away:
                results.append(turned_away)
                continue
            path = notes_mod.create_note(
                self.writer, self.paths.notes, title, body, utc_now(), proposal.session, _evidence(proposal.evidence)
            )
            note = notes_mod.read_note(path)
            self._notes = None  # read again when asked for
            index.add(f"note {note.id}: {title}", title)
            results.append(ItemResult(ItemKind.NOTE, title, "written", None, note.id, self._rel(path)))
        return results

    def add_drafts(self, proposals: list[DraftProposal]) -> list[ItemResult]:
        """Write skill drafts (Copilot never loads them until a human promotes one)."""
        results: list[ItemResult] = []
        descriptions = dedupe.DedupeIndex()
        for draft in self.drafts:
            descriptions.add(f"skill draft {draft.slug}", draft.description)
        for proposal in proposals:
            slug = notes_mod.slugify(proposal.slug, fallback="")[: drafts_mod.MAX_SLUG].strip("-")
            description = neutralise_line(proposal.description)[: drafts_mod.MAX_DESCRIPTION]
            body = neutralise_body(proposal.body or "")
            refusal = (
                _refuse(not drafts_mod.SLUG_RE.match(slug), RejectionCode.BAD_SLUG, "no usable slug")
                or _refuse(not description, RejectionCode.EMPTY, "empty description")
                or _refuse(not body.strip(), RejectionCode.EMPTY, "empty body")
                or _unsafe(proposal.description, proposal.body)
                or _secret(proposal.evidence)
            )
            if refusal:
                results.append(ItemResult(ItemKind.SKILL_DRAFT, slug or proposal.slug, "rejected", refusal[1], code=refusal[0]))
                continue
            duplicate = self._draft_duplicate(slug) or descriptions.find(description)
            if duplicate:
                results.append(ItemResult(ItemKind.SKILL_DRAFT, slug, "duplicate", f"duplicate of {duplicate}", slug))
                continue
            path = drafts_mod.create_draft(
                self.writer, self.paths.drafts, slug, description, body, proposal.session, _evidence(proposal.evidence)
            )
            if path is None:
                results.append(ItemResult(ItemKind.SKILL_DRAFT, slug, "duplicate", f"duplicate of skill draft {slug}", slug))
                continue
            self.drafts.append(drafts_mod.read_draft(path))
            descriptions.add(f"skill draft {slug}", description)
            results.append(ItemResult(ItemKind.SKILL_DRAFT, slug, "written", None, slug, self._rel(path)))
        return results

    def _draft_duplicate(self, slug: str) -> str | None:
        if any(d.slug == slug for d in self.drafts) or (self.paths.drafts / slug).exists():
            return f"skill draft {slug}"
        if (self.paths.skills / slug).exists():
            return f"skill .github/skills/{slug}"
        return None

    def auto_prune(self) -> list[NoteSummary]:
        """Apply `memory-note-auto-keep` (0 = never): delete all but the newest N notes."""
        keep = int(self.settings.get("memory-note-auto-keep") or 0)
        return self.prune_notes(keep=keep) if keep > 0 else []

    def prune_notes(self, keep: int | None = None, older_than_days: int | None = None) -> list[NoteSummary]:
        doomed = notes_mod.notes_to_prune(self.notes, keep, older_than_days)
        for note in doomed:
            self.writer.delete(note.path)
        self.notes = [n for n in self.notes if n not in doomed]
        return doomed

    # -- decisions (human acts: omp.memory.promotion, omp.memory.manage) -----------------------

    def update_global(self, edit: Callable[[list[Directive]], list[Directive]]) -> None:
        """Read-modify-write `G/directives.json` under the global lock (taken after ours)."""
        with global_lock(self.global_paths):
            current = dirs.read_directives(self.global_paths.directives)
            updated = edit(list(current))
            if updated != current:
                # Only humans change global directives, never a review: not journaled.
                atomic_write(self.global_paths.directives, dirs.render_directives(updated))
            self.global_directives = updated

    def decide(
        self, item: PendingItem, status: str, reason: str | None, scope: Scope = "project", kind: str | None = None
    ) -> None:
        """Append to decisions.jsonl; rejected and expired items become tombstones."""
        decision = Decision(utc_now(), item.text, status, reason, item.session, kind or item.kind)
        record = decision.to_json()
        if scope == "global":
            record["scope"] = "global"
        append_jsonl(self.paths.decisions, record, within=self.paths.root)
        self.decided.add((decision.kind, dedupe.fold(item.text)))
        if status in ("rejected", "expired"):
            self.tombstones.append(decision)

    # -- writing -------------------------------------------------------------------------------

    def save_pending(self) -> None:
        """Checklist first, then metadata: a crash between them leaves a line without metadata,
        which the next open adopts, never metadata without a line (which would read as a dismissal)."""
        checklist = self._edited_checklist()
        self.writer.write(self.paths.pending_md, checklist)
        self.checklist_text = checklist
        self.writer.write(self.paths.pending_json, dirs.render_pending_metadata(self.pending))
        self.pending_metadata = list(self.pending)
        # What omp queued here: only these may be approved by a tick (omp.trust.queued_here).
        trust.record_queued(self.paths, [p.key for p in self.pending], self.global_paths, held=self.paths.lock)

    def _edited_checklist(self) -> str:
        """The checklist with closed items' lines removed and new items appended.

        Everything else a human wrote (prose, headings, blank lines) is kept as it was.
        """
        if self.checklist_text is None:
            return dirs.render_checklist(self.pending)
        open_keys = {p.key for p in self.pending}
        kept: list[str] = []
        present: set[tuple[str, str]] = set()
        for raw in self.checklist_text.splitlines():
            parsed = dirs.parse_checklist(raw)
            if parsed:
                line = parsed[0]
                key = (line.kind, line.text)
                if line.ticked or key not in open_keys or key in present:
                    continue
                present.add(key)
            kept.append(raw)
        kept.extend(f"- [ ] {p.label}" for p in self.pending if p.key not in present)
        return "\n".join(kept) + "\n"

    def check_directives_writable(self) -> None:
        """Raise trust.DirectivesNotTrusted unless the active directives file may be rewritten:
        it is absent, or holds the trusted bytes this batch read. Every command that changes
        (or answers from) the project's directives calls it before changing anything."""
        trust.refuse_directives_write(self.paths, self.directives_raw, self.global_paths)

    def directives_writable(self) -> bool:
        try:
            self.check_directives_writable()
        except trust.DirectivesNotTrusted:
            return False
        return True

    def save_directives(self) -> None:
        # Recording the bytes written as trusted is safe only when what they were built from was
        # trusted: rewriting a committed or pulled file would launder every entry in it (docs/trust.md#a-repository-never-chooses-what-runs).
        self.check_directives_writable()
        text = dirs.render_directives(self.directives)
        self.writer.write(self.paths.directives, text)
        # The bytes omp wrote are the ones its block shows (omp.trust): a file a repository
        # committed is not (docs/trust.md#a-repository-never-chooses-what-runs's rule, for the rules every session is told to follow).
        trust.record_directives(self.paths, text.encode("utf-8"), self.global_paths, held=self.paths.lock)
        self.directives_raw = text.encode("utf-8")

    def _rel(self, path: Any) -> str:
        try:
            return path.relative_to(self.paths.root).as_posix()
        except ValueError:
            return str(path)


# ---------------------------------------------------------------------------------------------
# Helpers


def _read_active(path: Any) -> bytes | None:
    """The active directives file's bytes (None when absent); not a regular file: CorruptFileError."""
    try:
        return read_regular(path)
    except OSError as exc:
        raise CorruptFileError(path, "not a regular file") from exc


def _forget_target(text: str) -> str:
    line = neutralise_line(text)
    while line.lower().startswith("forget:"):
        line = line[len("forget:") :].strip()
    return line


# Why a proposal is refused: the code, and the sentence a person reads.
Refusal = tuple[RejectionCode, str]


def _refuse(refused: bool, code: RejectionCode, reason: str) -> Refusal | None:
    return (code, reason) if refused else None


def _empty_or_long(text: str, limit: int) -> Refusal | None:
    if not text:
        return RejectionCode.EMPTY, "empty after neutralising"
    if len(text) > limit:
        return RejectionCode.TOO_LONG, f"longer than {limit} characters"
    return None


def _secret(*texts: str | None) -> Refusal | None:
    reason = secret_reason(*texts)
    return (RejectionCode.SECRET, reason) if reason else None


def _unsafe(*texts: str | None, check_injection: bool = True) -> Refusal | None:
    """A secret first, then an injection pattern (`neutralise.rejection_reason`'s order)."""
    found = _secret(*texts)
    if found or not check_injection:
        return found
    reason = injection_reason(*texts)
    return (RejectionCode.INJECTION, reason) if reason else None


def _note_as_stored(proposal: NoteProposal, check_injection: bool) -> tuple[str, str, Refusal | None]:
    """A note's title and body as the store would write them (one line, hidden Markdown removed,
    docs/behaviour.md#what-gets-written), and why it is refused, if it is: the same checks whether it is written at once
    or proposed for a human."""
    title = neutralise_title(proposal.title)
    body = neutralise_body(proposal.body or "")
    refusal = (
        _empty_or_long(title, MAX_TITLE)
        or _refuse(len(body) > MAX_BODY, RejectionCode.TOO_LONG, f"body longer than {MAX_BODY} characters")
        or _unsafe(proposal.title, proposal.body, check_injection=check_injection)
        or _secret(proposal.evidence)
    )
    return title, body, refusal


def _note_turned_away(title: str, refusal: Refusal | None, index: dedupe.DedupeIndex) -> ItemResult | None:
    """A note's result when it is refused or already known, else None (applied or proposed alike)."""
    if refusal:
        return ItemResult(ItemKind.NOTE, title, "rejected", refusal[1], code=refusal[0])
    duplicate = index.find(title)
    return ItemResult(ItemKind.NOTE, title, "duplicate", f"duplicate of {duplicate}") if duplicate else None


def _evidence(text: str | None) -> str | None:
    return neutralise_line(text)[:2000] if text else None
