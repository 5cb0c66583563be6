"""The review run: `omp memory-review` (SPEC §5).

Order of work, for one session:

1. mode check (`memory-mode` off → skipped);
2. find the session; a session of omp's own reviewer is never reviewed;
3. cheap skips that spend no claim: already reviewed up to the end of its file, being reviewed
   by a live process, waiting in the retry queue, or trivial (fewer than
   `memory-review-min-messages` messages since the last review — counted while the explicit
   pass streams the user messages once) *and* without an explicit request; a trivial session
   with one is reviewed by the explicit pass alone: only the model call is skipped;
4. claim (exactly once, `omp.review.claim`);
5. packet (`omp.packet`), inside a prompt frame that lists what is already known;
6. explicit pass + reviewer call (`offline`: explicit pass only);
7. validate the answer and verify evidence (`omp.review.answer`); explicit requests win;
8. safety filter (`omp.review.filters`);
9. apply under ONE project-lock acquisition through the memory stores (`omp.memory.store`):
   notes written, directives and forget requests to the pending queue, drafts to the drafts
   folder, each write journaled first; `memory-note-auto-keep` prune; the claim is marked done
   in the same critical section, so a crash after the writes leaves the smallest possible
   window (and a re-review then finds only duplicates);
10. managed block refresh; ledger record (one per reviewer call, failures included) and one
    log line per outcome.

Failures: an unavailable reviewer is retryable (queued with backoff, claim released, exit 1
with the fix); an answer without a valid omp.review.v1 object is a failed review (claim
released, reason logged, exit 1). Nothing is written in either case.
"""

from __future__ import annotations

import collections
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable

from omp import config, trust
from omp.errors import OmpError, UsageError
from omp.fsio import CorruptFileError, OutsideProjectError
from omp.ledger import CallRecord, log_review, now_iso, record_call
from omp.paths import ProjectPaths, check_session_id
from omp.project import ensure_state_dir
from omp.review import claim as claims
from omp.review import queue
from omp.review.answer import Proposal, Rejection, answer_complete, find_answer, validate
from omp.review.explicit import ExplicitScan, merge, scan
from omp.review.filters import screen
from omp.review.prompt import KnownForPrompt, build_frame, transcript_budget
from omp.review.reviewers import BACKENDS, ReviewerConfig, ReviewerReply, ReviewerUnavailable, call_reviewer

HOUSEKEEPING_DAYS = 90
_DAY = 86400.0


@dataclass(frozen=True)
class ReviewRequest:
    session: str = "latest"
    model: str | None = None
    reviewer: str | None = None
    force: bool = False


@dataclass
class ReviewOutcome:
    """What one review did. `to_json()` is the `--json` object of SPEC §5."""

    ran: bool
    reason: str | None
    session: str | None
    summary: dict[str, Any] = field(default_factory=dict)
    rejected: list[dict[str, Any]] = field(default_factory=list)
    tokens: dict[str, Any] = field(default_factory=dict)
    failed: bool = False
    hint: str | None = None

    @property
    def exit_code(self) -> int:
        return 1 if self.failed else 0

    @property
    def status(self) -> str:
        return "failed" if self.failed else ("ran" if self.ran else "skipped")

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "ran": self.ran,
            "reason": self.reason,
            "session": self.session,
            "summary": self.summary,
            "rejected": self.rejected,
            "tokens": self.tokens,
        }
        if self.hint:
            data["hint"] = self.hint
        return data


@dataclass
class SweepResult:
    outcomes: list[ReviewOutcome] = field(default_factory=list)
    skipped: dict[str, int] = field(default_factory=dict)  # quiet skips by reason
    cleaned: dict[str, int] = field(default_factory=dict)
    backing_off: int = 0  # queued sessions not yet due (retried with --force)
    next_retry_at: float | None = None  # the earliest of their retry times
    older: int = 0  # sessions that ended before memory mode was turned on (reviewed with --all)
    memory_on_since: float | None = None

    @property
    def exit_code(self) -> int:
        return 1 if any(o.failed for o in self.outcomes) else 0

    def to_json(self) -> dict[str, Any]:
        return {
            "sweep": True,
            "reviewed": sum(1 for o in self.outcomes if o.ran),
            "failed": sum(1 for o in self.outcomes if o.failed),
            "skipped": self.skipped,
            "cleaned": self.cleaned,
            "backing_off": self.backing_off,
            "next_retry_at": self.next_retry_at,
            "older": self.older,
            "memory_on_since": self.memory_on_since,
            "outcomes": [o.to_json() for o in self.outcomes],
        }


