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

Reading is a stream: one line in memory at a time (a single huge line, e.g. a 600 KB paste, is
held once), never the whole file. Lines that do not parse are counted in `bad_lines`. A last
line without its newline is a write in progress: it is not consumed, and `end_offset` (the
cursor a later review resumes from) stops before it.

Most of a session's bytes are tool output and events nobody reads, so the reader looks at the
event type at the start of each line (Copilot writes `{"type":"…",` first) and parses only the
lines that can hold conversation.
"""

from __future__ import annotations

import json
import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Callable, Iterator, Literal

from omp.errors import OmpError
from omp.safety.secrets import redact

Origin = Literal["user", "assistant", "tool"]
ORIGINS: tuple[Origin, ...] = ("user", "assistant", "tool")

TOOL_HEAD_CHARS = 700
TOOL_TAIL_CHARS = 500
EXCERPT_MARGIN_CHARS = 32 * 1024  # kept around a tool excerpt's cuts before cleaning (> any secret)
TOOL_SUMMARY_PART_CHARS = 200
SUMMARY_MARGIN_CHARS = 8 * 1024  # scanned beyond a summary part's cut before it is cut
MAX_LINE_BYTES = 64 * 1024 * 1024  # a longer line is skipped (counted bad), never held whole

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

# Event types that never carry conversation: skipped without parsing the line.
_CONVERSATION_TYPES = frozenset({b"user.message", b"assistant.message", b"tool.execution_complete", b"message"})
_TYPE_AT_START = re.compile(rb'^\s*\{\s*"type"\s*:\s*"([^"\\]{1,100})"')
_TOOL_CALL_ID = re.compile(rb'"toolCallId"\s*:\s*"([^"\\]{1,200})"')


@dataclass(frozen=True)
class Message:
    origin: Origin
    text: str
    seq: int  # 0-based position in the conversation, counting only messages (from the cursor)




# --------------------------------------------------------------------------------------------
# Parsing one event


@dataclass(frozen=True)
class RawMessage:
    """A message as found in one line, before excerpting: tool output is still whole."""

    origin: Origin
    text: str
    tool_name: str | None = None
    tool_failed: bool = False


def _one_line(value: Any, limit: int = TOOL_SUMMARY_PART_CHARS) -> str:
    if not isinstance(value, str):
        return ""
    text = " ".join(value.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _redacted(value: Any) -> Any:
    """Secrets in a whole part redacted, so the cut that follows never keeps half of one."""
    if not isinstance(value, str) or not value:
        return value
    # Only the start is ever shown; a margin far wider than any secret is enough (a 100 KB
    # heredoc command is not scanned whole, twice per review).
    return redact(value[: TOOL_SUMMARY_PART_CHARS + SUMMARY_MARGIN_CHARS])[0]


def summarize_tool_request(request: Any) -> str:
    """`name: intentionSummary | description | command` on one line (empty parts left out).

    Each part is redacted whole before it is cut to TOOL_SUMMARY_PART_CHARS: a command holding
    a 40-character token cut at 200 would otherwise pass the first 27 characters of it on.
    """
    if not isinstance(request, dict):
        return ""
    name = _one_line(request.get("name")) or "tool"
    arguments = request.get("arguments")
    if isinstance(arguments, str):  # some producers keep arguments as a JSON string
        try:
            arguments = json.loads(arguments)
        except ValueError:
            arguments = {"command": arguments}
    arguments = arguments if isinstance(arguments, dict) else {}
    parts: list[str] = []
    for value in (
        request.get("intentionSummary"),
        arguments.get("description"),
        arguments.get("command"),
        arguments.get("path") if not arguments.get("command") else None,
    ):
        part = _one_line(_redacted(value))
        if part and part not in parts:
            parts.append(part)
    return f"{name}: {' | '.join(parts)}" if parts else name


def _text_content(content: Any) -> str:
    """A string, or the text parts of an OpenAI/Anthropic-style content list."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        texts = []
        for part in content:
            if isinstance(part, str):
                texts.append(part)
            elif isinstance(part, dict) and isinstance(part.get("text"), str):
                texts.append(part["text"])
        return "\n".join(texts)
    return ""


