"""The review pipeline: one session's review, `omp memory-review` (docs/behaviour.md#the-review-run).

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
8. safety filter (`omp.review.filters`), then the note gate (`omp.review.note_gate`): a model
   note is applied only when it is an inert fact; one that reads as a rule or holds a command
   is refused, a fact from a web page, a network command or the assistant is proposed;
9. apply under ONE project-lock acquisition through the memory stores (`omp.memory.store`):
   notes written, directives and forget requests to the pending queue, drafts to the drafts
   folder, each write journaled first; `memory-note-auto-keep` prune; the claim is marked done
   in the same critical section, so a crash after the writes leaves the smallest possible
   window (and a re-review then finds only duplicates);
10. managed block refresh; ledger record (one per reviewer call, failures included) and one
    log line per outcome.

Failures: an unavailable reviewer and an answer without a valid omp.review.v1 object (or one
too large or too deeply nested to read) are both failed reviews: logged with the fix, recorded in
the ledger, the claim released and the session queued with backoff (exit 1); after
`queue.MAX_ATTEMPTS` failed calls it is marked failed for good and only `--force` calls the
reviewer for it again. Nothing is written in either case.

The sweep over a project's sessions is `omp.review.sweep`, the clean-up of old claims, journals and
queue entries `omp.review.housekeeping`, taking a review back `omp.review.undo`.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Sequence

from omp import config, trust
from omp.errors import OmpError, UsageError, storage_error
from omp.fsio import OutsideProjectError, probe_write
from omp.ledger import CallRecord, log_review, record_call
from omp.memory.items import DirectiveProposal, DraftProposal, ItemResult, NoteProposal
from omp.packet import SessionIndex, SessionIndexer, build_packet
from omp.paths import ProjectPaths
from omp.project import check_layout, ensure_state_dir
from omp.review import backends, queue
from omp.review import claim as claims
from omp.review.answer import (
    Proposal,
    Rejection,
    answer_complete,
    find_answer,
    validate,
)
from omp.review.explicit import Candidate, ExplicitScan, decide, merge, scan
from omp.review.filters import screen
from omp.review.note_gate import gate_notes
from omp.review.outcome import ReviewOutcome, ReviewRequest, ReviewSummary, SkipReason
from omp.review.prompt import KnownForPrompt, build_frame, prompt_room_for_transcript
from omp.review.reviewers import (
    ANSWER_REFUSED,
    BACKENDS,
    ReviewerConfig,
    ReviewerReply,
    ReviewerUnavailable,
    call_reviewer,
)
from omp.safety.secrets import redact
from omp.sessions.discovery import find_session
from omp.sessions.events import SessionReader
from omp.tokens import get_counter


@dataclass(frozen=True)
class ReviewContext:
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

    return redact(text)[0]


def review_context(paths: ProjectPaths, request: ReviewRequest) -> ReviewContext:
    resolved = config.resolve(paths)
    settings = {name: s.value for name, s in resolved.items()}
    backend = (request.reviewer or settings["memory-reviewer"]).strip().lower()
    if backend not in BACKENDS:
        raise UsageError(f"unknown reviewer {backend!r}", "choose one of: " + ", ".join(BACKENDS))
    if resolved["memory-review-timeout"].origin == "default":  # --reviewer's own default (docs/reference/config.md)
        settings["memory-review-timeout"] = backends.default_timeout(backend)
    model = request.model or settings["memory-review-model"]
    if request.model is not None:
        model = config.parse_value(config.KEYS["memory-review-model"], request.model)
    return ReviewContext(paths, settings, backend, model, request.force, request.force)


def _log(ctx_paths: ProjectPaths, outcome: ReviewOutcome, **extra: Any) -> None:
    entry: dict[str, Any] = {
        "session": outcome.session,
        "outcome": outcome.status,
        "reason": _safe(outcome.reason),
    }
    if outcome.hint:
        entry["hint"] = outcome.hint
    if outcome.summary:
        entry["summary"] = outcome.summary.to_json(items=False)
    if outcome.rejected:
        entry["rejected"] = [r.reason for r in outcome.rejected]
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


def skipped(ctx: ReviewContext | None, paths: ProjectPaths, session: str | None, skip: SkipReason, reason: str,
            log: bool = True) -> ReviewOutcome:
    outcome = ReviewOutcome(False, reason, session, skip=skip)
    if log and paths.state.is_dir():
        # A skip never creates R/.omp: a project where omp is off stays untouched.
        _log(paths, outcome, **({"backend": ctx.backend} if ctx else {}))
    return outcome


def skipped_mode_off(paths: ProjectPaths, session: str | None) -> ReviewOutcome:
    return skipped(None, paths, session, SkipReason.MEMORY_MODE_OFF, mode_off_reason(paths))


def mode_off_reason(paths: ProjectPaths) -> str:
    """The skip reason; it names an ignored (untrusted) project config and its fix (docs/trust.md#a-repository-never-chooses-what-runs)."""
    ignored = trust.ignored_notice(paths)
    return "memory-mode off" + (f"; {ignored}" if ignored else "")


def scan_session(events: Path, cursor: int) -> tuple[ExplicitScan, SessionIndex]:
    """Stream the messages since `cursor` once: count them, run the explicit pass, and keep the
    index the packet is built from (the file is read once, docs/performance.md#where-speed-matters)."""
    indexer = SessionIndexer(SessionReader(events, cursor))
    result = scan(indexer.messages())
    return result, indexer.index(result.asking)


def file_size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


# ---------------------------------------------------------------------------------------------
# one session


def review_session(paths: ProjectPaths, request: ReviewRequest) -> ReviewOutcome:
    """Review one session (docs/behaviour.md#the-review-run). Never raises for a review failure: see `outcome.failed`."""
    settings_mode = config.get_value("memory-mode", paths)
    if settings_mode == "off":
        return skipped_mode_off(paths, None if request.session == "latest" else request.session)
    ctx = review_context(paths, request)

    info = find_session(request.session, paths)
    if getattr(info, "is_reviewer", False):
        return skipped(ctx, paths, info.id, SkipReason.REVIEWER_SESSION, "this is a session of omp's own reviewer")
    return review_logging_errors(ctx, info.id, info.events, log_skips=True)


def review_logging_errors(ctx: ReviewContext, session_id: str, events: Path, log_skips: bool) -> ReviewOutcome:
    """`_review`, with a fault the user must fix (a corrupt store, say) logged before it surfaces."""
    try:
        return _review(ctx, session_id, events, log_skips)
    except OmpError as exc:
        if ctx.paths.state.is_dir():
            _log(ctx.paths, ReviewOutcome(False, exc.message, session_id, failed=True, hint=exc.hint),
                 backend=ctx.backend)
        raise


def _review(ctx: ReviewContext, session_id: str, events: Path, log_skips: bool) -> ReviewOutcome:
    paths = ctx.paths
    end = file_size(events)
    verdict = claims.peek(paths, session_id, end_offset=end, force=ctx.force, timeout=ctx.timeout)
    if not verdict.take:
        return skipped(ctx, paths, session_id, _claim_skip(verdict), verdict.reason or "claimed", log_skips)
    entry = queue.get(paths, session_id)
    if entry is not None and entry.failed and not ctx.force:
        # Every attempt was a billed call: after MAX_ATTEMPTS only the user's --force pays again.
        reason = (f"review failed {entry.attempts} times (last error: {entry.last_error}); not retried "
                  f"automatically: fix the cause, then run {entry.retry_command}")
        return skipped(ctx, paths, session_id, SkipReason.REVIEW_FAILED, reason, log_skips)
    if entry is not None and not entry.due() and not ctx.ignore_backoff:
        reason = (f"queued for retry at {entry.to_json()['next_try_at_iso']} (attempt {entry.attempts} failed: "
                  f"{entry.last_error}); use --force to retry now")
        return skipped(ctx, paths, session_id, SkipReason.QUEUED_FOR_RETRY, reason, log_skips)
    found, scanned = scan_session(events, verdict.start_cursor)
    trivial = _trivial(ctx, found, verdict.start_cursor)
    if trivial and not found.proposals:
        return skipped(ctx, paths, session_id, SkipReason.TRIVIAL_SESSION, trivial, log_skips)

    _preflight(ctx, session_id)
    held = claims.acquire(paths, session_id, end_offset=end, force=ctx.force, timeout=ctx.timeout)
    if isinstance(held, claims.Verdict):
        return skipped(ctx, paths, session_id, _claim_skip(held), held.reason or "claimed", log_skips)
    try:
        if held.start_cursor != verdict.start_cursor:
            # Another review finished between our look and our claim: start where it stopped.
            found, scanned = scan_session(events, held.start_cursor)
            trivial = _trivial(ctx, found, held.start_cursor)
            if trivial and not found.proposals:
                claims.release(held)
                return skipped(ctx, paths, session_id, SkipReason.TRIVIAL_SESSION, trivial, log_skips)
        # A trivial session still gets the explicit pass (it is free); only the model call is
        # skipped, and the outcome says so: "remember that …" in a two-message `copilot -p`.
        model_skipped = f"{trivial}: explicit pass only, no model call" if trivial else None
        return _run_claimed(ctx, held, events, found, scanned, model_skipped)
    except BaseException:
        claims.release(held)
        raise


def _claim_skip(verdict: claims.Verdict) -> SkipReason:
    """Why the claim keeps this review out, from the verdict's code (its sentence is for people)."""
    if verdict.refused == "done":
        return SkipReason.ALREADY_REVIEWED
    if verdict.refused == "running":
        return SkipReason.BEING_REVIEWED
    return SkipReason.CLAIM_CONTENDED


def _preflight(ctx: ReviewContext, session_id: str) -> None:
    """Everything that would make the apply step fail, checked before the claim and the reviewer
    (docs/behaviour.md#the-review-run "Order of work"): a `.omp`, `.github` or store that links out of the project, a
    `.omp` omp cannot write (read-only, a full disk), and a store that does not parse. Raises OmpError naming the file and the fix; nothing is claimed,
    queued or paid for, so a broken project does not loop through retries."""
    from omp.memory.store import check_stores  # (see _apply)
    from omp.review.housekeeping import clean_leftovers  # (with the memory package, as above)

    check_layout(ctx.paths, github=ctx.settings.get("memory-inject") == "block")
    try:
        ensure_state_dir(ctx.paths)
        # A read-only `.omp` or a full disk would only show when the answer is written: after
        # the reviewer was paid. A probe write (removed at once) shows it now.
        probe_write(ctx.paths.logs)
    except OSError as exc:
        raise storage_error(exc) or exc
    check_stores(ctx.paths, session_id)
    clean_leftovers(ctx.paths)  # what killed runs left (temp files, reviewer folders)


def _trivial(ctx: ReviewContext, found: ExplicitScan, cursor: int) -> str | None:
    minimum = int(ctx.settings["memory-review-min-messages"])
    if found.messages >= minimum:
        return None
    what = "new message(s) since the last review" if cursor else "message(s)"
    return f"trivial session: {found.messages} {what}, fewer than memory-review-min-messages={minimum}"


def _known_for_prompt(paths: ProjectPaths) -> KnownForPrompt:
    from omp.memory.store import known_items  # (see _apply)

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


def _run_claimed(ctx: ReviewContext, held: claims.Claim, events: Path, found: ExplicitScan, scanned: SessionIndex,
                 model_skipped: str | None = None) -> ReviewOutcome:
    session_id = held.session_id
    scan_end = scanned.end_offset
    model_pass = _ModelPass(tokens={"tokenizer": None, "budget": ctx.budget, "in": 0, "out": 0})
    runs_model = backends.lookup(ctx.backend).runs_model
    explicit: list[Proposal] = found.proposals
    declined: list[Rejection] = []
    if runs_model and model_skipped is None:
        failure = _model_pass(ctx, held, events, model_pass, scanned, found.uncertain)
        if failure is not None:
            return failure
        if model_pass.tokens.get("packet_messages"):  # the model saw the uncertain requests: it decides
            explicit, declined = decide(found, model_pass.proposals)
    merged, merge_rejected = merge(explicit, model_pass.proposals)
    screened = screen(merged)
    gated = gate_notes(screened.kept)
    rejected = [*found.rejected, *declined, *model_pass.rejected, *merge_rejected, *screened.rejected, *gated.rejected]
    done_at = scan_end if model_pass.packet_end is None else min(scan_end, model_pass.packet_end)
    applied = _apply(ctx, held, gated.applied, done_at, gated.proposed)
    if applied is None:
        outcome = ReviewOutcome(False, "another review took this session over; nothing written", session_id, failed=True)
        _log(ctx.paths, outcome, backend=ctx.backend)
        return outcome
    results, pruned, block_error = applied
    queue.remove(ctx.paths, session_id)
    summary = ReviewSummary(
        items=tuple(results), explicit=len(found.proposals), proposed_by_model=len(model_pass.proposals),
        secrets_rejected=sum(screened.secrets.values()) + sum(found.secrets.values()), pruned_notes=pruned, messages=found.messages,
        cursor_from=held.start_cursor, cursor_to=done_at, block_error=block_error, model_skipped=model_skipped,
    )
    rejected += [_store_rejection(item) for item in results if item.status == "rejected"]
    took_over = held.took_over  # None for an ordinary resume (Verdict.continues): not worth a note
    outcome = ReviewOutcome(
        ran=True,
        reason="; ".join(r for r in (took_over, model_skipped) if r) or None,
        session=session_id,
        summary=summary,
        rejected=tuple(replace(r, reason=_safe(r.reason) or "") for r in rejected),
        tokens=model_pass.tokens,
    )
    _log(ctx.paths, outcome, backend=ctx.backend,
         model=ctx.model if runs_model and not model_skipped else None)
    return outcome


def _model_pass(ctx: ReviewContext, held: claims.Claim, events: Path, out: _ModelPass,
                scanned: SessionIndex, candidates: Sequence[Candidate] = ()) -> ReviewOutcome | None:
    """Build the prompt (with the explicit pass's uncertain candidates), call the reviewer,
    validate. Returns a failed outcome, or None."""
    counter = get_counter()
    frame = build_frame(_known_for_prompt(ctx.paths), ctx.budget, counter, candidates)
    packet = build_packet(events, prompt_room_for_transcript(frame, ctx.budget), cursor=held.start_cursor, counter=counter,
                          index=scanned)
    out.packet_end = packet.end_offset
    prompt = frame.assemble(packet.text)
    in_tokens = counter.count(prompt)
    out.tokens = {
        "tokenizer": counter.name, "budget": ctx.budget, "frame": frame.tokens, "packet": packet.tokens,
        "in": in_tokens, "out": 0, "packet_messages": len(packet.messages),
    }
    if not packet.messages:
        if scanned.entries:  # there were messages, and the budget held none of them
            raise budget_too_small(ctx.budget, frame.tokens)
        return None  # nothing the model could read (e.g. only unparseable lines): explicit pass only
    reviewer = ReviewerConfig(ctx.backend, ctx.model, ctx.settings.get("memory-reviewer-command"),
                              ctx.timeout, ctx.paths.root, claim_token=held.token,
                              url=ctx.settings.get("memory-reviewer-url"))
    try:
        # The claim records the reviewer's process group, so a run that takes this session over
        # after omp was killed can end it (docs/behaviour.md#exactly-once-claims-the-retry-queue-and-sweeps).
        reply = call_reviewer(reviewer, prompt, answer_complete,
                              on_start=lambda pid: claims.record_reviewer(held, pid))
    except ReviewerUnavailable as exc:
        return _unavailable(ctx, held, events, exc, in_tokens, counter.name)
    out.tokens["out"] = counter.count(reply.text)
    answer = find_answer(reply.text)
    outcome_name = "ok" if answer.obj is not None else "invalid-answer"
    _ledger(ctx, held.session_id, reply, in_tokens, out.tokens["out"], counter.name, outcome_name)
    if answer.obj is None:
        # A bad answer is retried like an unavailable reviewer, a bounded number of times: a
        # reviewer that always answers garbage must not be paid on every sweep (docs/behaviour.md#exactly-once-claims-the-retry-queue-and-sweeps).
        cause = f"invalid answer: {answer.error}"
        hint = "check the reviewer and its model (omp doctor --deep)"
        reason = cause + _queue_failure(ctx, held, events, cause, hint, "invalid-answer")
        claims.release(held)
        outcome = ReviewOutcome(False, reason, held.session_id, tokens=out.tokens, failed=True, hint=hint,
                                cause=cause)
        _log(ctx.paths, outcome, backend=ctx.backend, model=ctx.model, error="invalid-answer")
        return outcome
    checked = validate(answer.obj, packet.messages)
    out.proposals, out.rejected = checked.proposals, checked.rejected
    if reply.timed_out or reply.stopped_after_answer:
        out.tokens["stopped_after_answer"] = True
    return None


def budget_too_small(budget: int, frame_tokens: int) -> OmpError:
    """`memory-review-max-input-tokens` leaves no room for one message once omp's own prompt
    frame is paid for. A failure, not a review: the caller releases the claim (the session is
    not marked reviewed), nothing is sent to the reviewer, and the log line says why."""
    suggested = max(-(-2 * frame_tokens // 1000) * 1000, 4000)
    return OmpError(
        f"the review budget of {budget} tokens cannot hold omp's prompt frame ({frame_tokens} tokens) and one "
        "message of the session; no reviewer was called and the session is not marked reviewed",
        f"run: omp config set memory-review-max-input-tokens {suggested} (or more; the default is "
        f"{config.KEYS['memory-review-max-input-tokens'].default})",
    )


def _ledger(ctx: ReviewContext, session_id: str, reply: ReviewerReply | None, in_tokens: int, out_tokens: int,
            tokenizer: str, outcome: str, error: str | None = None) -> None:
    try:
        record_call(ctx.paths, CallRecord(
            session=session_id, backend=ctx.backend, model=ctx.model, in_tokens=in_tokens,
            out_tokens=out_tokens, tokenizer=tokenizer, duration_ms=reply.duration_ms if reply else 0,
            outcome=outcome, premium_requests=reply.premium_requests if reply else None, error=error,
        ))
    except (OSError, OutsideProjectError):
        pass


def _unavailable(ctx: ReviewContext, held: claims.Claim, events: Path, exc: ReviewerUnavailable, in_tokens: int,
                 tokenizer: str) -> ReviewOutcome:
    out_tokens = get_counter().count(exc.reply.text) if exc.reply else 0
    _ledger(ctx, held.session_id, exc.reply, in_tokens, out_tokens, tokenizer, "unavailable", exc.kind)
    what = "reviewer answer refused" if exc.kind in ANSWER_REFUSED else "reviewer unavailable"
    cause = f"{what} ({exc.kind}): {_safe(exc.message)}"
    reason = cause + _queue_failure(ctx, held, events, _safe(exc.message) or "", exc.hint, exc.kind)
    claims.release(held)
    outcome = ReviewOutcome(
        False, reason, held.session_id,
        tokens={"tokenizer": tokenizer, "budget": ctx.budget, "in": in_tokens, "out": out_tokens},
        failed=True, hint=exc.hint, cause=cause,
    )
    _log(ctx.paths, outcome, backend=ctx.backend, model=ctx.model, error=exc.kind)
    return outcome


def _queue_failure(ctx: ReviewContext, held: claims.Claim, events: Path, error: str, hint: str | None,
                   kind: str) -> str:
    """Queue a failed review for a retry with backoff (or mark it failed for good after
    queue.MAX_ATTEMPTS); returns what was done, to end the outcome's reason with."""
    # Releasing puts back an earlier `done` record; if that already covers the whole session
    # (a forced re-review failed), a queue entry would only make every sweep wake up for nothing.
    if held.prior_cursor is not None and held.prior_cursor >= file_size(events):
        return "; not queued: the session was already reviewed (run again with --force later)"
    entry = queue.record_failure(ctx.paths, held.session_id, _safe(error) or "", hint, kind)
    if entry.failed:
        return (f"; failed {entry.attempts} times, not retried automatically any more: fix the cause, "
                f"then run {entry.retry_command}")
    return f"; queued for retry (attempt {entry.attempts} of {queue.MAX_ATTEMPTS}, next at {entry.to_json()['next_try_at_iso']})"


def _apply(ctx: ReviewContext, held: claims.Claim, items: list[Proposal], done_at: int,
           proposed: list[tuple[Proposal, str]] | None = None) -> tuple[list[ItemResult], int, str | None] | None:
    """Write everything under one project lock; mark the claim done there. None: claim lost.
    `proposed`: notes the note gate sends to the pending list, with their source."""
    session_id = held.session_id
    notes = [NoteProposal(p.title, p.body, session_id, p.evidence) for p in items if p.kind.spec.store == "notes"]
    for_a_human = [NoteProposal(p.title, p.body, session_id, p.evidence, source) for p, source in proposed or []]
    rules = [DirectiveProposal(p.text, session_id, p.evidence, p.kind) for p in items if p.kind.spec.store == "pending"]
    drafts = [DraftProposal(p.slug, p.description, p.body, session_id, p.evidence)
              for p in items if p.kind.spec.store == "drafts"]
    # Not at the top: a review that has nothing to write and calls no model (a trivial session's
    # explicit pass that found nothing) never loads the memory package: 14 M instructions, ≈ 4 ms.
    from omp.memory.store import memory_batch

    with memory_batch(ctx.paths, journal_session=session_id) as batch:
        # Lock, then re-check: a review declared stale and taken over must not write.
        if not claims.still_held(held):
            return None
        results: list[ItemResult] = []
        if notes:
            results += batch.add_notes(notes)
        if for_a_human:
            results += batch.propose_notes(for_a_human)
        if rules:
            results += batch.propose_directives(rules)
        if drafts:
            results += batch.add_drafts(drafts)
        pruned = len(batch.auto_prune())
        changed = pruned or any(r.status == "written" for r in results)
        block_error = refresh_block(ctx.paths, lock_held=True) if changed else None
        claims.mark_done(held, done_at)
    return results, pruned, block_error


def refresh_block(paths: ProjectPaths, lock_held: bool = False) -> str | None:
    """Refresh the managed block; a block that cannot be written is reported, not fatal."""
    try:
        from omp.memory.block import sync_block  # (see _apply)

        sync_block(paths, lock_held=lock_held)
    except OmpError as exc:
        return exc.message + (f" ({exc.hint})" if exc.hint else "")
    return None


def _store_rejection(item: ItemResult) -> Rejection:
    """A proposal a store refused, as a rejection (its text redacted, then cut)."""
    assert item.code is not None, "every refusal of a store carries its code"
    name = item.kind.result_name
    return Rejection(name, item.kind, item.code, f"{name} {(_safe(item.text) or '')[:60]!r}: {item.reason}", "store")