@dataclass(frozen=True)
class _Context:
    paths: ProjectPaths
    settings: dict[str, Any]
    backend: str
    model: str
    force: bool  # re-review a session already done
    ignore_backoff: bool  # retry a queued session before its next-try time

    @property
    def timeout(self) -> float:
        return float(self.settings["memory-review-timeout"])

    @property
    def budget(self) -> int:
        return int(self.settings["memory-review-max-input-tokens"])


# ---------------------------------------------------------------------------------------------
# small helpers


def _safe(text: str | None) -> str | None:
    """Never let a secret reach a log line or the terminal (reviewer stderr can hold one)."""
    if not text:
        return text
    from omp.safety import redact

    return redact(text)[0]


def _context(paths: ProjectPaths, request: ReviewRequest) -> _Context:
    settings = {name: s.value for name, s in config.resolve(paths).items()}
    backend = (request.reviewer or settings["memory-reviewer"]).strip().lower()
    if backend not in BACKENDS:
        raise UsageError(f"unknown reviewer {backend!r}", "choose one of: " + ", ".join(BACKENDS))
    model = request.model or settings["memory-review-model"]
    if request.model is not None:
        model = config.parse_value(config.KEYS["memory-review-model"], request.model)
    return _Context(paths, settings, backend, model, request.force, request.force)


def _log(ctx_paths: ProjectPaths, outcome: ReviewOutcome, **extra: Any) -> None:
    entry: dict[str, Any] = {
        "session": outcome.session,
        "outcome": outcome.status,
        "reason": _safe(outcome.reason),
    }
    if outcome.hint:
        entry["hint"] = outcome.hint
    if outcome.summary:
        entry["summary"] = {k: v for k, v in outcome.summary.items() if k != "items"}
    if outcome.rejected:
        entry["rejected"] = [r["reason"] for r in outcome.rejected]
    if outcome.tokens:
        entry["tokens"] = outcome.tokens
    ignored = trust.ignored_notice(ctx_paths)
    if ignored:  # the run (or skip) happened without the project's own settings: say so
        entry["project_config"] = ignored
    entry.update(extra)
    try:
        log_review(ctx_paths, entry)
    except (OSError, OutsideProjectError):
        pass  # a log that cannot be written (or only outside the project) must not fail the review


def _skip(ctx: _Context | None, paths: ProjectPaths, session: str | None, reason: str, log: bool = True) -> ReviewOutcome:
    outcome = ReviewOutcome(False, reason, session)
    if log and paths.state.is_dir():
        # A skip never creates R/.omp: a project where omp is off stays untouched.
        _log(paths, outcome, **({"backend": ctx.backend} if ctx else {}))
    return outcome


def _mode_off(paths: ProjectPaths) -> str:
    """The skip reason; it names an ignored (untrusted) project config and its fix (SPEC §3.1)."""
    ignored = trust.ignored_notice(paths)
    return "memory-mode off" + (f"; {ignored}" if ignored else "")


def _scan(events: Path, cursor: int) -> tuple[ExplicitScan, int]:
    """Stream the messages since `cursor` once: count them and run the explicit pass."""
    from omp.sessions import SessionReader

    reader = SessionReader(events, cursor)
    result = scan(reader.iter_messages())
    return result, reader.end_offset


def _file_size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


# ---------------------------------------------------------------------------------------------
# one session


def review_session(paths: ProjectPaths, request: ReviewRequest) -> ReviewOutcome:
    """Review one session (SPEC §5). Never raises for a review failure: see `outcome.failed`."""
    settings_mode = config.get_value("memory-mode", paths)
    if settings_mode == "off":
        return _skip(None, paths, None if request.session == "latest" else request.session, _mode_off(paths))
    ctx = _context(paths, request)
    from omp.sessions import find_session

    info = find_session(request.session, paths)
    if getattr(info, "is_reviewer", False):
        return _skip(ctx, paths, info.id, "this is a session of omp's own reviewer")
    return _review_logging_errors(ctx, info.id, info.events, log_skips=True)


