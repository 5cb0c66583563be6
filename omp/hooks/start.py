"""sessionStart: what the session is told (docs/behaviour.md#copilot-integration) and the instruction file's convergence.

- the nudge names what waits for the user (pending proposals, skill drafts, failed or queued
  reviews, an ignored untrusted config) and asks the model to pass it on, since the user never
  sees it;
- with `memory-inject=hook`, the managed block's content, from omp.core.context_cache;
- with memory-mode off because nothing set it, once per project: that omp is not reviewing it
  and the command that turns it on (omp.core.notice; one stat once it was said);
- the instruction file is brought to what the mode demands even when nothing ran `omp memory
  sync` — a global switch to `hook` mode, or another tool (Copilot's `/chronicle improve`)
  rewriting the file (docs/behaviour.md#project-memory-and-the-managed-block). The check is one read or one stat; the library (heavy to
  import) runs only when something is off.
"""

from __future__ import annotations

import os

from omp.core import context_cache, instructions, layout
from omp.core.pending import QueueSummary, draft_count, pending_count, queue_summary
from omp.core.settings import IGNORED, directives_held_back, is_reviewer_session
from omp.hooks.outcome import HookResult, problem
from omp.hooks.project import UNTRUSTED_NUDGE, git_project, memory_on_in, untrusted_output

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations only: importing typing costs start-up time
    from typing import Any, Mapping

NUDGE = "[MEMORY REVIEW] {n} proposed directive(s) await your review — run omp project-memory pending"
DRAFTS_NUDGE = "[MEMORY REVIEW] {n} skill draft(s) await promotion — run omp project-memory drafts"
UNTRUSTED_DIRECTIVES_NUDGE = ("[MEMORY REVIEW] {n} directive(s) in this project's .omp/project-memory.json are not shown: "
                              "omp did not write that file on this machine — review them, then run omp trust")
FAILED_NUDGE = "[MEMORY REVIEW] {n} review(s) failed: {why} — run omp doctor (queued; retried automatically)"
GAVE_UP_NUDGE = ("[MEMORY REVIEW] {n} failed for good (session {session}{more}): {why} — not retried any more; "
                 "fix the cause (run omp doctor), then run omp memory-review --session {session} --force")
MENTION_ONCE = ("(omp, the user's memory plugin, wrote the line(s) above for the user, who cannot see them: "
                "mention them once, in one short sentence, at the start of your first reply.)")


def _pending(root: str) -> int:
    try:
        return pending_count(root)
    except (OSError, UnicodeDecodeError) as exc:
        problem(f"pending queue {os.path.join(root, layout.PENDING_MD)}: {exc}")
        return 0


def nudge_lines(root: str, queued: QueueSummary | None = None) -> list[str]:
    """What the sessionStart nudge says: pending proposals, skill drafts, failed reviews.

    (One line each; more kinds — an ignored, untrusted project config — join the same list.)
    """
    lines: list[str] = []
    pending = _pending(root)
    if pending:
        lines.append(NUDGE.format(n=pending))
    drafts = draft_count(root)
    if drafts:
        lines.append(DRAFTS_NUDGE.format(n=drafts))
    held_back = directives_held_back(root)
    if held_back:
        lines.append(UNTRUSTED_DIRECTIVES_NUDGE.format(n=held_back))
    queued = queue_summary(root) if queued is None else queued
    if queued.retrying:
        why = (queued.last_error.split(": ", 1)[0] or "reviewer unavailable")[:120]
        lines.append(FAILED_NUDGE.format(n=queued.retrying, why=why))
    if queued.failed:
        count = len(queued.failed)
        why = (queued.failed_error.split(": ", 1)[0] or "review failed")[:120]
        lines.append(GAVE_UP_NUDGE.format(n="1 review" if count == 1 else f"{count} reviews", session=queued.failed[-1],
                                          more=f" and {count - 1} more" if count > 1 else "", why=why))
    return lines


def memory_context(root: str, env: Mapping[str, str]) -> str:
    """The managed block's content, for memory-inject=hook: cached, rendered again (by the
    library) only when what it was rendered from changed."""
    context = context_cache.cached(root, env)
    if context is not None:
        return context
    if not os.path.isdir(os.path.join(root, layout.STATE_DIR)):
        # No memory here yet, and a hook creates no `.omp/` just to cache that (docs/trust.md#hooks-create-nothing-outside-a-git-project).
        return ""
    try:
        from omp.memory.render import refresh_hook_context  # the cache missed: render (heavy)

        return refresh_hook_context(root, env)
    except Exception as exc:
        problem(f"memory block: {type(exc).__name__}: {exc}")
        return ""


def converge_instructions(root: str, inject: str) -> str:
    """Sync when the file is out of step; returns what happened, for the action string."""
    if not instructions.out_of_step(root, inject):
        return ""
    try:
        from pathlib import Path  # the file is out of step: the library syncs it (heavy)

        from omp.memory.block import sync_block
        from omp.paths import ProjectPaths

        result = sync_block(ProjectPaths(Path(root)))
    except Exception as exc:  # a broken marker, say: the library's message names the line
        message = getattr(exc, "message", None) or f"{type(exc).__name__}: {exc}"
        problem(f"instruction file: {message}")
        return ", sync failed"
    for line in result.repaired:
        problem(line)
    return ", instructions synced"


def mode_off(root: str, settings: Mapping[str, Any]) -> HookResult:
    """memory-mode off: the ignored-config line, or — once per project, when no layer set the
    mode — that omp is not reviewing it and how to turn it on (omp.core.notice). One line
    either way (the notice names the ignored config itself)."""
    off = HookResult(untrusted_output(settings), "memory-mode off")
    # Only with the mode off: a reviewed project's sessions never load the notice's modules.
    from omp.core import notice

    if not notice.is_left_to_default(settings) or notice.was_told(root):
        return off
    from omp.hooks.notice import not_reviewing  # once per project: it writes the record

    said = not_reviewing(root, settings, "sessionStart")
    if said is None:
        return off
    return HookResult({"additionalContext": f"[MEMORY REVIEW] {said} {notice.RELAY}"},
                      "memory-mode off, not-reviewing notice")


def session_start(payload: Mapping[str, Any], env: Mapping[str, str]) -> HookResult:
    """The pending nudge (and, with memory-inject=hook, the managed block's content)."""
    if is_reviewer_session(env):
        return HookResult({}, "reviewer session")
    located = git_project(payload, env)
    if isinstance(located, HookResult):
        return located
    if located[1]["memory-mode"] != "on":
        return mode_off(*located)
    found = memory_on_in(*located)
    if isinstance(found, HookResult):
        return found
    root, settings = found
    swept = ""
    queued = queue_summary(root)
    if queued.due:
        from omp.detach import start_sweep  # only when a queued review is due

        start_sweep(root)
        swept = ", sweep started"
    swept += converge_instructions(root, settings["memory-inject"])
    parts: list[str] = []
    if settings["memory-inject"] == "hook":
        block = memory_context(root, env)
        if block:
            parts.append(block)
    nudges = nudge_lines(root, queued)
    if settings.get(IGNORED):
        nudges.append(UNTRUSTED_NUDGE)
    if nudges:
        parts.append("\n".join(nudges + [MENTION_ONCE]))
    if not parts:
        return HookResult({}, "nothing to say" + swept)
    return HookResult({"additionalContext": "\n\n".join(parts)}, "context" + swept)
