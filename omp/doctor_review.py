"""`omp doctor`'s checks of the review (docs/doctor.md): the reviewer (`--deep` really calls it, with
what a hook-started review would get from `reviewer.env`; without --deep, the provider variables
the shell sets that reviewer.env does not give back), the tokenizer, stale claims, the retry
queue and reviews that failed for good, with their last error."""

from __future__ import annotations

import os
import shlex
import stat
import sys
import time
from pathlib import Path

from omp.doctor_check import Check, Status
from omp.doctor_fixes import Context, deep_fix, env_note, one_command, review_command, setting_fix
from omp.errors import OmpError
from omp.hook_env import hook_review_environment, missing_from_reviewer_env, reviewer_env_fix
from omp.paths import ProjectPaths
from omp.process import read_env_file, reviewer_env_file
from omp.review import backends, claim as claims, queue
from omp.review.reviewers import ReviewerConfig, ReviewerUnavailable, call_reviewer
from omp.sessions.discovery import find_session
from omp.tokens import get_counter

DEEP_PROMPT = "This is a connectivity check from omp doctor. Reply with the single word: OK"


def _reviewer_env_check() -> list[Check]:
    path = Path(reviewer_env_file())
    if not path.exists():
        return []
    keys = sorted(read_env_file(path))
    checks = [Check("reviewer env", "info", f"{path} gives hook-started reviews: {', '.join(keys) or 'nothing'}")]
    try:
        mode = path.stat().st_mode
    except OSError:
        return checks
    if os.name != "nt" and mode & (stat.S_IRGRP | stat.S_IROTH):
        checks.append(Check("reviewer env", "warn", f"{path} is readable by other users (it may hold tokens)",
                            f"chmod 600 {shlex.quote(str(path))}"))
    return checks


def _byok_gap(entry: backends.Entry) -> list[Check]:
    """Provider and token variables the shell sets but a hook-started review will not get: Copilot
    removes them from hooks, and reviewer.env does not give them back (docs/doctor.md).

    Copilot's own variables (`COPILOT_PROVIDER_*`, `COPILOT_OFFLINE`, `COPILOT_GITHUB_TOKEN`: set
    for Copilot, so a copilot reviewer, or a command that runs it, needs them) are a warning; a
    general token (`GITHUB_TOKEN`, `OPENAI_API_KEY`, usually set for other tools) or Copilot's
    variables with the openai reviewer, which does not read them, are context: copying a token
    nobody needs into a file would only spread it."""
    missing = missing_from_reviewer_env()
    needed = [name for name in missing if name.startswith("COPILOT_")] if entry.reads_copilot_env else []
    other = [name for name in missing if name not in needed]
    checks = []
    levels: tuple[tuple[list[str], Status], ...] = ((needed, "warn"), (other, "info"))
    for names, status in levels:
        if names:
            checks.append(Check(
                "reviewer env", status,
                f"your shell sets {', '.join(names)}, which Copilot does not pass to hooks, and {reviewer_env_file()} "
                "does not give them back: a review started when a session ends runs without them "
                "(omp doctor --deep calls the reviewer that way)", one_command(reviewer_env_fix(names))))
    return checks


def _fallback_reviewer(ctx: Context, why: str) -> Check:
    """A reviewer setting that cannot work: the fix that runs is going back to one that does
    (the default reviewer when Copilot CLI runs, else the one that calls no model); the detail
    names the other way."""
    fallback = backends.DEFAULT if ctx.copilot_works else backends.NO_MODEL
    return Check("reviewer", "fail", why + env_note(ctx, "memory-reviewer", fallback),
                 setting_fix(ctx, "memory-reviewer", fallback))


def _not_configured(ctx: Context, entry: backends.Entry, exc: ReviewerUnavailable) -> Check:
    """A setting the backend needs is missing or wrong: the entry's `fix_setting` sets it (the
    usual value; the hint says to use one's own), else the fix goes back to a reviewer that works."""
    why = exc.message + (f" ({exc.hint})" if exc.hint else "")
    if entry.fix_setting is None:
        return _fallback_reviewer(ctx, why)
    key, value = entry.fix_setting
    return Check("reviewer", "fail", why + env_note(ctx, key, value), setting_fix(ctx, key, value))