def _review_logging_errors(ctx: _Context, session_id: str, events: Path, log_skips: bool) -> ReviewOutcome:
    """`_review`, with a fault the user must fix (a corrupt store, say) logged before it surfaces."""
    try:
        return _review(ctx, session_id, events, log_skips)
    except OmpError as exc:
        if ctx.paths.state.is_dir():
            _log(ctx.paths, ReviewOutcome(False, exc.message, session_id, failed=True, hint=exc.hint),
                 backend=ctx.backend)
        raise


def _review(ctx: _Context, session_id: str, events: Path, log_skips: bool) -> ReviewOutcome:
    paths = ctx.paths
    end = _file_size(events)
    verdict = claims.peek(paths, session_id, end_offset=end, force=ctx.force, timeout=ctx.timeout)
    if not verdict.take:
        return _skip(ctx, paths, session_id, verdict.reason or "claimed", log_skips)
    entry = queue.get(paths, session_id)
    if entry is not None and not entry.due() and not ctx.ignore_backoff:
        reason = (f"queued for retry at {entry.to_json()['next_try_at_iso']} (attempt {entry.attempts} failed: "
                  f"{entry.last_error}); use --force to retry now")
        return _skip(ctx, paths, session_id, reason, log_skips)
    found, scan_end = _scan(events, verdict.start_cursor)
    trivial = _trivial(ctx, found, verdict.start_cursor)
    if trivial and not found.proposals:
        return _skip(ctx, paths, session_id, trivial, log_skips)

    _preflight(ctx, session_id)
    held = claims.acquire(paths, session_id, end_offset=end, force=ctx.force, timeout=ctx.timeout)
    if isinstance(held, claims.Verdict):
        return _skip(ctx, paths, session_id, held.reason or "claimed", log_skips)
    try:
        if held.start_cursor != verdict.start_cursor:
            # Another review finished between our look and our claim: start where it stopped.
            found, scan_end = _scan(events, held.start_cursor)
            trivial = _trivial(ctx, found, held.start_cursor)
            if trivial and not found.proposals:
                claims.release(held)
                return _skip(ctx, paths, session_id, trivial, log_skips)
        # A trivial session still gets the explicit pass (it is free); only the model call is
        # skipped, and the outcome says so: "remember that …" in a two-message `copilot -p`.
        model_skipped = f"{trivial}: explicit pass only, no model call" if trivial else None
        return _run_claimed(ctx, held, events, found, scan_end, model_skipped)
    except BaseException:
        claims.release(held)
        raise


def _preflight(ctx: _Context, session_id: str) -> None:
    """Everything that would make the apply step fail, checked before the claim and the reviewer
    (SPEC §5 "Order of work"): a `.omp`, `.github` or store that links out of the project, and a
    store that does not parse. Raises OmpError naming the file and the fix; nothing is claimed,
    queued or paid for, so a broken project does not loop through retries."""
    from omp.memory.store import check_stores
    from omp.project import check_layout

    check_layout(ctx.paths, github=ctx.settings.get("memory-inject") == "block")
    ensure_state_dir(ctx.paths)
    check_stores(ctx.paths, session_id)


def _trivial(ctx: _Context, found: ExplicitScan, cursor: int) -> str | None:
    minimum = int(ctx.settings["memory-review-min-messages"])
    if found.messages >= minimum:
        return None
    what = "new message(s) since the last review" if cursor else "message(s)"
    return f"trivial session: {found.messages} {what}, fewer than memory-review-min-messages={minimum}"


def _known_for_prompt(paths: ProjectPaths) -> KnownForPrompt:
    from omp.memory.store import known_items

    known = known_items(paths)
    return KnownForPrompt({
        "active directives": list(known.directives),
        "global directives": list(known.global_directives),
        "pending proposals (await a human)": list(known.pending),
        "notes (titles)": [title for _id, title in known.notes],
        "skill drafts": list(known.drafts),
        "rejected or expired before (never propose again)": list(known.tombstones),
    })


