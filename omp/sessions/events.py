"""Reading a Copilot session's `events.jsonl` as a stream (SPEC §4.2).

A session lives in `C/session-state/<id>/events.jsonl`, one JSON event per line
(`COPILOT.md` §4); finding it is `omp.sessions.discovery`'s job. Conversation text comes from
three event types:

- `user.message` → `data.content` (as typed; `transformedContent` is what the model saw, with
  injected context, and is ignored);
- `assistant.message` → `data.content`, plus one line per `data.toolRequests` entry:
  `name: intentionSummary | description | command`;
- `tool.execution_complete` → `data.result.content` (or `detailedContent`), kept as a short
  head/tail excerpt labelled as tool output.

A generic `{"role": ..., "content": ...}` line (other producers) is accepted too. Everything
else (`system.message`, `hook.*`, `session.*`, turn markers, usage records) carries no
conversation and is counted in `skipped_events`.

Reading is a stream, in blocks (`omp.sessions.lines`), never the whole file, and costs little
more than finding the line ends:

- the event type is read at the start of each line (Copilot writes `{"type":"…",` first; other
  layouts are matched with a pattern, and a line without a type is decoded): lines that carry
  no conversation are counted and never copied nor decoded; runs of the record types Copilot
  writes around every turn (hooks, turn markers, usage records) are passed over by one search
  in C each (`_PASSED_OVER`, `LineSource`'s `skip`), not looked at line by line;
- a `tool.execution_complete` line (most of a session's bytes) is not decoded whole: its
  `result.content` string is found by its bounds, the line is decoded with that string left
  out (everything else of it: toolCallId, success, a detailedContent, checked for being JSON),
  and of the string only its ends are decoded, enough for the excerpt. Its length is then an
  estimate, and the excerpt's header says "about N chars" (exact when the output was decoded
  whole). A line in another layout is decoded whole, as before;
- user and assistant lines are decoded whole: the explicit pass reads all of a user message;
- a conversation line (or what is decoded of a tool output line) is decoded by msgspec, typed to
  the fields read (`fast_event`), and by json whenever msgspec refuses it or might read it
  otherwise than json would: what is read does not depend on which decoded it;
- no line longer than MAX_HELD_BYTES (8 MiB) is ever held or decoded whole. Such a line is
  streamed and rebuilt without its long strings (`omp.sessions.lines.Skeleton`); of each, its
  first and last 384 KiB are kept. A 60 MB paste is therefore a message of its head and tail
  around an omission marker: the explicit pass finds requests in both (it reads a long
  message's first and last 128 K characters anyway, `omp.intents.SCAN_CHARS`), and the middle
  of the paste is not read at all; a 60 MB tool output is excerpted from its ends like any other.

A review reads the messages once, as `StreamedMessage`s (`SessionReader.iter_streamed`): a user
message's text is at hand, but a tool output's excerpt and an assistant's text (its tool
requests redacted) are made only when read. The explicit pass reads them only when they might
hold a planted rule (`StreamedMessage.may_hold`); the packet reads back the few it chooses.

Lines that do not parse are counted in `bad_lines`. (A line is checked for being JSON except in
the middle of a long string it is read by the ends of.) A last line without its newline is a
write in progress: it is not consumed, and `end_offset` (the cursor a later review resumes
from) stops before it.
"""

from __future__ import annotations

import functools
import json
import os
import re
import stat
import sys
from pathlib import Path
from typing import IO, Any, Callable, Collection, Generic, Iterator, Literal, TypeVar

import msgspec
from msgspec import Struct

from omp.errors import OmpError
from omp.intents.messages import SCAN_CHARS
from omp.safety.secrets import may_hold_key_block, redact
from omp.sessions import lines
from omp.sessions.provenance import tool_label
from omp.sessions.lines import (
    Clip,
    LineSource,
    RawClip,
    Skeleton,
    about,
    decode_string,
    line_at,
    omission_marker,
    open_clip,
    restore,
    stream_range,
    string_end,
)
from omp.substrings import SubstringSet, substring_set

Origin = Literal["user", "assistant", "tool"]
ORIGINS: tuple[Origin, ...] = ("user", "assistant", "tool")

TOOL_HEAD_CHARS = 700
TOOL_TAIL_CHARS = 500
EXCERPT_MARGIN_CHARS = 32 * 1024  # kept around a tool excerpt's cuts before cleaning (> any secret)
# The margin when the output holds no private-key block (`may_hold_key_block`: the one secret
# that spans lines and kilobytes): wider than any other secret omp or detect-secrets finds (at
# most 1,200 characters after its trigger, the trigger at most 80 before it) with room to spare.
# Redacting 32 K around both cuts of every ordinary 20–60 KB output cost a 1 MB review ≈ 30 ms.
SMALL_EXCERPT_MARGIN_CHARS = 4 * 1024
TOOL_SUMMARY_PART_CHARS = 200
SUMMARY_MARGIN_CHARS = 8 * 1024  # scanned beyond a summary part's cut before it is cut

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

