"""Reading a Copilot session's `events.jsonl` as a stream (docs/behaviour.md#sessions-and-the-packet).

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
- a conversation line (or what is decoded of a tool output line) is decoded by the standard
  `json` module (bench/README.md, "Sessions decoded by json": what that costs a review);
- no line longer than MAX_HELD_BYTES (8 MiB) is ever held or decoded whole. Such a line is
  streamed and rebuilt without its long strings (`omp.sessions.skeleton.Skeleton`); of each, its
  first and last 384 KiB are kept. A 60 MB paste is therefore a message of its head and tail
  around an omission marker: the explicit pass finds requests in both (it reads a long
  message's first and last 128 K characters anyway, `omp.intents.messages.SCAN_CHARS`), and the middle
  of the paste is not read at all; a 60 MB tool output is excerpted from its ends like any other.

A review reads the messages once, as `StreamedMessage`s (`omp.sessions.streamed`) (`SessionReader.iter_streamed`): a user
message's text is at hand, but a tool output's excerpt and an assistant's text (its tool
requests redacted) are made only when read. The explicit pass reads them only when they might
hold a planted rule (`StreamedMessage.may_hold`); the packet reads back the few it chooses.

Lines that do not parse are counted in `bad_lines`. (A line is checked for being JSON except in
the middle of a long string it is read by the ends of.) A last line without its newline is a
write in progress: it is not consumed, and `end_offset` (the cursor a later review resumes
from) stops before it.

This module streams the file; the rest of the reading has a module each: the records
(`omp.sessions.messages`), decoding one line (`omp.sessions.decode`), the message one event
carries (`omp.sessions.parse`), a tool output's excerpt (`omp.sessions.excerpt`), a message whose
text is made when read (`omp.sessions.streamed`), and what a hook injected
(`omp.sessions.injected`).
"""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path
from typing import IO, Any, Iterator

from omp.errors import OmpError
from omp.sessions import lines
from omp.sessions.decode import TOOL_TYPE, decode_line, tool_event_by_ends
from omp.sessions.excerpt import message_text
from omp.sessions.injected import (
    MAX_REMEMBERED_CONTEXTS,
    inside_context,
    is_omp_context,
)
from omp.sessions.lines import LineSource, line_at, stream_range
from omp.sessions.messages import Entry, Message, RawMessage
from omp.sessions.parse import (
    better_label,
    is_reply,
    parse_event,
    remember_tool_names,
    reply_has_text,
)
from omp.sessions.skeleton import Skeleton
from omp.sessions.streamed import StreamedMessage

# Event types that never carry conversation: skipped without parsing the line.
_CONVERSATION_TYPES = frozenset({b"user.message", b"assistant.message", b"tool.execution_complete", b"message"})
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


# --------------------------------------------------------------------------------------------
# Streaming a file


class NotRegularFile(OSError):
    """A session file that is a FIFO, a device or a folder: skipped, never read (docs/trust.md#session-discovery-never-blocks)."""


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
                    if kind == TOOL_TYPE and not decode_tools:
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
            if kind == TOOL_TYPE:
                event = tool_event_by_ends(buf, start, stop)
            if event is None:
                line = buf[start:stop]
                try:
                    event = decode_line(line)
                except ValueError:
                    self.bad_lines += 1
                    return None
                if defer_replies and is_reply(event):
                    # What parse_event does with it, but for making its text: no string of a
                    # line decoded whole is a RawClip, so making it later raises nothing (a
                    # RawClip that does not decode makes the line a bad one).
                    remember_tool_names(event["data"], tool_names)
                    if reply_has_text(event["data"]):
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
        return is_omp_context(text) or inside_context(text, self.injected)


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
            event = decode_line(line)
        else:
            skeleton = Skeleton()
            for chunk in stream_range(handle, offset, length):
                skeleton.feed(chunk)
            event = skeleton.decode()
        raw = parse_event(event)
    except ValueError:
        return None
    if raw is not None and tool_name and better_label(raw.tool_name, tool_name) != raw.tool_name:
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