@dataclass
class _ModelPass:
    proposals: list[Proposal] = field(default_factory=list)
    rejected: list[Rejection] = field(default_factory=list)
    tokens: dict[str, Any] = field(default_factory=dict)
    packet_end: int | None = None


def _run_claimed(ctx: _Context, held: claims.Claim, events: Path, found: ExplicitScan, scan_end: int,
                 model_skipped: str | None = None) -> ReviewOutcome:
    session_id = held.session_id
    model_pass = _ModelPass(tokens={"tokenizer": None, "budget": ctx.budget, "in": 0, "out": 0})
    if ctx.backend != "offline" and model_skipped is None:
        failure = _model_pass(ctx, held, events, model_pass)
        if failure is not None:
            return failure
    merged, merge_rejected = merge(found.proposals, model_pass.proposals)
    screened = screen(merged)
    rejected = [*found.rejected, *model_pass.rejected, *merge_rejected, *screened.rejected]
    done_at = scan_end if model_pass.packet_end is None else min(scan_end, model_pass.packet_end)
    applied = _apply(ctx, held, screened.kept, done_at)
    if applied is None:
        outcome = ReviewOutcome(False, "another review took this session over; nothing written", session_id, failed=True)
        _log(ctx.paths, outcome, backend=ctx.backend)
        return outcome
    results, pruned, block_error = applied
    queue.remove(ctx.paths, session_id)
    summary = _summary(found, model_pass, results, pruned, screened.secrets, held, done_at, block_error)
    if model_skipped:
        summary["model_skipped"] = model_skipped
    for item in results:
        if item.status == "rejected":
            rejected.append(Rejection(item.kind, item.kind, f"{item.kind} {(_safe(item.text) or '')[:60]!r}: {item.reason}", "store"))  # redact, then cut
    took_over = held.took_over if held.took_over and held.took_over != "new turns since the last review" else None
    outcome = ReviewOutcome(
        ran=True,
        reason="; ".join(r for r in (took_over, model_skipped) if r) or None,
        session=session_id,
        summary=summary,
        rejected=[{**r.to_json(), "reason": _safe(r.reason)} for r in rejected],
        tokens=model_pass.tokens,
    )
    _log(ctx.paths, outcome, backend=ctx.backend,
         model=ctx.model if ctx.backend != "offline" and not model_skipped else None)
    return outcome


def _model_pass(ctx: _Context, held: claims.Claim, events: Path, out: _ModelPass) -> ReviewOutcome | None:
    """Build the prompt, call the reviewer, validate. Returns a failed outcome, or None."""
    from omp.packet import build_packet
    from omp.tokens import get_counter

    counter = get_counter()
    frame = build_frame(_known_for_prompt(ctx.paths), ctx.budget, counter)
    packet = build_packet(events, transcript_budget(frame, ctx.budget), cursor=held.start_cursor, counter=counter)
    out.packet_end = packet.end_offset
    prompt = frame.assemble(packet.text)
    in_tokens = counter.count(prompt)
    out.tokens = {
        "tokenizer": counter.name, "budget": ctx.budget, "frame": frame.tokens, "packet": packet.tokens,
        "in": in_tokens, "out": 0, "packet_messages": len(packet.messages),
    }
    if not packet.messages:
        return None  # nothing the model could read (e.g. only unparseable lines): explicit pass only
    reviewer = ReviewerConfig(ctx.backend, ctx.model, ctx.settings.get("memory-reviewer-command"),
                              ctx.timeout, ctx.paths.root, claim_token=held.token)
    try:
        # The claim records the reviewer's process group, so a run that takes this session over
        # after omp was killed can end it (SPEC §5.1).
        reply = call_reviewer(reviewer, prompt, answer_complete,
                              on_start=lambda pid: claims.record_reviewer(held, pid))
    except ReviewerUnavailable as exc:
        return _unavailable(ctx, held, events, exc, in_tokens, counter.name)
    out.tokens["out"] = counter.count(reply.text)
    answer = find_answer(reply.text)
    outcome_name = "ok" if answer.obj is not None else "invalid-answer"
    _ledger(ctx, held.session_id, reply, in_tokens, out.tokens["out"], counter.name, outcome_name)
    if answer.obj is None:
        claims.release(held)
        outcome = ReviewOutcome(False, f"invalid answer: {answer.error}", held.session_id,
                                tokens=out.tokens, failed=True,
                                hint="the claim was released; the next run or sweep reviews the session again")
        _log(ctx.paths, outcome, backend=ctx.backend, model=ctx.model)
        return outcome
    checked = validate(answer.obj, packet.messages)
    out.proposals, out.rejected = checked.proposals, checked.rejected
    if reply.timed_out or reply.stopped_after_answer:
        out.tokens["stopped_after_answer"] = True
    return None