# Event types that never carry conversation: skipped without parsing the line.
_CONVERSATION_TYPES = frozenset({b"user.message", b"assistant.message", b"tool.execution_complete", b"message"})
_TOOL_TYPE = b"tool.execution_complete"
# Lines of these types, as Copilot writes them, are passed over by LineSource without being
# looked at one by one (counted as skipped events all the same); a type not listed here is
# skipped by its type, as before. A hook.end is passed over unless it holds "additionalContext"
# (`_hook_end` reads no other), which the pattern looks for up to the line's end.
_PASSED_OVER_TYPES = (
    b"hook.start", b"assistant.turn_start", b"assistant.turn_end", b"session.usage_record", b"tool.execution_start",
    b"system.message", b"session.start", b"session.resume", b"session.shutdown", b"session.error", b"session.info",
    b"session.model_change", b"tool.execution_partial_result", b"assistant.reasoning",
)
_PASSED_OVER: re.Pattern[bytes] | None = re.compile(
    rb'\{"type":"(?:' + b"|".join(re.escape(kind) for kind in _PASSED_OVER_TYPES) + rb')"'
    rb'|\{"type":"hook\.end"(?![^\n]*additionalContext)'
)
_TYPE_AT_START = re.compile(rb'^\s*\{\s*"type"\s*:\s*"([^"\\]{1,100})"')
_TYPE_AT = re.compile(rb'\s*\{\s*"type"\s*:\s*"([^"\\]{1,100})"')  # for match(buf, pos): no "^"
_TOOL_CALL_ID = re.compile(rb'"toolCallId"\s*:\s*"([^"\\]{1,200})"')


class Message(Struct, frozen=True):
    origin: Origin
    text: str
    seq: int  # 0-based position in the conversation, counting only messages (from the cursor)


# --------------------------------------------------------------------------------------------
# Parsing one event


class RawMessage(Struct, frozen=True):
    """A message as found in one line, before excerpting: tool output is still whole, or, read
    by its ends, a Clip (`clip`; `text` is then its head and tail around an omission marker)."""

    origin: Origin
    text: str
    tool_name: str | None = None
    tool_failed: bool = False
    clip: Clip | None = None


