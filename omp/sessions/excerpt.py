"""A tool output as the packet and the explicit pass see it: a labelled head and tail excerpt.

`excerpt_tool` makes it from the whole output, or from an output read by its ends (a Clip,
`omp.sessions.lines`); secrets are redacted (by the caller's `clean`) before the cut.
"""

from __future__ import annotations

import re
from typing import Callable

from omp.safety.secrets import may_hold_key_block
from omp.sessions.lines import Clip, about, omission_marker
from omp.sessions.messages import RawMessage

TOOL_HEAD_CHARS = 700
TOOL_TAIL_CHARS = 500
EXCERPT_MARGIN_CHARS = 32 * 1024  # kept around a tool excerpt's cuts before cleaning (> any secret)
# The margin when the output holds no private-key block (`may_hold_key_block`: the one secret
# that spans lines and kilobytes): wider than any other secret omp or detect-secrets finds (at
# most 1,200 characters after its trigger, the trigger at most 80 before it) with room to spare.
# Redacting 32 K around both cuts of every ordinary 20–60 KB output cost a 1 MB review ≈ 30 ms.
SMALL_EXCERPT_MARGIN_CHARS = 4 * 1024

# Of a tool output read by its ends, what its excerpt can show: the head and tail and the
# margin redaction looks through (the window grows if whitespace or escapes leave less).
TOOL_CLIP_BYTES = 48 * 1024
TOOL_CLIP_MIN_HEAD = TOOL_HEAD_CHARS + EXCERPT_MARGIN_CHARS + 100
TOOL_CLIP_MIN_TAIL = TOOL_TAIL_CHARS + EXCERPT_MARGIN_CHARS + 100


def tool_header(name: str | None, failed: bool, total_chars: int, approximate: bool = False) -> str:
    what = f"tool output: {name}" if name else "tool output"
    if failed:
        what += ", failed"
    size = f"about {about(total_chars):,}" if approximate else f"{total_chars:,}"
    return f"({what}; {size} chars)"


def cut_head_tail(text: str, head: int, tail: int, already_omitted: int = 0,
                  approximate: bool = False) -> tuple[str, int]:
    """`text` reduced to about `head` + `tail` characters around an omission marker.

    Cuts land on whitespace near the limits, so no token (or redaction marker) is split.
    Returns the text and how many characters were left out (0 when nothing was);
    `already_omitted` counts characters the caller removed from the middle beforehand
    (`approximate`: that count is an estimate, and the marker says "about").
    """
    if len(text) <= head + tail + 80:
        return text, 0
    head_end = _snap_back(text, head)
    tail_start = _snap_forward(text, len(text) - tail)
    if tail_start <= head_end:
        return text, 0
    omitted = tail_start - head_end + already_omitted
    shown = about(omitted) if approximate else omitted
    return f"{text[:head_end].rstrip()}\n{omission_marker(shown, approximate)}\n{text[tail_start:].lstrip()}", omitted