def _ledger(ctx: _Context, session_id: str, reply: ReviewerReply | None, in_tokens: int, out_tokens: int,
            tokenizer: str, outcome: str, error: str | None = None) -> None:
    try:
        record_call(ctx.paths, CallRecord(
            session=session_id, backend=ctx.backend, model=ctx.model, in_tokens=in_tokens,
            out_tokens=out_tokens, tokenizer=tokenizer, duration_ms=reply.duration_ms if reply else 0,
            outcome=outcome, premium_requests=reply.premium_requests if reply else None, error=error,
        ))
    except (OSError, OutsideProjectError):
        pass


def _unavailable(ctx: _Context, held: claims.Claim, events: Path, exc: ReviewerUnavailable, in_tokens: int,
                 tokenizer: str) -> ReviewOutcome:
    from omp.tokens import get_counter

    out_tokens = get_counter().count(exc.reply.text) if exc.reply else 0
    _ledger(ctx, held.session_id, exc.reply, in_tokens, out_tokens, tokenizer, "unavailable", exc.kind)
    reason = f"reviewer unavailable ({exc.kind}): {_safe(exc.message)}"
    # Releasing puts back an earlier `done` record; if that already covers the whole session
    # (a forced re-review failed), a queue entry would only make every sweep wake up for nothing.
    if held.prior_cursor is None or held.prior_cursor < _file_size(events):
        entry = queue.record_failure(ctx.paths, held.session_id, _safe(exc.message) or "", exc.hint, exc.kind)
        reason += f"; queued for retry (attempt {entry.attempts}, next at {entry.to_json()['next_try_at_iso']})"
    else:
        reason += "; not queued: the session was already reviewed (run again with --force later)"
    claims.release(held)
    outcome = ReviewOutcome(
        False, reason, held.session_id,
        tokens={"tokenizer": tokenizer, "budget": ctx.budget, "in": in_tokens, "out": out_tokens},
        failed=True, hint=exc.hint,
    )
    _log(ctx.paths, outcome, backend=ctx.backend, model=ctx.model, error=exc.kind)
    return outcome


def _apply(ctx: _Context, held: claims.Claim, items: list[Proposal], done_at: int) -> tuple[list[Any], int, str | None] | None:
    """Write everything under one project lock; mark the claim done there. None: claim lost."""
    from omp.memory.store import DirectiveProposal, DraftProposal, NoteProposal, memory_batch

    session_id = held.session_id
    notes = [NoteProposal(p.title, p.body, session_id, p.evidence) for p in items if p.kind == "note"]
    rules = [DirectiveProposal(p.text, session_id, p.evidence, kind="forget" if p.kind == "forget" else "add")
             for p in items if p.kind in ("directive", "forget")]
    drafts = [DraftProposal(p.slug, p.description, p.body, session_id, p.evidence) for p in items if p.kind == "skill_draft"]
    with memory_batch(ctx.paths, journal_session=session_id) as batch:
        # Lock, then re-check: a review declared stale and taken over must not write.
        if not claims.still_held(held):
            return None
        results = []
        if notes:
            results += batch.add_notes(notes)
        if rules:
            results += batch.propose_directives(rules)
        if drafts:
            results += batch.add_drafts(drafts)
        pruned = len(batch.auto_prune())
        changed = pruned or any(r.status == "written" for r in results)
        block_error = _sync_block(ctx.paths, lock_held=True) if changed else None
        claims.mark_done(held, done_at)
    return results, pruned, block_error


