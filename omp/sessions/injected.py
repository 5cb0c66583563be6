"""Is a "user" message text a hook injected (omp's own sessionStart above all)? Then it is not the
user's, and memory is never re-extracted from it."""

from __future__ import annotations

from typing import Collection

# What omp itself injects into a session (the sessionStart nudge and memory block, see
# omp/hooks/start.py NUDGE and omp/memory/block.py): a user message that starts with one of these is
# omp's own text, never the user's, so memory is never re-extracted from itself.
OMP_CONTEXT_PREFIXES = (
    "[MEMORY REVIEW]",
    "## Project memory (kept by omp)",
    "## Personal directives (kept by omp)",
    "<!-- omp:memory:start -->",
)
# A user message that is this long and lies inside a hook's additionalContext is that context.
MIN_INJECTED_CHARS = 24
# Hook contexts a "user" message is compared with: the most recent distinct ones. A hook that
# injects something new on every prompt would otherwise make each message's check grow with the
# session (quadratic in all); a context is seen before the messages it could appear in.
MAX_REMEMBERED_CONTEXTS = 64


def is_omp_context(text: str) -> bool:
    """Does this message start with what omp's own sessionStart injects?"""
    return text.lstrip().startswith(OMP_CONTEXT_PREFIXES)


def inside_context(text: str, contexts: Collection[str]) -> bool:
    if not contexts:
        return False
    longest = max(len(context) for context in contexts)
    if len(text) > 2 * longest + 64 and len(" ".join(text[: 2 * longest + 64].split())) > longest:
        return False  # longer than any context even folded (a huge paste is not split whole)
    folded = " ".join(text.split())
    return len(folded) >= MIN_INJECTED_CHARS and any(folded in context for context in contexts)