def _assistant_text(data: dict[str, Any]) -> str:
    text = _text_content(data.get("content")).strip()
    requests = data.get("toolRequests")
    lines = [summarize_tool_request(r) for r in requests] if isinstance(requests, list) else []
    lines = [f"[tool request] {line}" for line in lines if line]
    return "\n".join(([text] if text else []) + lines)


def _tool_output(data: dict[str, Any]) -> str:
    result = data.get("result")
    if isinstance(result, dict):
        text = _text_content(result.get("content"))
        if not text.strip():
            text = _text_content(result.get("detailedContent"))
        return text
    if isinstance(result, str):
        return result
    error = data.get("error")
    if isinstance(error, dict):
        return _text_content(error.get("message"))
    return _text_content(error)


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
    """The message one decoded event carries, or None. `tool_names` maps toolCallId → name."""
    if not isinstance(event, dict):
        return None
    kind = event.get("type")
    data = event.get("data")
    if isinstance(kind, str) and isinstance(data, dict):
        if kind == "user.message":
            text = _text_content(data.get("content"))
            return RawMessage("user", text) if text.strip() else None
        if kind == "assistant.message":
            _remember_tool_names(data, tool_names)
            text = _assistant_text(data)
            return RawMessage("assistant", text) if text else None
        if kind == "tool.execution_complete":
            call_id = data.get("toolCallId")
            name = data.get("toolName")
            if not isinstance(name, str) and tool_names is not None and isinstance(call_id, str):
                name = tool_names.pop(call_id, None)
            # Kept even when empty, so that every tool.execution_complete line is one message
            # (the packet's first pass counts them without decoding).
            failed = data.get("success") is False
            return RawMessage("tool", _tool_output(data), name if isinstance(name, str) else None, failed)
        if kind != "message":
            return None
    role = event.get("role")
    if isinstance(role, str) and role.lower() in _GENERIC_ROLES:
        text = _text_content(event.get("content"))
        if text.strip():
            origin = _GENERIC_ROLES[role.lower()]
            name = event.get("name") if origin == "tool" else None
            return RawMessage(origin, text, name if isinstance(name, str) else None)
    return None


_MAX_TOOL_NAMES = 4096


def _remember_tool_names(data: dict[str, Any], tool_names: dict[str, str] | None) -> None:
    requests = data.get("toolRequests")
    if tool_names is None or not isinstance(requests, list):
        return
    for request in requests:
        if isinstance(request, dict) and isinstance(request.get("toolCallId"), str) and isinstance(request.get("name"), str):
            if len(tool_names) >= _MAX_TOOL_NAMES:  # calls that never completed: forget the oldest
                tool_names.pop(next(iter(tool_names)))
            tool_names[request["toolCallId"]] = request["name"]


def tool_header(name: str | None, failed: bool, total_chars: int) -> str:
    what = f"tool output: {name}" if name else "tool output"
    if failed:
        what += ", failed"
    return f"({what}; {total_chars:,} chars)"