def _sync_block(paths: ProjectPaths, lock_held: bool = False) -> str | None:
    """Refresh the managed block; a block that cannot be written is reported, not fatal."""
    try:
        from omp.memory.block import sync_block

        sync_block(paths, lock_held=lock_held)
    except OmpError as exc:
        return exc.message + (f" ({exc.hint})" if exc.hint else "")
    return None


def _summary(found: ExplicitScan, model_pass: _ModelPass, results: Iterable[Any], pruned: int,
             secrets: collections.Counter[str], held: claims.Claim, done_at: int, block_error: str | None) -> dict[str, Any]:
    counts = collections.Counter((r.kind, r.status) for r in results)
    summary: dict[str, Any] = {
        "notes": counts[("note", "written")],
        "directives": counts[("directive", "written")],
        "forget": counts[("forget", "written")],
        "skill_drafts": counts[("draft", "written")],
        "duplicates": sum(n for (kind, status), n in counts.items() if status == "duplicate"),
        "explicit": len(found.proposals),
        "proposed_by_model": len(model_pass.proposals),
        "secrets_rejected": sum(secrets.values()),
        "pruned_notes": pruned,
        "messages": found.messages,
        "cursor": {"from": held.start_cursor, "to": done_at},
        "items": [r.to_json() for r in results],
    }
    if block_error:
        summary["block_error"] = block_error
    return summary


# ---------------------------------------------------------------------------------------------
# sweep


def sweep(paths: ProjectPaths, request: ReviewRequest, limit: int | None = None, *,
          include_older: bool = False, progress: Callable[[ReviewOutcome], None] | None = None) -> SweepResult:
    """Review every due queued session, then every unreviewed session of this project that
    ended after memory mode was turned on (all of them with `include_older`) (SPEC §5).

    `--force` here only ignores the retry queue's backoff: a sweep never re-reviews sessions
    that are done (that would pay for every old session again). Sessions untouched for
    `HOUSEKEEPING_DAYS` are left alone, and so is housekeeping's cut-off for claims, journals
    and queue entries, so a cleaned-up claim never makes an old session look unreviewed.
    `progress` hears of each review as soon as it is over (a sweep of real reviews takes minutes).
    """
    result = SweepResult()
    if config.get_value("memory-mode", paths) == "off":
        result.outcomes.append(_skip(None, paths, None, _mode_off(paths)))
        return result
    base = _context(paths, request)
    ctx = _Context(paths, base.settings, base.backend, base.model, force=False, ignore_backoff=request.force)
    if paths.state.is_dir():
        from omp.project import check_layout

        check_layout(paths)  # a `.omp` linked out of the project: no clean-up, no review, one message
        result.cleaned = clean_old(paths, ctx.timeout)
    from omp.core.memory_on import note_memory_on

    ensure_state_dir(paths)
    result.memory_on_since = None if include_older else note_memory_on(str(paths.root))
    attempted = 0
    for session_id, events in _sweep_candidates(paths, request.force, result):
        if limit is not None and attempted >= limit:
            result.skipped["over --limit"] = result.skipped.get("over --limit", 0) + 1
            continue
        try:
            outcome = _review_logging_errors(ctx, session_id, events, log_skips=False)
        except (CorruptFileError, OutsideProjectError) as exc:
            # A store that does not parse (or leads out of the project) fails every review alike:
            # stop and say which file.
            result.outcomes.append(ReviewOutcome(False, exc.message, session_id, failed=True, hint=exc.hint))
            break
        except OmpError as exc:
            outcome = ReviewOutcome(False, exc.message, session_id, failed=True, hint=exc.hint)
        if outcome.ran or outcome.failed:
            attempted += 1
            result.outcomes.append(outcome)
            if progress is not None:
                progress(outcome)
        else:
            key = _skip_key(outcome.reason or "")
            result.skipped[key] = result.skipped.get(key, 0) + 1
    if paths.state.is_dir():
        log_review(paths, {"event": "sweep", "outcome": "sweep", "reviewed": sum(o.ran for o in result.outcomes),
                           "failed": sum(o.failed for o in result.outcomes), "skipped": result.skipped,
                           "cleaned": result.cleaned})
    return result


def _skip_key(reason: str) -> str:
    for key in ("already reviewed", "being reviewed", "queued for retry", "trivial session", "memory-mode off"):
        if reason.startswith(key):
            return key
    return reason[:60]


