"""Reading `events.jsonl` without holding or decoding what nobody reads (docs/behaviour.md#sessions-and-the-packet, docs/performance.md#where-speed-matters).

The tools `omp.sessions.events` reads a session with:

- **Lines** (`LineSource`): found in blocks of BLOCK_BYTES, read into one buffer, with
  `bytes.find` (a memchr): never one `readline` per line and never a copy of a line nobody
  reads. A line longer than a block is measured first (its newline looked for block by block,
  nothing kept), then either read whole, if it holds at most MAX_HELD_BYTES, or streamed block
  by block (`stream_line`): no line over the cap is ever in memory whole, however long it is.
- **A JSON string by its bounds**: `string_end` finds a string's closing quote — the first `"`
  preceded by an even number of backslashes — without decoding the string (a memchr for the
  first quote, then a regular expression that skips the quotes escaped by a single backslash at
  C speed; the rare longer backslash runs are counted). Every byte of the string is looked at
  once: only that proves where it ends (Copilot's `result` may hold `detailedContent` and
  `contents` after the output, so its end cannot be guessed from the end of the line).
  `decode_string` decodes a string whole if it is short, else only
  its first and last bytes, each cut where no escape (`\\n`, `\\uXXXX`, a surrogate pair) and no
  UTF-8 sequence is split (`safe_before`, `safe_after`): the head and tail it gives are exactly
  the whole decode's first and last characters.
- **An over-long line** is read as its skeleton, its long strings by their ends:
  `omp.sessions.skeleton`, built on the string tools above.

A string decoded from its ends is a `Clip`: its head, its tail, and its length in characters.
That length is exact when the string was decoded whole; otherwise it is estimated from the
string's size in bytes and the characters per byte of its two ends (`exact` is False, and what
shows it says "about"): counting exactly means counting the middle's escapes and UTF-8
sequences, a few times what finding its end costs (`bytes.count` runs at a tenth of memchr's
speed), or decoding it.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import IO, Any, Callable, Iterator


# The json module's own string decoder (what json.loads uses for every string; not in typeshed).
_scanstring: Callable[[str, int, bool], tuple[str, int]] = json.decoder.scanstring  # type: ignore[attr-defined]

BLOCK_BYTES = 1024 * 1024  # read at a time
# An over-long line is streamed in smaller pieces: two of them are alive while the next is read
# (the one being fed and the new one), and a megabyte each was most of what a 60 MB paste cost.
STREAM_BYTES = 256 * 1024
MAX_HELD_BYTES = 8 * 1024 * 1024  # a longer line is never held (nor decoded) whole

# A quote *not* escaped by a run of exactly one backslash: a closing quote, or a quote after a
# longer run (whose parity is then counted), or one too close to the start of `buf` for the
# lookbehind to see its backslashes.
_QUOTE = re.compile(rb'"(?<![^\\]\\")')
_BACKSLASH = 0x5C
_HEX = frozenset(b"0123456789abcdefABCDEF")


@dataclass(frozen=True)
class Clip:
    """A string too long to decode whole: its first and last characters, and its length."""

    head: str
    tail: str
    chars: int  # characters of the whole string: exact if `exact`, else an estimate
    exact: bool = False

    @property
    def omitted(self) -> int:
        return max(0, self.chars - len(self.head) - len(self.tail))

    def marked(self) -> str:
        """The text with an omission marker where its middle was: what a message keeps."""
        return f"{self.head}\n{omission_marker(self.omitted, not self.exact)}\n{self.tail}"


def omission_marker(omitted: int, approximate: bool = False) -> str:
    return f"[… {'about ' if approximate else ''}{omitted:,} characters omitted …]"


def about(n: int) -> int:
    """An estimate rounded to three significant digits: it should not look exact."""
    if n < 1000:
        return n
    scale = 10 ** (len(str(n)) - 3)
    return round(n / scale) * scale


# --------------------------------------------------------------------------------------------
# A JSON string's bounds and ends


def string_end(buf: bytes | bytearray, pos: int, stop: int, carry: int = 0) -> int:
    """Index of the closing quote of the JSON string whose bytes start at `pos`, or -1 if it
    does not close before `stop`. `carry`: backslashes just before `pos` that belong to the
    string (a string continued from the previous block)."""
    quote = buf.find(b'"', pos, stop)  # a memchr first: an output without quotes costs no more
    if quote < 0:
        return -1
    if (buf[quote - 1] != _BACKSLASH) if quote > pos else carry % 2 == 0:
        return quote
    while True:
        match = _QUOTE.search(buf, pos, stop)
        if match is None:
            return -1
        quote = match.start()
        run = 0
        i = quote - 1
        while i >= pos and buf[i] == _BACKSLASH:
            run += 1
            i -= 1
        if i < pos:
            run += carry
        if run % 2 == 0:
            return quote
        pos, carry = quote + 1, 0


def trailing_backslashes(buf: bytes | bytearray, start: int, stop: int, carry: int) -> int:
    """The run of backslashes that ends `buf[start:stop]` (plus `carry` if the run fills it)."""
    i = stop
    while i > start and buf[i - 1] == _BACKSLASH:
        i -= 1
    return stop - i + (carry if i == start else 0)


def _boundary(raw: bytes | bytearray, p: int) -> bool:
    """Can the raw bytes of a JSON string be cut before `raw[p]`? Only if that splits no UTF-8
    sequence and no escape: the byte before is not a backslash, not the `u` of a `\\u`, not one
    of a `\\uXXXX`'s hex digits (nor the end of a high surrogate that a low one follows), and
    `raw[p]` starts a character. Decided from at most six bytes before `p`, so it holds at
    the start of a window whose earlier bytes are unknown."""
    before = raw[p - 1]
    if p < len(raw) and 0x80 <= raw[p] < 0xC0:
        return False  # inside a UTF-8 sequence
    if before >= 0x80:
        return True  # the end of a UTF-8 character: no escape is made of these
    if before == _BACKSLASH:
        return False
    if before == 0x75 and p >= 2 and raw[p - 2] == _BACKSLASH:  # "\u"
        return False
    if before in _HEX:
        escape = raw.find(b"\\u", max(0, p - 6), p - 1)
        if escape >= 0:
            if escape > p - 6 or raw.find(b"\\u", escape + 1, p - 1) >= 0:
                return False  # inside a "\uXXXX"
            # Right after a whole "\uXXXX" (or a literal "\\uXXXX": plain characters), unless
            # it is a high surrogate, which a low one may follow.
            return not (raw[p - 4] in b"dD" and raw[p - 3] in b"89abAB")
    return True


def safe_before(raw: bytes | bytearray, p: int, lo: int = 0) -> int:
    """The largest cut at most `p` (and above `lo`, the string's first byte) that splits
    nothing; `lo` itself if there is none (the cut then keeps nothing). `raw[p]` must be known:
    a window cut from a longer string is cut at most before its last byte."""
    while p > lo and not _boundary(raw, p):
        p -= 1
    return p


def safe_after(raw: bytes | bytearray, p: int, hi: int) -> int:
    """The smallest cut at least `p` (and below `hi`, the string's end) that splits nothing.
    Never before byte 6: the bytes before `raw` (a window cut from a longer string) are
    unknown, and the rule looks six bytes back."""
    p = max(p, 6)
    while p < hi and not _boundary(raw, p):
        p += 1
    return min(p, hi)


def decode_raw(raw: bytes | bytearray) -> str:
    """The text of a JSON string's raw bytes (escapes and all, without its quotes), decoded as
    `json.loads` decodes it. Raises ValueError if it is not one string (an unescaped quote, a bad
    escape, a control character, bytes that are not UTF-8). json's own `scanstring` takes lone
    surrogates too, as `\\ud800` or as the bytes `surrogatepass` decodes."""
    text = raw.decode("utf-8", "surrogatepass") + '"'
    value, end = _scanstring(text, 0, True)
    if end != len(text):
        raise ValueError("not one JSON string")
    return without_lone_surrogates(value)


def decode_string(buf: bytes | bytearray, start: int, end: int, head_bytes: int, tail_bytes: int,
                  min_head: int = 0, min_tail: int = 0) -> str | Clip:
    """The JSON string `buf[start:end]` (its raw bytes, between its quotes): decoded whole if it
    is at most `head_bytes + tail_bytes` long, else its two ends (a Clip), at least `min_head`
    and `min_tail` characters of it once stripped of whitespace (the windows grow until they
    hold that much, or meet, and then the string is decoded whole). Raises ValueError if the
    bytes are not a valid JSON string."""
    while True:
        if end - start <= head_bytes + tail_bytes:
            return decode_raw(buf[start:end])
        cut = safe_before(buf, start + head_bytes, start)
        begin = safe_after(buf, end - tail_bytes, end)
        head = decode_raw(buf[start:cut])
        tail = decode_raw(buf[begin:end])
        if len(head.lstrip()) >= min_head and len(tail.rstrip()) >= min_tail:
            return estimated_clip(head, tail, cut - start + end - begin, end - start)
        head_bytes, tail_bytes = head_bytes * 2, tail_bytes * 2


def estimated_clip(head: str, tail: str, decoded_bytes: int, size: int) -> Clip:
    """A Clip of a string's two decoded ends, its length estimated from its size in bytes."""
    chars = len(head) + len(tail)
    estimate = round(size * chars / max(decoded_bytes, 1))
    return Clip(head, tail, max(estimate, chars), exact=False)


# --------------------------------------------------------------------------------------------
# Lines


class LineSource:
    """The lines of an open file from `offset` on, found in blocks (see the module docstring).

    Iterating yields `(offset, buf, start, stop, length)` per complete line: the line's byte
    offset in the file and its length without the newline; `buf[start:stop]` holds it whole
    when `stop - start == length`, else (a line longer than a block) only its first bytes, and
    `read_line` or `stream_line` get the rest. `buf` is one buffer, refilled in place (a fresh
    megabyte per block costs more in page faults than the read itself): what a line is needed
    for must be taken from it before the next line is asked for. After iterating, `end` is the
    offset just after the last complete line and `partial` says whether bytes without a newline
    followed it.

    `skip`: a pattern that matches at the start of a line nobody reads (and looks no further
    than its newline): such lines are not yielded, only counted (`skipped`, complete lines
    only). A run of them is passed over by one regular-expression search in C (the next newline
    not followed by such a line), not line by line in Python: most lines of a session (hook,
    turn and usage records) are read by nobody.
    """

    def __init__(self, handle: IO[bytes], offset: int, block: int | None = None,
                 skip: re.Pattern[bytes] | None = None) -> None:
        self.handle = handle
        self.block = max(block or BLOCK_BYTES, 256)  # (a long line's first bytes hold its type)
        self.end = offset
        self.partial = False
        self.skip = skip
        self.skipped = 0
        self._start = offset
        self._past_skipped = re.compile(rb"\n(?!(?:" + skip.pattern + rb"))") if skip is not None else None

    def __iter__(self) -> Iterator[tuple[int, bytearray, int, int, int]]:
        handle, block = self.handle, self.block
        readinto = handle.readinto  # type: ignore[attr-defined]
        buf = bytearray(block)
        view = memoryview(buf)
        base = self._start  # file offset of buf[0]
        handle.seek(base)
        pos = filled = 0
        skip_line = self.skip.match if self.skip is not None else None
        past_skipped = self._past_skipped
        try:
            while True:
                if skip_line is not None and past_skipped is not None and skip_line(buf, pos, filled):
                    # The line at `pos` and those after it that are skipped too end at the
                    # first newline not followed by a skipped line (within what was read; a
                    # line is counted only once its newline is).
                    found = past_skipped.search(buf, pos, filled)
                    last = found.start() if found else buf.rfind(b"\n", pos, filled)
                    if last >= 0:
                        self.skipped += buf.count(b"\n", pos, last + 1)
                        pos = last + 1
                        self.end = base + pos
                        continue
                newline = buf.find(b"\n", pos, filled)
                if newline >= 0:
                    yield base + pos, buf, pos, newline, newline - pos
                    pos = newline + 1
                    self.end = base + pos
                    continue
                rest = filled - pos
                if rest < block:
                    if pos:  # the start of the next line goes to the front, the block fills up
                        buf[:rest] = buf[pos:filled]  # (a copy first: the two overlap)
                        base, pos, filled = base + pos, 0, rest
                    got = readinto(view[filled:])
                    if not got:
                        self.partial = rest > 0
                        return
                    filled += got
                    continue
                # A line longer than a block: find where it ends, keeping only its first bytes.
                length = self._measure(base, rest)
                if length < 0:
                    self.partial = True
                    return
                yield base, buf, 0, filled, length
                base += length + 1
                self.end = base
                handle.seek(base)
                pos = filled = 0
        finally:
            view.release()

    def _measure(self, start: int, have: int) -> int:
        """Length of the line at `start` (`have` bytes of it read so far, none of them a
        newline), or -1 if the file ends before its newline. Nothing is kept."""
        length = have
        while True:
            chunk = self.handle.read(self.block)
            if not chunk:
                return -1
            newline = chunk.find(b"\n")
            if newline >= 0:
                return length + newline
            length += len(chunk)

    def read_line(self, offset: int, length: int) -> bytes:
        """The line at `offset` whole (for one of at most MAX_HELD_BYTES)."""
        self.handle.seek(offset)
        return self.handle.read(length)

    def stream_line(self, offset: int, length: int) -> Iterator[bytes]:
        """The line at `offset` block by block, for one too long to hold."""
        yield from stream_range(self.handle, offset, length, min(self.block, STREAM_BYTES))


def stream_range(handle: IO[bytes], offset: int, length: int, block: int | None = None) -> Iterator[bytes]:
    block = block or STREAM_BYTES
    handle.seek(offset)
    left = length
    while left > 0:
        chunk = handle.read(min(block, left))
        if not chunk:
            return
        left -= len(chunk)
        yield chunk


def line_at(handle: IO[bytes], offset: int, block: int | None = None) -> tuple[bytes, int]:
    """(the first bytes of the line at `offset`, its length without the newline); the bytes
    are the whole line when it is at most 64 KiB long. Length -1: no newline, a torn line."""
    block = block or BLOCK_BYTES
    handle.seek(offset)
    first = handle.readline(64 * 1024)  # most lines: read to their end and no further
    if first.endswith(b"\n"):
        return first[:-1], len(first) - 1
    length = len(first)
    while True:
        chunk = handle.read(block)
        if not chunk:
            return first, -1
        newline = chunk.find(b"\n")
        if newline >= 0:
            return first, length + newline
        length += len(chunk)


def json_loads(text: str | bytes | bytearray) -> Any:
    """`json.loads(text)`, a value nested deeper than the decoder recurses refused as any text
    that is not JSON is (ValueError): such a line of a corrupt or hostile session is a bad line,
    not a review that fails. Lone surrogates are read as U+FFFD (`without_lone_surrogates`)."""
    try:
        value = json.loads(text)
    except RecursionError as exc:
        raise ValueError("JSON nested too deep to decode") from exc
    return repair_lone_surrogates(value) if _may_hold_lone_surrogates(text) else value


# A lone surrogate: JSON's "\ud800" (or UTF-8 bytes read with `surrogatepass`) decodes to one,
# and UTF-8 has no form for it, so a text holding one can be neither sent to a reviewer, nor
# written to a file, nor printed. (A pair, "\ud83d\ude00", decodes to the one character it
# stands for.) json takes them.
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")
_SURROGATE_ESCAPE_TEXT = re.compile(r"\\u[dD][89a-fA-F]")


def without_lone_surrogates(text: str) -> str:
    """`text` with each lone surrogate read as U+FFFD, as a UTF-8 reader shows what it cannot
    read: the session's text stays whole, and every later step can encode it."""
    return text if text.isascii() else _LONE_SURROGATE.sub("\ufffd", text)


def _may_hold_lone_surrogates(text: str | bytes | bytearray) -> bool:
    """Does this JSON text escape a surrogate ("\\ud800"), or (bytes) hold one's UTF-8 form
    (ED A0–BF ..), which json.loads decodes with `surrogatepass`? A find first, in C: most lines
    hold neither."""
    if isinstance(text, str):
        return "\\u" in text and _SURROGATE_ESCAPE_TEXT.search(text) is not None
    return b"\xed" in text or (b"\\u" in text and _SURROGATE_ESCAPE.search(text) is not None)


def repair_lone_surrogates(value: Any) -> Any:
    """`value` (decoded JSON) with `without_lone_surrogates` applied to every string in it, keys
    included; iterative, since a session line may nest as deep as json decodes."""
    if isinstance(value, str):
        return without_lone_surrogates(value)
    todo = [value]
    while todo:
        item = todo.pop()
        if isinstance(item, dict):
            for key in list(item):
                child = item[key]
                fixed_key = without_lone_surrogates(key) if isinstance(key, str) else key
                if isinstance(child, str):
                    child = without_lone_surrogates(child)
                elif isinstance(child, (dict, list)):
                    todo.append(child)
                if fixed_key is not key:
                    del item[key]
                item[fixed_key] = child
        elif isinstance(item, list):
            for index, child in enumerate(item):
                if isinstance(child, str):
                    item[index] = without_lone_surrogates(child)
                elif isinstance(child, (dict, list)):
                    todo.append(child)
    return value