def check_reviewer(ctx: Context) -> list[Check]:
    """The reviewer setting, through its registry entry (omp.review.backends): the entry's
    `describe` says what it would call, or raises with what is missing; no backend is named here."""
    settings = ctx.settings
    if settings is None:  # check_memory_mode failed and carries the fix
        return [Check("reviewer", "info", "not checked: the settings cannot be read (see memory-mode)", None)]
    backend, model = settings["memory-reviewer"], settings["memory-review-model"]
    checks = _reviewer_env_check()
    entry = backends.REGISTRY.get(backend)
    if entry is None:
        return checks + [_fallback_reviewer(ctx, f"unknown reviewer {backend!r} (one of {', '.join(backends.NAMES)})")]
    if not entry.runs_model:
        return checks + [Check("reviewer", "ok", entry.describe(settings, model))]
    gap = _byok_gap(entry)
    if entry.uses_copilot and not ctx.copilot_works:
        return checks + gap + [_fallback_reviewer(ctx, f"memory-reviewer is {backend}, but Copilot CLI does not run")]
    try:
        what = entry.describe(settings, model)
    except ReviewerUnavailable as exc:
        return checks + gap + [_not_configured(ctx, entry, exc)]
    if not ctx.deep:
        return checks + gap + [Check("reviewer", "ok", f"{what} (not called; omp doctor --deep calls it)")]
    called = _call_reviewer(ctx, backend, model, what)
    if called.status == "ok":
        # Called exactly as a hook-started review would be, and it answered: the variables the
        # shell sets beyond reviewer.env are not needed.
        gap = [Check(c.name, "info", c.detail + "; the reviewer answered without them", c.fix) for c in gap]
    elif missing_from_reviewer_env():
        gap = []  # the failed call's check names them all, with the fix
    return checks + gap + [called]


def _call_reviewer(ctx: Context, backend: str, model: str, what: str) -> Check:
    """Call the reviewer as a hook-started review would: Copilot strips the provider variables
    from hooks, so the shell's environment proves nothing; reviewer.env is added back."""
    assert ctx.settings is not None
    reviewer = ReviewerConfig(
        backend=backend, model=model, command=ctx.settings["memory-reviewer-command"],
        timeout=float(ctx.settings["memory-review-timeout"]),
        project_root=ctx.project.root if ctx.project else Path.cwd(), url=ctx.settings.get("memory-reviewer-url"),
    )
    started = time.monotonic()
    how = "called as a hook-started review would call it"
    try:
        reply = call_reviewer(reviewer, DEEP_PROMPT, lambda text: bool(text.strip()),
                              base_env=hook_review_environment())
    except OmpError as exc:
        missing = missing_from_reviewer_env()
        if missing:
            return Check("reviewer", "fail",
                         f"{what}, {how}: {exc.message}. Your shell sets {', '.join(missing)}, which Copilot "
                         "does not pass to hooks, and reviewer.env does not give them back",
                         one_command(reviewer_env_fix(missing)))
        hint = f" ({exc.hint})" if exc.hint else ""
        return Check("reviewer", "fail", f"{what}, {how}: {exc.message}{hint}", deep_fix(ctx, backend, model, exc))
    answer = " ".join(reply.text.split())[:60]
    seconds = time.monotonic() - started
    return Check("reviewer", "ok", f"{what}: answered {answer!r} in {seconds:.1f}s ({how})")


def check_tokenizer(ctx: Context) -> list[Check]:
    counter = get_counter(retry=True)  # doctor always tries again, clearing a remembered failure
    if counter.name == "tiktoken":
        return [Check("tokenizer", "ok", "tiktoken o200k_base")]
    if os.environ.get("OMP_TOKENIZER", "").strip().lower() == "estimate":
        return [Check("tokenizer", "info", "byte estimate, as OMP_TOKENIZER=estimate asks (it over-counts; harmless)")]
    cache = os.environ.get("TIKTOKEN_CACHE_DIR") or "tiktoken's cache"
    # Not a problem to act on (the estimate only over-counts), so `info`; and not a fix line: the
    # download needs the network, which no command here can promise. The detail names it.
    download = f"{shlex.quote(sys.executable)} -c \"import tiktoken; tiktoken.get_encoding('o200k_base')\""
    return [Check("tokenizer", "info", f"tiktoken's o200k_base is not in {cache}: packets are sized with a byte "
                  f"estimate (it over-counts; harmless); for exact counts, download it once: {download}")]