def cut_head_tail(text: str, head: int, tail: int, already_omitted: int = 0) -> tuple[str, int]:
    """`text` reduced to about `head` + `tail` characters around an omission marker.

    Cuts land on whitespace near the limits, so no token (or redaction marker) is split.
    Returns the text and how many characters were left out (0 when nothing was);
    `already_omitted` counts characters the caller removed from the middle beforehand.
    """
    if len(text) <= head + tail + 80:
        return text, 0
    head_end = _snap_back(text, head)
    tail_start = _snap_forward(text, len(text) - tail)
    if tail_start <= head_end:
        return text, 0
    omitted = tail_start - head_end + already_omitted
    return f"{text[:head_end].rstrip()}\n[… {omitted:,} characters omitted …]\n{text[tail_start:].lstrip()}", omitted


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
    at all.
    """
    longest = TOOL_HEAD_CHARS + TOOL_TAIL_CHARS + 2 * EXCERPT_MARGIN_CHARS
    start, end = _strip_bounds(raw.text) if len(raw.text) > longest else (0, 0)
    skipped = 0
    if end - start > longest:
        # `raw.text.strip()` without the copy: the output may be tens of megabytes.
        head = raw.text[start : start + TOOL_HEAD_CHARS + EXCERPT_MARGIN_CHARS]
        tail = raw.text[end - (TOOL_TAIL_CHARS + EXCERPT_MARGIN_CHARS) : end]
        skipped = end - start - len(head) - len(tail) - 1  # the joining newline is omitted too
        text = f"{head}\n{tail}"
    else:
        text = raw.text[start:end] if end else raw.text.strip()
    if clean is not None:
        text = clean(text)
    body, _ = cut_head_tail(text, TOOL_HEAD_CHARS, TOOL_TAIL_CHARS, already_omitted=skipped)
    return f"{tool_header(raw.tool_name, raw.tool_failed, len(raw.text))}\n{body}"


def _decode_line(line: bytes) -> Any:
    """`json.loads(line.strip())` without copying the line first: it may be tens of megabytes.
    (JSON's own whitespace is all a line ever has around it; the strip is for the rest.)"""
    try:
        return json.loads(line)
    except ValueError:
        return json.loads(line.strip())


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


# --------------------------------------------------------------------------------------------
# Streaming a file


@dataclass(frozen=True, slots=True)
class Entry:
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

    Counters, valid after iterating: `bad_lines` (lines that did not parse, oversized lines,
    a torn line), `skipped_events` (events that carry no conversation), `messages`,
    `end_offset` (byte offset just after the last complete line: the next cursor),
    `partial_tail` (True when the file ended in a line without its newline).
    """

    def __init__(self, path: Path, cursor: int = 0) -> None:
        self.path = Path(path)
        self.cursor = max(0, int(cursor))
        self.bad_lines = 0
        self.skipped_events = 0
        self.messages = 0
        self.end_offset = self.cursor
        self.partial_tail = False
        self.injected: list[str] = []  # additionalContext texts hooks printed (hook.end events)

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
        handle.seek(self.cursor)
        return handle

    def _lines(self, handle: IO[bytes]) -> Iterator[tuple[int, bytes]]:
        """(offset, line) for each complete line; updates end_offset, partial_tail, bad_lines."""
        self.bad_lines = self.skipped_events = self.messages = 0
        self.partial_tail = False
        offset = self.cursor
        self.end_offset = offset
        while True:
            line = handle.readline(MAX_LINE_BYTES)
            if not line:
                return
            if not line.endswith(b"\n"):
                if len(line) < MAX_LINE_BYTES:
                    self.partial_tail = True  # a write in progress: leave it for the next read
                    return
                skipped = len(line) + _skip_rest_of_line(handle)
                self.bad_lines += 1
                offset += skipped
                self.end_offset = offset
                continue
            yield offset, line
            offset += len(line)
            self.end_offset = offset

    def iter_messages(self) -> Iterator[Message]:
        """Every message after the cursor, in order, tool output as an excerpt."""
        for _, message in self.iter_indexed():
            yield message

    def iter_indexed(self) -> Iterator[tuple[Entry, Message]]:
        """Every message after the cursor with where it is: one pass that feeds both the
        explicit pass (the messages) and the packet (the entries, SPEC §12: the file is read once)."""
        tool_names: dict[str, str] = {}
        with self._open() as handle:
            for offset, line in self._lines(handle):
                raw = self._parse(line, tool_names)
                if raw is not None:
                    seq = self.messages
                    self.messages += 1
                    yield Entry(seq, raw.origin, offset, raw.tool_name), Message(raw.origin, message_text(raw), seq)

    def iter_entries(self) -> Iterator[Entry]:
        """Position and origin of every message, decoding as little as possible.

        Tool output lines (most of a session's bytes) are not decoded: every
        `tool.execution_complete` is one message, and the tool's name comes from the
        assistant's request. The other lines are decoded, so that messages are numbered
        exactly as `iter_messages` numbers them.
        """
        tool_names: dict[str, str] = {}
        with self._open() as handle:
            for offset, line in self._lines(handle):
                kind = line_type(line)
                if kind == b"tool.execution_complete":
                    seq = self.messages
                    self.messages += 1
                    yield Entry(seq, "tool", offset, _tool_name_from_line(line, tool_names))
                    continue
                raw = self._parse(line, tool_names, kind)
                if raw is not None:
                    seq = self.messages
                    self.messages += 1
                    yield Entry(seq, raw.origin, offset, raw.tool_name)

    def _parse(self, line: bytes, tool_names: dict[str, str] | None, kind: bytes | None = None) -> RawMessage | None:
        kind = kind if kind is not None else line_type(line)
        if kind is not None and kind not in _CONVERSATION_TYPES:
            self.skipped_events += 1
            if kind == b"hook.end" and b"additionalContext" in line:
                self._remember_context(line)
            return None
        if line.isspace():
            return None
        try:
            event = _decode_line(line)
        except ValueError:
            self.bad_lines += 1
            return None
        raw = parse_event(event, tool_names)
        if raw is not None and raw.origin == "user" and self._injected_by_a_hook(raw.text):
            raw = None
        if raw is None:
            self.skipped_events += 1
        return raw

    def _remember_context(self, line: bytes) -> None:
        try:
            event = json.loads(line)
        except ValueError:
            return
        data = event.get("data") if isinstance(event, dict) else None
        output = data.get("output") if isinstance(data, dict) else None
        context = output.get("additionalContext") if isinstance(output, dict) else None
        if isinstance(context, str) and context.strip():
            self.injected.append(" ".join(context.split()))

    def _injected_by_a_hook(self, text: str) -> bool:
        """Is this "user" message what a hook (omp's sessionStart above all) injected?"""
        return is_omp_context(text) or _inside_context(text, self.injected)


def is_omp_context(text: str) -> bool:
    """Does this message start with what omp's own sessionStart injects?"""
    return text.lstrip().startswith(OMP_CONTEXT_PREFIXES)


def _inside_context(text: str, contexts: list[str]) -> bool:
    if not contexts:
        return False
    folded = " ".join(text.split())
    return len(folded) >= MIN_INJECTED_CHARS and any(folded in context for context in contexts)


def read_message_at(handle: IO[bytes], offset: int, tool_name: str | None = None) -> RawMessage | None:
    """The message on the line at `offset` of an open events file (an Entry's), or None."""
    handle.seek(offset)
    line = handle.readline(MAX_LINE_BYTES)
    try:
        event = json.loads(line)
    except ValueError:
        return None
    raw = parse_event(event)
    if raw is not None and raw.tool_name is None and tool_name:
        raw = RawMessage(raw.origin, raw.text, tool_name, raw.tool_failed)
    return raw


_TYPE_PREFIX = b'{"type":"'


def line_type(line: bytes) -> bytes | None:
    """The event type, read from the start of the line without decoding it (None: unknown)."""
    if line.startswith(_TYPE_PREFIX):  # how Copilot writes every line
        end = line.find(b'"', len(_TYPE_PREFIX), 120)
        if end > 0:
            return line[len(_TYPE_PREFIX) : end]
    match = _TYPE_AT_START.match(line, 0, 200)
    return match.group(1) if match else None


def _tool_name_from_line(line: bytes, tool_names: dict[str, str]) -> str | None:
    if not tool_names:
        return None
    match = _TOOL_CALL_ID.search(line, 0, 400)
    return tool_names.pop(match.group(1).decode("utf-8", "replace"), None) if match else None


def _skip_rest_of_line(handle: IO[bytes]) -> int:
    skipped = 0
    while True:
        chunk = handle.readline(MAX_LINE_BYTES)
        skipped += len(chunk)
        if not chunk or chunk.endswith(b"\n"):
            return skipped