def _one_line(value: Any, limit: int = TOOL_SUMMARY_PART_CHARS) -> str:
    if not isinstance(value, str):
        return ""
    text = " ".join(value.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _redacted(value: Any) -> Any:
    """Secrets in a whole part redacted, so the cut that follows never keeps half of one."""
    if isinstance(value, RawClip):
        opened = open_clip(value)
        value = opened.head if isinstance(opened, Clip) else opened
    if not isinstance(value, str) or not value:
        return value
    # Only the start is ever shown; a margin far wider than any secret is enough (a 100 KB
    # heredoc command is not scanned whole, twice per review).
    return _redacted_part(value[: TOOL_SUMMARY_PART_CHARS + SUMMARY_MARGIN_CHARS])


@functools.lru_cache(maxsize=512)
def _redacted_part(part: str) -> str:
    # Sessions repeat their commands and descriptions ("pytest -q", "git status"): a part
    # redacted once is not redacted again (the redaction of a short text costs more than
    # reading the line it came from).
    return redact(part)[0]


def summarize_tool_request(request: Any) -> str:
    """`name: intentionSummary | description | command` on one line (empty parts left out).

    Each part is redacted whole before it is cut to TOOL_SUMMARY_PART_CHARS: a command holding
    a 40-character token cut at 200 would otherwise pass the first 27 characters of it on.
    """
    if not isinstance(request, dict):
        return ""
    name = _one_line(request.get("name")) or "tool"
    parts: list[str] = []
    for value in _request_parts(request):
        part = _one_line(_redacted(value))
        if part and part not in parts:
            parts.append(part)
    return f"{name}: {' | '.join(parts)}" if parts else name


def _request_arguments(request: dict[str, Any]) -> dict[str, Any]:
    arguments = request.get("arguments")
    if isinstance(arguments, RawClip):  # a huge JSON-string argument of an over-long line
        arguments = _as_text(arguments)
    if isinstance(arguments, str):  # some producers keep arguments as a JSON string
        try:
            arguments = lines.json_loads(arguments)
        except ValueError:
            arguments = {"command": arguments}
    return arguments if isinstance(arguments, dict) else {}


def _request_parts(request: dict[str, Any]) -> tuple[Any, ...]:
    """The values a tool request's summary is made of, after its name, in order (any type)."""
    arguments = _request_arguments(request)
    return (
        request.get("intentionSummary"),
        arguments.get("description"),
        arguments.get("command"),
        arguments.get("path") if not arguments.get("command") else None,
    )


def _text_content(content: Any) -> str | Clip:
    """A string, or the text parts of an OpenAI/Anthropic-style content list. A string of an
    over-long line read by its ends is a Clip."""
    if isinstance(content, (str, Clip)):
        return content
    if isinstance(content, RawClip):
        return _open_text_clip(content)
    if isinstance(content, list):
        texts = []
        for part in content:
            if isinstance(part, (str, RawClip)):
                texts.append(_as_text(part))
            elif isinstance(part, dict) and isinstance(part.get("text"), (str, RawClip)):
                texts.append(_as_text(part["text"]))
        return "\n".join(texts)
    return ""


def _as_text(value: str | RawClip | Clip) -> str:
    if isinstance(value, RawClip):
        value = _open_text_clip(value)
    return value.marked() if isinstance(value, Clip) else value


# Of a message read by its ends (a paste in an over-long line), each end is decoded as far as
# anyone reads it: the explicit pass reads a huge message's first and last SCAN_CHARS
# characters, the packet shows less (tests/test_sessions_stream.py holds it to that). Decoding
# all the skeleton kept of each end (CLIP_WINDOW_BYTES, three times as much for ASCII) made a
# 60 MB paste cost a review megabytes more than a small session.
_TEXT_CLIP_BYTES = SCAN_CHARS + 4 * 1024


def _open_text_clip(raw: RawClip) -> str | Clip:
    return open_clip(raw, _TEXT_CLIP_BYTES, _TEXT_CLIP_BYTES, SCAN_CHARS, SCAN_CHARS)


def _blank(text: str | Clip) -> bool:
    if isinstance(text, Clip):  # its middle was not read: blank only if both of its ends are
        return _all_space(text.head) and _all_space(text.tail)
    return _all_space(text)


def _all_space(text: str) -> bool:
    """`not text.strip()`, without copying the text: it stops at the first character that is
    not whitespace."""
    return not text or text.isspace()


def _assistant_text(data: dict[str, Any]) -> str | Clip:
    content = _text_content(data.get("content"))
    requests = data.get("toolRequests")
    summaries = [summarize_tool_request(r) for r in requests] if isinstance(requests, list) else []
    summaries = [f"[tool request] {line}" for line in summaries if line]
    if isinstance(content, Clip):  # a huge reply read by its ends: its requests end its tail
        if not summaries:
            return content
        added = "\n" + "\n".join(summaries)
        return Clip(content.head.lstrip(), content.tail.rstrip() + added, content.chars + len(added), content.exact)
    text = content.strip()
    return "\n".join(([text] if text else []) + summaries)


def _reply_has_text(data: dict[str, Any]) -> bool:
    """`bool(_assistant_text(data))` without making the summaries: every tool request that is
    an object has one (its name, or "tool"). For data with no RawClip in it (decoded whole)."""
    content = _text_content(data.get("content"))
    if isinstance(content, Clip) or not _all_space(content):
        return True
    requests = data.get("toolRequests")
    return isinstance(requests, list) and any(isinstance(request, dict) for request in requests)


def _reply_pieces(data: dict[str, Any]) -> list[str] | None:
    """The strings `_assistant_text(data)` is made of: its content, and each tool request's name
    and parts before they are redacted and cut. None when one is not a plain string."""
    content = _text_content(data.get("content"))
    if not isinstance(content, str):
        return None
    pieces = [content]
    requests = data.get("toolRequests")
    for request in requests if isinstance(requests, list) else ():
        if not isinstance(request, dict):
            continue
        for value in (request.get("name"), *_request_parts(request)):
            if isinstance(value, str):
                pieces.append(value)
            elif isinstance(value, RawClip):
                return None
    return pieces


# Of a tool output read by its ends, what its excerpt can show: the head and tail and the
# margin redaction looks through (the window grows if whitespace or escapes leave less).
_TOOL_CLIP_BYTES = 48 * 1024
_TOOL_CLIP_MIN_HEAD = TOOL_HEAD_CHARS + EXCERPT_MARGIN_CHARS + 100
_TOOL_CLIP_MIN_TAIL = TOOL_TAIL_CHARS + EXCERPT_MARGIN_CHARS + 100


def _tool_text(value: Any) -> str | Clip:
    if isinstance(value, RawClip):
        return open_clip(value, _TOOL_CLIP_BYTES, _TOOL_CLIP_BYTES, _TOOL_CLIP_MIN_HEAD, _TOOL_CLIP_MIN_TAIL)
    return _text_content(value)


def _tool_output(data: dict[str, Any]) -> str | Clip:
    result = data.get("result")
    if isinstance(result, dict):
        text = _tool_text(result.get("content"))
        if _blank(text):
            text = _tool_text(result.get("detailedContent"))
        return text
    if isinstance(result, (str, RawClip)):
        return _tool_text(result)
    error = data.get("error")
    if isinstance(error, dict):
        return _tool_text(error.get("message"))
    return _tool_text(error)


def _message(origin: Origin, text: str | Clip, tool_name: str | None = None, failed: bool = False) -> RawMessage:
    if isinstance(text, Clip):
        return RawMessage(origin, text.marked(), tool_name, failed, text)
    return RawMessage(origin, text, tool_name, failed)


_GENERIC_ROLES: dict[str, Origin] = {
    "user": "user",
    "human": "user",
    "assistant": "assistant",
    "model": "assistant",
    "ai": "assistant",
    "tool": "tool",
    "function": "tool",
}


def parse_event(event: Any, tool_names: dict[str, str] | None = None) -> RawMessage | None:
    """The message one decoded event carries, or None. `tool_names` maps toolCallId → name.

    Raises ValueError when a string of an over-long line (a RawClip) does not decode."""
    if not isinstance(event, dict):
        return None
    kind = event.get("type")
    data = event.get("data")
    if isinstance(kind, str) and isinstance(data, dict):
        if kind == "user.message":
            text = _text_content(data.get("content"))
            return None if _blank(text) else _message("user", text)
        if kind == "assistant.message":
            _remember_tool_names(data, tool_names)
            reply = _assistant_text(data)
            return _message("assistant", reply) if reply else None
        if kind == "tool.execution_complete":
            call_id = data.get("toolCallId")
            name = data.get("toolName")
            if tool_names is not None and isinstance(call_id, str):
                # The request's label says more than the event's bare name (where its output came
                # from: `omp.sessions.provenance`).
                name = _better_label(name, tool_names.pop(call_id, None))
            # Kept even when empty, so that every tool.execution_complete line is one message
            # (the packet's first pass counts them without decoding).
            failed = data.get("success") is False
            return _message("tool", _tool_output(data), name if isinstance(name, str) else None, failed)
        if kind != "message":
            return None
    role = event.get("role")
    if isinstance(role, str) and role.lower() in _GENERIC_ROLES:
        text = _text_content(event.get("content"))
        if not _blank(text):
            origin = _GENERIC_ROLES[role.lower()]
            name = event.get("name") if origin == "tool" else None
            return _message(origin, text, name if isinstance(name, str) else None)
    return None


def _is_reply(event: Any) -> bool:
    """Is this an event `parse_event` reads as an assistant.message?"""
    return isinstance(event, dict) and event.get("type") == "assistant.message" and isinstance(event.get("data"), dict)


_MAX_TOOL_NAMES = 4096


def _remember_tool_names(data: dict[str, Any], tool_names: dict[str, str] | None) -> None:
    requests = data.get("toolRequests")
    if tool_names is None or not isinstance(requests, list):
        return
    for request in requests:
        if isinstance(request, dict) and isinstance(request.get("toolCallId"), str) and isinstance(request.get("name"), str):
            if len(tool_names) >= _MAX_TOOL_NAMES:  # calls that never completed: forget the oldest
                tool_names.pop(next(iter(tool_names)))
            arguments = _request_arguments(request)
            tool_names[request["toolCallId"]] = tool_label(request["name"], arguments, _redacted)


def _better_label(name: Any, label: str | None) -> str | None:
    """The remembered label of a tool call when it names the same tool as the event (or the
    event names none), else the event's name."""
    if not isinstance(name, str):
        return label
    return label if label is not None and label.split(" (", 1)[0] == name else name


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


def _clip_ends(clip: Clip) -> tuple[str, str, int]:
    """The ends of a clipped output an excerpt is made of: the stripped text's first and last
    characters, as many as the excerpt shows plus the margin it is redacted over; and the
    length of the stripped text."""
    head = clip.head.lstrip()
    tail = clip.tail.rstrip()
    stripped = clip.chars - (len(clip.head) - len(head)) - (len(clip.tail) - len(tail))
    head = head[: TOOL_HEAD_CHARS + EXCERPT_MARGIN_CHARS]
    return head, tail[len(tail) - min(len(tail), TOOL_TAIL_CHARS + EXCERPT_MARGIN_CHARS):], stripped


def _cut_on_the_ends(head: str, tail: str) -> bool:
    """Is an uncleaned excerpt of these ends (`_clip_ends`) cut from each end on its own, its
    text then at most head[:TOOL_HEAD_CHARS] and tail[-TOOL_TAIL_CHARS:] around the marker?
    `cut_head_tail` of head + "\n" + tail looks at no more than those two ends of it."""
    return (len(head) >= TOOL_HEAD_CHARS and len(tail) >= TOOL_TAIL_CHARS
            and len(head) + len(tail) + 1 > TOOL_HEAD_CHARS + TOOL_TAIL_CHARS + 80)


def _excerpt_clip(raw: RawMessage, clip: Clip, clean: Callable[[str], str] | None) -> str:
    """`excerpt_tool` of an output known by its ends: what it does with the whole text's ends
    (the stripped text's first and last characters plus the margin), from the Clip's."""
    head, tail, stripped = _clip_ends(clip)
    skipped = max(0, stripped - len(head) - len(tail) - 1)
    header = tool_header(raw.tool_name, raw.tool_failed, clip.chars, not clip.exact)
    if clean is None and _cut_on_the_ends(head, tail):
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


# --------------------------------------------------------------------------------------------
# A conversation line, decoded by msgspec
#
# msgspec decodes a line in a third to a fifth of json's time. Its typed decoders read only the
# fields `parse_event` reads (the rest of the line is checked for being JSON and skipped);
# parse_event then reads a dict of those fields, in which an absent field is None, as
# `dict.get` gives it.


_Data = TypeVar("_Data")


class _Event(Struct, Generic[_Data]):
    type: str
    data: _Data


class _UserData(Struct):
    content: Any = None


class _ReplyData(Struct):
    content: Any = None
    toolRequests: Any = None


class _ToolData(Struct):
    toolCallId: Any = None
    toolName: Any = None
    success: Any = None
    result: Any = None
    error: Any = None


_TYPED_DECODERS: dict[bytes, Callable[[bytes | bytearray], Any]] = {
    b"user.message": msgspec.json.Decoder(_Event[_UserData]).decode,
    b"assistant.message": msgspec.json.Decoder(_Event[_ReplyData]).decode,
    _TOOL_TYPE: msgspec.json.Decoder(_Event[_ToolData]).decode,
}
_decode_any: Callable[[bytes | bytearray], Any] = msgspec.json.Decoder().decode
# The most digits `int()` takes (`sys.set_int_max_str_digits`, Python ≥ 3.10.7; 0: no limit).
_int_max_str_digits: Callable[[], int] = getattr(sys, "get_int_max_str_digits", lambda: 0)
# json decodes any line nested less deep than this (Python's recursion limit is 1,000 frames,
# and the reader runs far from it); msgspec goes a few levels deeper than json does. A line
# shorter than twice this cannot nest so deep: its opening brackets are not counted.
_SHALLOW = 500


def fast_event(line: bytes | bytearray, kind: bytes | None) -> Any:
    """The event of a conversation line of type `kind` as `loads(line)` gives it (of the fields
    parse_event reads, when decoded typed), decoded by msgspec; None when `kind` has no typed
    decoder (_TYPED_DECODERS), or msgspec refuses the line or cannot be trusted with it: the
    caller then decodes it with json.

    What msgspec accepts, json accepts and decodes to the same values (duplicate keys: the last
    wins in both), but for what msgspec lets through and json does not, which is sent to json:
    - a nesting deeper than json's recursion limit allows: a line with _SHALLOW brackets or more;
    - in a field the typed decoders skip (checked for being JSON, not decoded): bytes that are
      not UTF-8, and an integer of more digits than `int()` takes. Only an ASCII line shorter
      than that many digits is decoded typed; another is decoded whole (every string is decoded
      and checked, every integer made, as json does);
    - a later "type" than the one the line starts with (`kind`), which json's dict would keep.
    In what it decodes, msgspec refuses NaN and Infinity, lone surrogates (escaped, or as the
    bytes `surrogatepass` reads) and numbers beyond a float's range, which json takes: those
    lines go to json too.
    """
    decode = _TYPED_DECODERS.get(kind) if kind is not None else None
    if decode is None or len(line) >= 2 * _SHALLOW and line.count(b"{") + line.count(b"[") >= _SHALLOW:
        return None
    try:
        if not line.isascii() or len(line) > (_int_max_str_digits() or sys.maxsize):
            return _decode_any(line)
        event = decode(line)
    except (msgspec.DecodeError, RecursionError):
        return None
    if event.type.encode() != kind:
        return None
    return {"type": event.type, "data": msgspec.structs.asdict(event.data)}


def _decode_line(line: bytes | bytearray) -> Any:
    """`json.loads(line.strip())` without copying the line first.
    (JSON's own whitespace is all a line ever has around it; the strip is for the rest.)"""
    try:
        return loads(line)
    except ValueError:
        return lines.json_loads(line.strip())


def loads(line: bytes | bytearray) -> Any:
    """`lines.json_loads(line)`. Of a line that starts with "{" and a byte that is not NUL (every
    line Copilot writes), json.detect_encoding says UTF-8, always (a UTF-16 or UTF-32 text, or a
    byte-order mark, starts otherwise): the text is decoded as json.loads decodes it, without
    the look."""
    if len(line) > 1 and line[0] == 0x7B and line[1]:
        value = lines.json_loads(line.decode("utf-8", "surrogatepass"))
        # `surrogatepass` lets a surrogate's UTF-8 form (ED A0–BF ..) through: read as U+FFFD.
        return lines.repair_lone_surrogates(value) if b"\xed" in line else value
    return lines.json_loads(line)


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


# A tool output decoded whole up to this size is looked through for `may_hold`; a longer one
# (another producer's layout) has its excerpt made instead.
_LOOKED_THROUGH_CHARS = TOOL_HEAD_CHARS + TOOL_TAIL_CHARS + 2 * EXCERPT_MARGIN_CHARS


class StreamedMessage:
    """A message of a review's one pass (`SessionReader.iter_streamed`), whose text is made only
    when it is read (`text`), as `Message.text` would be.

    The explicit pass reads every user message whole, but of tool output and assistant text
    only what might hold a rule planted in it (`may_hold`). Making every tool output's excerpt
    and redacting every tool request's parts (the assistant's summary lines) cost more than
    reading their lines, for text nobody else reads in the pass.
    """

    __slots__ = ("origin", "seq", "_text", "_raw", "_reply")

    def __init__(self, origin: Origin, seq: int, text: str | None = None, raw: RawMessage | None = None,
                 reply: dict[str, Any] | None = None) -> None:
        self.origin = origin
        self.seq = seq
        self._text = text
        self._raw = raw  # a tool output, until its excerpt is made
        self._reply = reply  # an assistant.message's data, until its text is made

    @property
    def text(self) -> str:
        if self._text is None:
            if self._reply is not None:
                reply = _assistant_text(self._reply)
                self._text = reply.marked() if isinstance(reply, Clip) else reply
            else:
                assert self._raw is not None
                self._text = message_text(self._raw)
            self._raw = self._reply = None
        return self._text

    def may_hold(self, stems: tuple[str, ...]) -> bool:
        """False only if `text.lower()` holds none of `stems` (lower-case, each without
        whitespace at its ends or in a row, and without "\x00", "[" or "]"), decided from
        what the text is made of, before it is made:

        - an excerpt is its header (the tool's name and fixed words no stem is in) and pieces
          of the output, each line kept whole or cut: a stem it holds is in the name or the output,
          and of an output read by its ends, in what the excerpt shows of them (`_cut_on_the_ends`);
        - an assistant text is its content and, per tool request, its name and parts, each
          redacted (a secret becomes "[REDACTED:kind]", and no stem is in a marker nor crosses
          its brackets), with its whitespace runs made single spaces (a stem whose spaces are
          single stays whole), and cut: a stem it holds is in a piece with its whitespace
          folded the same way.

        The pieces are joined with "\x00", which no stem holds, so none is found across two."""
        if self._text is not None:
            return _holds_any(self._text.lower(), stems)
        if self._reply is not None:
            pieces = _reply_pieces(self._reply)
            return pieces is None or _holds_any_folded("\x00".join(pieces).lower(), stems)
        raw = self._raw
        assert raw is not None
        if raw.clip is not None:
            head, tail, _ = _clip_ends(raw.clip)
            if _cut_on_the_ends(head, tail):  # what the excerpt shows of them
                head, tail = head[:TOOL_HEAD_CHARS], tail[len(tail) - TOOL_TAIL_CHARS:]
            pieces = [raw.tool_name or "", head, tail]
        elif len(raw.text) <= _LOOKED_THROUGH_CHARS:
            pieces = [raw.tool_name or "", raw.text]
        else:
            return True
        return _holds_any("\x00".join(pieces).lower(), stems)


def _holds_any(lowered: str, stems: tuple[str, ...]) -> bool:
    return substring_set(stems).any_in(lowered)


def _holds_any_folded(lowered: str, stems: tuple[str, ...]) -> bool:
    """`_holds_any(" ".join(lowered.split()), stems)`, folding the whitespace only when a stem
    with a space in it might be there: a stem without whitespace is in the folded text if and
    only if it is in `lowered` (folding changes whitespace only), and a stem with a space holds
    each of its words, which are then in `lowered` too."""
    whole, spaced = _by_spacing(stems)
    if whole.any_in(lowered):
        return True
    candidates = [stem for stem, word in spaced if word in lowered]
    return bool(candidates) and any(map(" ".join(lowered.split()).__contains__, candidates))


@functools.lru_cache(maxsize=8)
def _by_spacing(stems: tuple[str, ...]) -> tuple[SubstringSet, tuple[tuple[str, str], ...]]:
    """The stems without a space, and each stem with one paired with its longest word."""
    whole = SubstringSet(stem for stem in stems if " " not in stem)
    spaced = tuple((stem, max(stem.split(), key=len)) for stem in stems if " " in stem)
    return whole, spaced


# --------------------------------------------------------------------------------------------
# A tool output line, read by the ends of its output

# Copilot writes `…,"success":true,"result":{"content":"…"…`: the output string starts right
# after this (a match is real structure: `{"` cannot occur inside a JSON string).
_CONTENT_KEY = b'"result":{"content":"'
_PREFIX_LIMIT = 64 * 1024  # the content key is looked for this far into the line
_SUFFIX_DECODED = 4 * 1024  # what follows the output string is decoded as is up to this size (else its skeleton)
# The output string is decoded whole up to this size, else its ends: at least as much of them
# as the excerpt shows (plus the width its cuts look around for whitespace).
_SCAN_HEAD_BYTES = 960
_SCAN_TAIL_BYTES = 720
_SCAN_MIN_HEAD = TOOL_HEAD_CHARS + 80
_SCAN_MIN_TAIL = TOOL_TAIL_CHARS + 90
# What the output string is replaced with while the rest of the line is decoded (a session
# cannot forge it: it holds a NUL and a random nonce).
_OUTPUT_MARK = "\x00omp-output:" + os.urandom(6).hex()
_OUTPUT_MARK_JSON = json.dumps(_OUTPUT_MARK).encode()[1:-1]


def tool_event_by_ends(buf: bytes | bytearray, start: int, stop: int) -> Any:
    """The event of the `tool.execution_complete` line `buf[start:stop]`, decoded without its
    output string but for the string's ends: `data.result.content` is a Clip (or the string
    itself, when it is short). None when the line is not in Copilot's layout, or does not
    decode this way: the caller decodes it whole.

    The output string's closing quote is found by `string_end`; the line is decoded with the
    string replaced by a mark (so toolCallId, success, detailedContent, every other field and
    the JSON of the whole line are checked as a whole decode checks them), and the mark must
    come out as `data.result.content`, which proves the string was that field. A long
    detailedContent (or any long string after the output) is left out the same way.
    """
    key = buf.find(_CONTENT_KEY, start, min(stop, start + _PREFIX_LIMIT))
    if key < 0 or buf[key - 1] not in b"{,":
        return None
    first = key + len(_CONTENT_KEY)
    end = string_end(buf, first, stop)
    if end < 0:
        return None
    clips: dict[str, RawClip] = {}
    after: bytes | bytearray | None
    if stop - end > _SUFFIX_DECODED:  # a detailedContent, say: kept by its ends, decoded if read
        rest = Skeleton(window=_TOOL_CLIP_BYTES, keep_whole=_SUFFIX_DECODED)
        rest.feed(buf, end + 1, stop)
        after = rest.skeleton()
        if after is None:
            return None
        clips = rest.clips
    else:
        after = buf[end + 1 : stop]
    outside = buf[start:first] + _OUTPUT_MARK_JSON + b'"' + after  # the line, its output a mark
    event = fast_event(outside, _TOOL_TYPE)
    if event is None:
        try:
            event = loads(outside)
        except ValueError:
            return None
    data = event.get("data") if isinstance(event, dict) else None
    result = data.get("result") if isinstance(data, dict) else None
    if not isinstance(result, dict) or result.get("content") != _OUTPUT_MARK:
        return None
    try:
        result["content"] = decode_string(buf, first, end, _SCAN_HEAD_BYTES, _SCAN_TAIL_BYTES,
                                          _SCAN_MIN_HEAD, _SCAN_MIN_TAIL)
    except ValueError:
        return None
    return restore(event, clips)


# --------------------------------------------------------------------------------------------
# Streaming a file


class Entry(Struct, frozen=True):
    """Where one message is, without its text: what the packet's first pass keeps per message."""

    seq: int
    origin: Origin
    offset: int  # byte offset of its line
    tool_name: str | None = None


class NotRegularFile(OSError):
    """A session file that is a FIFO, a device or a folder: skipped, never read (SPEC §4.1)."""


def open_regular(path: Path) -> IO[bytes]:
    """Open a regular file for reading without ever blocking.

    A plain open() of a FIFO waits for a writer that may never come (and a device can stream
    forever), so the file is opened non-blocking and checked with fstat on the open descriptor
    (no window between a check and the open). Raises NotRegularFile for anything else.
    """
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise NotRegularFile(f"{path} is not a regular file")
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def is_regular_file(path: Path) -> bool:
    """stat only (never opens): a regular file, following symlinks."""
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except (OSError, ValueError):
        return False


class SessionReader:
    """Streams one `events.jsonl` from a byte offset (a cursor).

    Counters, valid after iterating: `bad_lines` (lines that did not parse, a torn line),
    `skipped_events` (events that carry no conversation), `messages`, `end_offset` (byte
    offset just after the last complete line: the next cursor), `partial_tail` (True when the
    file ended in a line without its newline).
    """

    def __init__(self, path: Path, cursor: int = 0) -> None:
        self.path = Path(path)
        self.cursor = max(0, int(cursor))
        self.bad_lines = 0
        self.skipped_events = 0
        self.messages = 0
        self.end_offset = self.cursor
        self.partial_tail = False
        # additionalContext texts hooks printed (hook.end events): distinct, most recent last
        self.injected: dict[str, None] = {}

    def _open(self) -> IO[bytes]:
        try:
            handle = open_regular(self.path)
        except FileNotFoundError as exc:
            raise OmpError(f"session log {self.path} does not exist", "check the session id") from exc
        except NotRegularFile as exc:
            raise OmpError(f"session log {self.path} is not a regular file (a FIFO or a device?)",
                           "nothing to review in it; pass another --session") from exc
        except OSError as exc:
            raise OmpError(f"cannot read {self.path}: {exc.strerror}", "check its permissions") from exc
        size = os.fstat(handle.fileno()).st_size
        if self.cursor > size:
            # The file is shorter than the cursor: it was replaced. Read it from the start.
            self.cursor = 0
        return handle

    def iter_messages(self) -> Iterator[Message]:
        """Every message after the cursor, in order, tool output as an excerpt."""
        for _, message in self.iter_indexed():
            yield message

    def iter_indexed(self) -> Iterator[tuple[Entry, Message]]:
        """Every message after the cursor with where it is, every text made as it is read: the
        eager reading. A review reads `iter_streamed` instead (the same entries and texts, made
        only when asked for); this one is what the benches parse with and what the tests hold
        the streamed pass to."""
        for offset, raw, _ in self._raw_messages(decode_tools=True):
            assert isinstance(raw, RawMessage)
            seq = self.messages
            self.messages += 1
            yield Entry(seq, raw.origin, offset, raw.tool_name), Message(raw.origin, message_text(raw), seq)

    def iter_streamed(self) -> Iterator[tuple[Entry, StreamedMessage]]:
        """`iter_indexed` for a review's one pass: the same entries, and messages whose text is
        made only when it is read (a user message's is at hand: the explicit pass reads them all)."""
        for offset, found, _ in self._raw_messages(decode_tools=True, defer_replies=True):
            seq = self.messages
            self.messages += 1
            if isinstance(found, RawMessage):
                text = found.text if found.origin != "tool" else None
                yield Entry(seq, found.origin, offset, found.tool_name), StreamedMessage(found.origin, seq, text, found)
            else:
                assert found is not None
                yield Entry(seq, "assistant", offset), StreamedMessage("assistant", seq, reply=found)

    def iter_entries(self) -> Iterator[Entry]:
        """Position and origin of every message, decoding as little as possible.

        Tool output lines (most of a session's bytes) are not decoded: every
        `tool.execution_complete` is one message, and the tool's name comes from the
        assistant's request. The other lines are decoded, so that messages are numbered
        exactly as `iter_messages` numbers them (an assistant's text is not made, though).
        """
        for offset, raw, tool_name in self._raw_messages(decode_tools=False, defer_replies=True):
            seq = self.messages
            self.messages += 1
            if raw is None:  # a tool output line, not decoded
                yield Entry(seq, "tool", offset, tool_name)
            elif isinstance(raw, RawMessage):
                yield Entry(seq, raw.origin, offset, raw.tool_name)
            else:  # an assistant.message, whose text only the packet's choice reads back
                yield Entry(seq, "assistant", offset)

    def _raw_messages(self, decode_tools: bool, defer_replies: bool = False
                      ) -> Iterator[tuple[int, RawMessage | dict[str, Any] | None, str | None]]:
        """(offset, message, None) for each line that holds a message; updates the counters.
        With `decode_tools` False a tool output line gives (offset, None, its tool's name); with
        `defer_replies` an assistant.message decoded whole gives its `data`, its text not made."""
        self.bad_lines = self.skipped_events = self.messages = 0
        self.partial_tail = False
        self.end_offset = self.cursor
        tool_names: dict[str, str] = {}
        with self._open() as handle:
            source = LineSource(handle, self.cursor, skip=_PASSED_OVER)
            try:
                for offset, buf, start, stop, length in source:
                    whole = stop - start == length
                    if buf.startswith(b'{"type":"', start):  # how Copilot writes every line
                        quote = buf.find(b'"', start + 9, start + 120)
                        kind = bytes(buf[start + 9 : quote]) if quote > 0 else None
                    else:
                        match = _TYPE_AT.match(buf, start, min(stop, start + 200))
                        kind = bytes(match.group(1)) if match else None
                    if kind is not None and kind not in _CONVERSATION_TYPES:
                        self.skipped_events += 1
                        if kind == b"hook.end":
                            self._hook_end(source, offset, buf, start, stop, length)
                        continue
                    if kind is None and whole and not buf[start:stop].strip():
                        continue  # a blank line
                    if kind == _TOOL_TYPE and not decode_tools:
                        yield offset, None, _tool_name_from_line(buf, start, stop, tool_names)
                        continue
                    raw = self._parse(source, offset, buf, start, stop, length, kind, tool_names, defer_replies)
                    if raw is not None:
                        yield offset, raw, None
            finally:
                self.skipped_events += source.skipped
                self.end_offset = source.end
                self.partial_tail = source.partial

    def _parse(self, source: LineSource, offset: int, buf: bytes | bytearray, start: int, stop: int, length: int,
               kind: bytes | None, tool_names: dict[str, str], defer_replies: bool = False
               ) -> RawMessage | dict[str, Any] | None:
        """The message of one conversation line (or of one whose type is unknown), or None; with
        `defer_replies`, of an assistant.message decoded whole its `data` (see `_raw_messages`)."""
        event: Any = None
        if stop - start < length and length > lines.MAX_HELD_BYTES:
            event = self._over_long(source, offset, length)
            if event is None:
                self.bad_lines += 1
                return None
        else:
            if stop - start < length:
                buf, start, stop = source.read_line(offset, length), 0, length
                if kind is None and not buf.strip():
                    return None  # a blank line, a long one
            if kind == _TOOL_TYPE:
                event = tool_event_by_ends(buf, start, stop)
            if event is None:
                line = buf[start:stop]
                event = fast_event(line, kind)
                if event is None:
                    try:
                        event = _decode_line(line)
                    except ValueError:
                        self.bad_lines += 1
                        return None
                if defer_replies and _is_reply(event):
                    # What parse_event does with it, but for making its text: no string of a
                    # line decoded whole is a RawClip, so making it later raises nothing (a
                    # RawClip that does not decode makes the line a bad one).
                    _remember_tool_names(event["data"], tool_names)
                    if _reply_has_text(event["data"]):
                        return event["data"]  # type: ignore[no-any-return]
                    self.skipped_events += 1
                    return None
        try:
            raw = parse_event(event, tool_names)
        except ValueError:  # a long string of an over-long line that does not decode
            self.bad_lines += 1
            return None
        if raw is not None and raw.origin == "user" and self._injected_by_a_hook(raw.text):
            raw = None
        if raw is None:
            self.skipped_events += 1
        return raw

    def _over_long(self, source: LineSource, offset: int, length: int) -> Any:
        """A line too long to hold, rebuilt from its stream without its long strings (their
        ends are kept); None if it is not JSON."""
        skeleton = Skeleton()
        for chunk in source.stream_line(offset, length):
            skeleton.feed(chunk)
            if skeleton.failed:
                return None
        try:
            return skeleton.decode()
        except ValueError:
            return None

    def _hook_end(self, source: LineSource, offset: int, buf: bytes | bytearray, start: int, stop: int,
                  length: int) -> None:
        """Remember what a hook injected (a hook.end's additionalContext); a hook.end line over
        MAX_HELD_BYTES is not read."""
        if stop - start < length:
            if length > lines.MAX_HELD_BYTES:
                return
            buf, start, stop = source.read_line(offset, length), 0, length
        if buf.find(b"additionalContext", start, stop) >= 0:
            self._remember_context(buf[start:stop])

    def _remember_context(self, line: bytes | bytearray) -> None:
        try:
            event = lines.json_loads(line)
        except ValueError:
            return
        data = event.get("data") if isinstance(event, dict) else None
        output = data.get("output") if isinstance(data, dict) else None
        context = output.get("additionalContext") if isinstance(output, dict) else None
        if isinstance(context, str) and context.strip():
            folded = " ".join(context.split())
            self.injected.pop(folded, None)
            self.injected[folded] = None
            if len(self.injected) > MAX_REMEMBERED_CONTEXTS:
                del self.injected[next(iter(self.injected))]

    def _injected_by_a_hook(self, text: str) -> bool:
        """Is this "user" message what a hook (omp's sessionStart above all) injected?"""
        return is_omp_context(text) or _inside_context(text, self.injected)


def is_omp_context(text: str) -> bool:
    """Does this message start with what omp's own sessionStart injects?"""
    return text.lstrip().startswith(OMP_CONTEXT_PREFIXES)


def _inside_context(text: str, contexts: Collection[str]) -> bool:
    if not contexts:
        return False
    longest = max(len(context) for context in contexts)
    if len(text) > 2 * longest + 64 and len(" ".join(text[: 2 * longest + 64].split())) > longest:
        return False  # longer than any context even folded (a huge paste is not split whole)
    folded = " ".join(text.split())
    return len(folded) >= MIN_INJECTED_CHARS and any(folded in context for context in contexts)


def read_message_at(handle: IO[bytes], offset: int, tool_name: str | None = None) -> RawMessage | None:
    """The message on the line at `offset` of an open events file (an Entry's), or None.

    A line of at most MAX_HELD_BYTES is decoded whole (a tool output's excerpt is then exact);
    a longer one is streamed and read by the ends of its long strings, as `SessionReader` does.
    """
    first, length = line_at(handle, offset)
    if length < 0:
        return None
    try:
        if length <= lines.MAX_HELD_BYTES:
            line = first if length == len(first) else _read(handle, offset, length)
            event = _decode_line(line)
        else:
            skeleton = Skeleton()
            for chunk in stream_range(handle, offset, length):
                skeleton.feed(chunk)
            event = skeleton.decode()
        raw = parse_event(event)
    except ValueError:
        return None
    if raw is not None and tool_name and _better_label(raw.tool_name, tool_name) != raw.tool_name:
        raw = RawMessage(raw.origin, raw.text, tool_name, raw.tool_failed, raw.clip)
    return raw


def _read(handle: IO[bytes], offset: int, length: int) -> bytes:
    handle.seek(offset)
    return handle.read(length)


_TYPE_PREFIX = b'{"type":"'


def line_type(line: bytes) -> bytes | None:
    """The event type, read from the start of the line without decoding it (None: unknown)."""
    if line.startswith(_TYPE_PREFIX):  # how Copilot writes every line
        end = line.find(b'"', len(_TYPE_PREFIX), 120)
        if end > 0:
            return line[len(_TYPE_PREFIX) : end]
    match = _TYPE_AT_START.match(line, 0, 200)
    return match.group(1) if match else None


def _tool_name_from_line(buf: bytes | bytearray, start: int, stop: int, tool_names: dict[str, str]) -> str | None:
    """The label of the tool call a tool output line completes (without decoding the line)."""
    if not tool_names:
        return None
    match = _TOOL_CALL_ID.search(buf, start, min(stop, start + 400))
    return tool_names.pop(match.group(1).decode("utf-8", "replace"), None) if match else None
