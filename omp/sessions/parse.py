"""What one decoded event says: the message `parse_event` finds in it (docs/behaviour.md#sessions-and-the-packet).

A user message is its content as typed; an assistant message its content and one summary line
per tool request (`summarize_tool_request`, redacted before it is cut); a tool output its result
(excerpted later, `omp.sessions.excerpt`); a generic `{"role": ..., "content": ...}` line of
another producer is read too. A string of an over-long line (a RawClip) is decoded here, by its
ends.
"""

from __future__ import annotations

import functools
from typing import Any

from omp.intents.messages import SCAN_CHARS
from omp.safety.secrets import redact
from omp.sessions import lines
from omp.sessions.excerpt import TOOL_CLIP_BYTES, TOOL_CLIP_MIN_HEAD, TOOL_CLIP_MIN_TAIL
from omp.sessions.lines import Clip
from omp.sessions.messages import Origin, RawMessage
from omp.sessions.provenance import tool_label
from omp.sessions.skeleton import RawClip, open_clip

TOOL_SUMMARY_PART_CHARS = 200
SUMMARY_MARGIN_CHARS = 8 * 1024  # scanned beyond a summary part's cut before it is cut


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


def assistant_text(data: dict[str, Any]) -> str | Clip:
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


def reply_has_text(data: dict[str, Any]) -> bool:
    """`bool(assistant_text(data))` without making the summaries: every tool request that is
    an object has one (its name, or "tool"). For data with no RawClip in it (decoded whole)."""
    content = _text_content(data.get("content"))
    if isinstance(content, Clip) or not _all_space(content):
        return True
    requests = data.get("toolRequests")
    return isinstance(requests, list) and any(isinstance(request, dict) for request in requests)


def reply_pieces(data: dict[str, Any]) -> list[str] | None:
    """The strings `assistant_text(data)` is made of: its content, and each tool request's name
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


def _tool_text(value: Any) -> str | Clip:
    if isinstance(value, RawClip):
        return open_clip(value, TOOL_CLIP_BYTES, TOOL_CLIP_BYTES, TOOL_CLIP_MIN_HEAD, TOOL_CLIP_MIN_TAIL)
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
            remember_tool_names(data, tool_names)
            reply = assistant_text(data)
            return _message("assistant", reply) if reply else None
        if kind == "tool.execution_complete":
            call_id = data.get("toolCallId")
            name = data.get("toolName")
            if tool_names is not None and isinstance(call_id, str):
                # The request's label says more than the event's bare name (where its output came
                # from: `omp.sessions.provenance`).
                name = better_label(name, tool_names.pop(call_id, None))
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


def is_reply(event: Any) -> bool:
    """Is this an event `parse_event` reads as an assistant.message?"""
    return isinstance(event, dict) and event.get("type") == "assistant.message" and isinstance(event.get("data"), dict)


_MAX_TOOL_NAMES = 4096


def remember_tool_names(data: dict[str, Any], tool_names: dict[str, str] | None) -> None:
    requests = data.get("toolRequests")
    if tool_names is None or not isinstance(requests, list):
        return
    for request in requests:
        if isinstance(request, dict) and isinstance(request.get("toolCallId"), str) and isinstance(request.get("name"), str):
            if len(tool_names) >= _MAX_TOOL_NAMES:  # calls that never completed: forget the oldest
                tool_names.pop(next(iter(tool_names)))
            arguments = _request_arguments(request)
            tool_names[request["toolCallId"]] = tool_label(request["name"], arguments, _redacted)


def better_label(name: Any, label: str | None) -> str | None:
    """The remembered label of a tool call when it names the same tool as the event (or the
    event names none), else the event's name."""
    if not isinstance(name, str):
        return label
    return label if label is not None and label.split(" (", 1)[0] == name else name
