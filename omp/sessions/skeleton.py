"""The skeleton of an over-long line (docs/behaviour.md#sessions-and-the-packet): a line longer than
`omp.sessions.lines.MAX_HELD_BYTES` is never held whole.

`Skeleton` takes the line block by block and rebuilds it as its JSON structure, with every
string longer than KEEP_WHOLE_BYTES replaced by a placeholder; of such a string only its first
and last CLIP_WINDOW_BYTES are kept (`RawClip`), the middle is counted and dropped. The structure
is decoded with `json` afterwards, so a line is still checked for being JSON, and the
placeholders are put back (`restore`) as `RawClip`s, decoded only by whoever reads them
(`open_clip`).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

from omp.sessions.lines import (
    Clip,
    decode_raw,
    estimated_clip,
    json_loads,
    safe_after,
    safe_before,
    string_end,
    trailing_backslashes,
)

CLIP_WINDOW_BYTES = 384 * 1024  # of a string in an over-long line: this much of each end is kept
KEEP_WHOLE_BYTES = 64 * 1024  # a string in an over-long line up to this size stays in its skeleton
SKELETON_LIMIT_BYTES = 4 * 1024 * 1024  # an over-long line whose structure alone is larger: unreadable


@dataclass(frozen=True)
class RawClip:
    """A long string of an over-long line, as found in the file: its first and last raw bytes
    (escapes and all) and its size. `whole` when it was short enough to keep all of it."""

    head: bytes
    tail: bytes
    size: int
    whole: bytes | None = None


def open_clip(raw: RawClip, head_bytes: int = 0, tail_bytes: int = 0, min_head: int = 0,
              min_tail: int = 0) -> str | Clip:
    """The text of a RawClip: whole, or its two ends. Of the ends only `head_bytes` and
    `tail_bytes` are decoded (all that was kept if 0), more if that gives fewer than `min_head`
    and `min_tail` characters once stripped (as `decode_string`). Raises ValueError if they do
    not decode."""
    if raw.whole is not None:
        return decode_raw(raw.whole)
    kept_head, kept_tail = len(raw.head), len(raw.tail)
    want_head = min(head_bytes or kept_head, kept_head)
    want_tail = min(tail_bytes or kept_tail, kept_tail)
    while True:
        cut = safe_before(raw.head, min(want_head, kept_head - 1))  # the byte after the head is unknown
        begin = safe_after(raw.tail, kept_tail - want_tail, kept_tail)
        head, tail = decode_raw(raw.head[:cut]), decode_raw(raw.tail[begin:])
        enough = len(head.lstrip()) >= min_head and len(tail.rstrip()) >= min_tail
        if enough or (want_head == kept_head and want_tail == kept_tail):
            return estimated_clip(head, tail, cut + kept_tail - begin, raw.size)
        want_head, want_tail = min(2 * want_head, kept_head), min(2 * want_tail, kept_tail)


class _OpenString:
    """A string being read across blocks: its first `window` bytes and its last ones, both
    copies of at most a window's bytes of each block: no block a string was read from stays
    alive for it (a view of a block's last bytes held the whole block, so a 60 MB paste read
    in 1 MiB blocks kept two or three of them until it closed)."""

    __slots__ = ("head", "tail", "tail_size", "size", "carry", "window")

    def __init__(self, window: int) -> None:
        self.window = window
        self.head = bytearray()
        self.tail: list[bytes] = []
        self.tail_size = 0
        self.size = 0
        self.carry = 0

    def add(self, buf: bytes | bytearray, start: int, stop: int) -> None:
        if stop <= start:
            return
        self.size += stop - start
        room = self.window - len(self.head)
        if room > 0:
            self.head += buf[start : min(stop, start + room)]
        if stop - start >= self.window:
            self.tail = [bytes(buf[stop - self.window : stop])]
            self.tail_size = self.window
            return
        self.tail.append(bytes(buf[start:stop]))
        self.tail_size += stop - start
        while len(self.tail) > 1 and self.tail_size - len(self.tail[0]) >= self.window:
            self.tail_size -= len(self.tail.pop(0))

    def close(self) -> RawClip:
        tail = b"".join(self.tail)
        self.tail = []
        if self.size <= 2 * self.window:
            rest = self.size - len(self.head)
            whole = bytes(self.head) + (tail[len(tail) - rest:] if rest > 0 else b"")
            return RawClip(b"", b"", self.size, whole)
        return RawClip(bytes(self.head), tail[-self.window:], self.size)


class Skeleton:
    """An over-long line rebuilt as its JSON structure with its long strings left out.

    Feed it the line's bytes in order (`feed`), then `decode()`: the event, with each long
    string a RawClip. Memory: the structure and the short strings (at most
    SKELETON_LIMIT_BYTES, else the line is unreadable), and two windows per long string.
    """

    def __init__(self, window: int | None = None, keep_whole: int | None = None,
                 limit: int | None = None) -> None:
        self.window = window or CLIP_WINDOW_BYTES
        self.keep_whole = keep_whole or KEEP_WHOLE_BYTES
        self.limit = limit or SKELETON_LIMIT_BYTES
        self.parts: list[bytes | bytearray] = []
        self.size = 0
        self.clips: dict[str, RawClip] = {}
        self.failed = False
        self._open: _OpenString | None = None
        # Placeholders a session cannot forge: they hold a NUL and a random nonce.
        self._nonce = os.urandom(6).hex()

    def _append(self, piece: bytes | bytearray) -> None:
        self.size += len(piece)
        if self.size > self.limit:
            self.failed = True
        else:
            self.parts.append(piece)

    def _placeholder(self, raw: RawClip) -> None:
        if raw.whole is not None and raw.size <= self.keep_whole:  # short, but cut by a block
            self._append(b'"' + raw.whole + b'"')
            return
        key = f"\x00omp:{self._nonce}:{len(self.clips)}"
        self.clips[key] = raw
        self._append(b'"\\u0000omp:' + self._nonce.encode() + b":" + str(len(self.clips) - 1).encode() + b'"')

    def feed(self, buf: bytes | bytearray, start: int = 0, stop: int | None = None) -> None:
        stop = len(buf) if stop is None else stop
        pos = start
        while pos < stop and not self.failed:
            current = self._open
            if current is not None:  # inside a long string continued from an earlier block
                end = string_end(buf, pos, stop, current.carry)
                if end < 0:
                    current.carry = trailing_backslashes(buf, pos, stop, current.carry)
                    current.add(buf, pos, stop)
                    return
                current.add(buf, pos, end)
                self._open = None
                self._placeholder(current.close())
                pos = end + 1
                continue
            quote = buf.find(b'"', pos, stop)
            if quote < 0:
                self._append(buf[pos:stop])
                return
            end = string_end(buf, quote + 1, stop)
            if end >= 0 and end - quote - 1 <= self.keep_whole:
                self._append(buf[pos : end + 1])  # structure, then a short string whole
                pos = end + 1
                continue
            self._append(buf[pos:quote])
            opened = _OpenString(self.window)
            if end >= 0:
                opened.add(buf, quote + 1, end)
                self._placeholder(opened.close())
                pos = end + 1
                continue
            opened.carry = trailing_backslashes(buf, quote + 1, stop, 0)
            opened.add(buf, quote + 1, stop)
            self._open = opened
            return

    def skeleton(self) -> bytes | None:
        """The structure's bytes, or None if the line was unreadable (too much structure, a
        string that never closed)."""
        if self.failed or self._open is not None:
            return None
        return b"".join(self.parts)

    def decode(self) -> Any:
        """The event, each long string a RawClip. Raises ValueError if it is not JSON."""
        skeleton = self.skeleton()
        if skeleton is None:
            raise ValueError("unreadable over-long line")
        return restore(json_loads(skeleton), self.clips)


def restore(value: Any, clips: dict[str, RawClip]) -> Any:
    """The decoded skeleton with its placeholders replaced by their RawClips."""
    if not clips:
        return value
    if isinstance(value, str):
        return clips.get(value, value)
    if isinstance(value, dict):
        for key, item in value.items():
            value[key] = restore(item, clips)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            value[index] = restore(item, clips)
    return value