def _snap_back(text: str, at: int) -> int:
    window = max(16, at // 5)
    cut = max(text.rfind("\n", at - window, at), text.rfind(" ", at - window, at))
    return cut if cut > 0 else at


def _snap_forward(text: str, at: int) -> int:
    window = max(16, (len(text) - at) // 5)
    candidates = [i for i in (text.find("\n", at, at + window), text.find(" ", at, at + window)) if i >= 0]
    return min(candidates) + 1 if candidates else at


def excerpt_tool(raw: RawMessage, clean: Callable[[str], str] | None = None) -> str:
    """Tool output as a labelled head and tail excerpt.

    `clean` (the packet's redaction) runs before the cut, so a cut never leaves half a
    secret. Only the ends are ever shown, so a huge output is first reduced to its ends plus a
    margin wider than any secret: nothing is scanned twice, and the megabytes in between not
    at all. An output read by its ends (`raw.clip`) is excerpted from them the same way; its
    length, and so what the marker says was left out, is then an estimate.
    """
    if raw.clip is not None:
        return _excerpt_clip(raw, raw.clip, clean)
    margin = excerpt_margin(raw.text)
    longest = TOOL_HEAD_CHARS + TOOL_TAIL_CHARS + 2 * margin
    start, end = _strip_bounds(raw.text) if len(raw.text) > longest else (0, 0)
    skipped = 0
    if end - start > longest:
        # `raw.text.strip()` without the copy: the output may be tens of megabytes.
        head = raw.text[start : start + TOOL_HEAD_CHARS + margin]
        tail = raw.text[end - (TOOL_TAIL_CHARS + margin) : end]
        skipped = end - start - len(head) - len(tail) - 1  # the joining newline is omitted too
        text = f"{head}\n{tail}"
    else:
        text = raw.text[start:end] if end else raw.text.strip()
    if clean is not None:
        text = clean(text)
    body, _ = cut_head_tail(text, TOOL_HEAD_CHARS, TOOL_TAIL_CHARS, already_omitted=skipped)
    return f"{tool_header(raw.tool_name, raw.tool_failed, len(raw.text))}\n{body}"


def excerpt_margin(text: str) -> int:
    """How far beyond a cut an excerpt of `text` is redacted: the full margin when a private-key
    block may be in it, else the small one."""
    return EXCERPT_MARGIN_CHARS if may_hold_key_block(text) else SMALL_EXCERPT_MARGIN_CHARS


def clip_ends(clip: Clip) -> tuple[str, str, int]:
    """The ends of a clipped output an excerpt is made of: the stripped text's first and last
    characters, as many as the excerpt shows plus the margin it is redacted over; and the
    length of the stripped text."""
    head = clip.head.lstrip()
    tail = clip.tail.rstrip()
    stripped = clip.chars - (len(clip.head) - len(head)) - (len(clip.tail) - len(tail))
    head = head[: TOOL_HEAD_CHARS + EXCERPT_MARGIN_CHARS]
    return head, tail[len(tail) - min(len(tail), TOOL_TAIL_CHARS + EXCERPT_MARGIN_CHARS):], stripped


def cut_on_the_ends(head: str, tail: str) -> bool:
    """Is an uncleaned excerpt of these ends (`clip_ends`) cut from each end on its own, its
    text then at most head[:TOOL_HEAD_CHARS] and tail[-TOOL_TAIL_CHARS:] around the marker?
    `cut_head_tail` of head + "\n" + tail looks at no more than those two ends of it."""
    return (len(head) >= TOOL_HEAD_CHARS and len(tail) >= TOOL_TAIL_CHARS
            and len(head) + len(tail) + 1 > TOOL_HEAD_CHARS + TOOL_TAIL_CHARS + 80)


def _excerpt_clip(raw: RawMessage, clip: Clip, clean: Callable[[str], str] | None) -> str:
    """`excerpt_tool` of an output known by its ends: what it does with the whole text's ends
    (the stripped text's first and last characters plus the margin), from the Clip's."""
    head, tail, stripped = clip_ends(clip)
    skipped = max(0, stripped - len(head) - len(tail) - 1)
    header = tool_header(raw.tool_name, raw.tool_failed, clip.chars, not clip.exact)
    if clean is None and cut_on_the_ends(head, tail):
        # The same cuts as cut_head_tail's, made on the pieces (the scan excerpts every tool
        # output); each lands within the first TOOL_HEAD_CHARS, or the last TOOL_TAIL_CHARS.
        head_end = _snap_back(head, TOOL_HEAD_CHARS)
        tail_start = _snap_forward(tail, len(tail) - TOOL_TAIL_CHARS)
        omitted = len(head) + 1 + tail_start - head_end + skipped
        marker = omission_marker(about(omitted) if not clip.exact else omitted, not clip.exact)
        return f"{header}\n{head[:head_end].rstrip()}\n{marker}\n{tail[tail_start:].lstrip()}"
    text = f"{head}\n{tail}"
    if clean is not None:
        text = clean(text)
    body, _ = cut_head_tail(text, TOOL_HEAD_CHARS, TOOL_TAIL_CHARS, already_omitted=skipped,
                            approximate=not clip.exact)
    return f"{header}\n{body}"


_NOT_SPACE = re.compile(r"\S")


def _strip_bounds(text: str) -> tuple[int, int]:
    """Where `text.strip()` would start and end (0, 0 when it is all whitespace)."""
    first = _NOT_SPACE.search(text)
    if first is None:
        return 0, 0
    end = len(text)
    while text[end - 1].isspace():
        end -= 1
    return first.start(), end


def message_text(raw: RawMessage) -> str:
    """The text a Message carries: tool output as a labelled excerpt, the rest as is."""
    return excerpt_tool(raw) if raw.origin == "tool" else raw.text