def check_claims_and_queue(ctx: Context) -> list[Check]:
    if ctx.project is None:
        return [Check("claims", "info", "not in a project: no claims or queue to check", None)]

    timeout = float((ctx.settings or {}).get("memory-review-timeout", 120))
    stale, unreadable, running = [], [], 0
    for session, record in claims.list_claims(ctx.project).items():
        if record is None:
            unreadable.append(session)
        elif record.state != "done":
            running += 1
            if claims.stale_reason(record, timeout,
                                   written_at=claims.file_time(claims.claim_path(ctx.project, session))):
                stale.append(session)
    checks: list[Check] = []
    if stale or unreadable:
        bits = [f"{len(stale)} stale claim(s)"] if stale else []
        bits += [f"{len(unreadable)} unreadable claim file(s)"] if unreadable else []
        # A review of the session takes a stale or unreadable claim over (just that session: a
        # sweep would also review every other unreviewed one); a claim whose transcript is gone
        # has nothing left to review, and only removing it clears it.
        gone = [s for s in stale + unreadable if not _transcript_exists(ctx.project, s)]
        commands = [review_command(ctx, f"--session {shlex.quote(s)}") for s in stale + unreadable if s not in gone]
        commands += [f"rm {shlex.quote(str(claims.claim_path(ctx.project, s)))}" for s in gone]
        detail = ", ".join(bits) + ": those sessions wait for the next run"
        if gone:
            detail += f"; {len(gone)} of them no longer have a transcript (the fix removes their claims)"
        checks.append(Check("claims", "warn", detail, one_command(*commands)))
    else:
        checks.append(Check("claims", "ok", f"{running} review(s) running, no stale claims"))
    every = queue.entries(ctx.project)
    entries = [e for e in every if not e.failed]
    gave_up = sorted((e for e in every if e.failed), key=lambda e: e.updated_at, reverse=True)
    if gave_up:
        checks.append(_failed_reviews(ctx, gave_up))
    if entries:
        now = time.time()
        due = sum(1 for e in entries if e.next_try_at <= now)
        latest = max(entries, key=lambda e: e.updated_at)
        detail = (f"{len(entries)} session(s) in the retry queue ({due} due); last error "
                  f"(session {latest.session}, attempt {latest.attempts}): {_last_error(latest)}; "
                  "once that is fixed, the fix line retries them now")
        # Once the cause is fixed, this reviews them now instead of at their backoff time.
        checks.append(Check("queue", "warn", detail, review_command(ctx, "--sweep --force")))
    else:
        checks.append(Check("queue", "ok", "retry queue empty"))
    return checks


def _failed_reviews(ctx: Context, gave_up: list[queue.QueueEntry]) -> Check:
    """Reviews that failed queue.MAX_ATTEMPTS times. Only an explicit, forced review of each
    session calls the reviewer again (a sweep never does): until then nothing reviews them, so
    this is a fault, not a warning. A session whose transcript is gone has nothing left to review:
    its entry is dropped instead (a retry would only fail to find it)."""
    assert ctx.project is not None
    project = ctx.project
    newest = gave_up[0]
    more = f" (and {len(gave_up) - 1} more: {', '.join(e.session for e in gave_up[1:4])})" if len(gave_up) > 1 else ""
    detail = (f"{len(gave_up)} review(s) failed for good after {newest.attempts} attempts, not retried any more: "
              f"session {newest.session}{more}; last error: {_last_error(newest)}")
    gone = [e for e in gave_up if not _transcript_exists(project, e.session)]
    if gone:
        detail += f"; {len(gone)} of them no longer have a transcript (the fix drops their entries)"
    if len(gone) < len(gave_up):
        detail += "; fix that cause, then run the fix line (one reviewer call per session)"
    commands = [review_command(ctx, f"--session {shlex.quote(e.session)} --force") for e in gave_up if e not in gone]
    commands += [f"rm {shlex.quote(str(queue.entry_path(project, e.session)))}" for e in gone]
    return Check("failed-reviews", "fail", detail, one_command(*commands))


def _transcript_exists(project: ProjectPaths, session: str) -> bool:
    try:
        find_session(session, project)
    except OmpError:
        return False
    return True


def _last_error(entry: queue.QueueEntry) -> str:
    """The stored error and the hint that names its cause's fix."""
    return entry.last_error + (f" ({entry.hint})" if entry.hint else "")