def _sweep_candidates(paths: ProjectPaths, force: bool, result: SweepResult) -> Iterable[tuple[str, Path]]:
    """Due queued sessions first (oldest try first), then the project's sessions, newest first."""
    from omp.sessions import find_session, list_project_sessions

    seen: set[str] = set()
    for entry in queue.entries(paths):
        if not (force or entry.due()):
            seen.add(entry.session)  # waiting for its retry time: not an "unreviewed" session either
            result.backing_off += 1
            result.skipped["queued for retry"] = result.skipped.get("queued for retry", 0) + 1
            if result.next_retry_at is None or entry.next_try_at < result.next_retry_at:
                result.next_retry_at = entry.next_try_at
            continue
        try:
            info = find_session(entry.session, paths)
        except OmpError:
            queue.remove(paths, entry.session)  # the session is gone: nothing left to retry
            result.skipped["queued session gone"] = result.skipped.get("queued session gone", 0) + 1
            continue
        done = claims.done_cursor(paths, info.id)
        if done is not None and done >= _file_size(info.events):
            queue.remove(paths, entry.session)  # reviewed meanwhile (by a forced run, say)
            result.skipped["already reviewed"] = result.skipped.get("already reviewed", 0) + 1
            continue
        seen.add(info.id)
        yield info.id, info.events
    horizon = time.time() - HOUSEKEEPING_DAYS * _DAY
    for info in list_project_sessions(paths):
        if info.id in seen or getattr(info, "is_reviewer", False) or info.mtime < horizon:
            continue
        seen.add(info.id)
        if (result.memory_on_since is not None and info.mtime < result.memory_on_since
                and not claims.claim_path(paths, info.id).exists()):
            # Ended before memory mode and never attempted (a review killed midway left a
            # claim, and is retried): each would be a model call nobody asked for. Only --all.
            result.older += 1
            continue
        done = claims.done_cursor(paths, info.id)
        if done is not None and done >= _file_size(info.events):
            result.skipped["already reviewed"] = result.skipped.get("already reviewed", 0) + 1
            continue
        yield info.id, info.events


def clean_old(paths: ProjectPaths, timeout: float, days: float = HOUSEKEEPING_DAYS) -> dict[str, int]:
    """Remove claims, journals and queue entries older than `days` (SPEC §7.4)."""
    from omp.memory.journal import cleanup_journals

    seconds = days * _DAY
    cleaned = {
        "claims": claims.clean_old(paths, seconds, timeout),
        "queue": queue.clean_old(paths, seconds),
        "journals": cleanup_journals(paths, int(days)),
    }
    return {k: v for k, v in cleaned.items() if v}


# ---------------------------------------------------------------------------------------------
# undo


@dataclass(frozen=True)
class UndoOutcome:
    session: str
    removed: list[str]
    restored: list[str]
    kept: list[dict[str, str]]  # {"item", "why"}: items of the review left alone
    gone: list[str]
    old_journal: bool = False
    block_error: str | None = None

    def to_json(self) -> dict[str, Any]:
        return dict(self.__dict__)


def undo_session(paths: ProjectPaths, session_id: str, force: bool = False) -> UndoOutcome:
    """Take back, item by item, what the reviews of `session_id` added (`omp.memory.undo`),
    then re-render the managed block. `force` also removes notes and drafts edited since."""
    from omp.memory.undo import undo_review
    from omp.project import project_lock

    check_session_id(session_id)
    with project_lock(paths):
        report = undo_review(paths, session_id, force=force)
        block_error = _sync_block(paths, lock_held=True)
    outcome = UndoOutcome(report.session, list(report.removed), list(report.restored),
                          [{"item": k.item, "why": k.why} for k in report.kept], list(report.gone),
                          report.old_journal, block_error)
    log_review(paths, {"session": report.session, "outcome": "undone", "removed": len(report.removed),
                       "restored": len(report.restored), "kept": len(report.kept)})
    return outcome


__all__ = [
    "ReviewOutcome",
    "ReviewRequest",
    "SweepResult",
    "UndoOutcome",
    "clean_old",
    "now_iso",
    "review_session",
    "sweep",
    "undo_session",
]
