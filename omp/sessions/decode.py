"""Decoding one line of `events.jsonl` (docs/behaviour.md#sessions-and-the-packet): a conversation line by `json`;
a `tool.execution_complete` line without its output string but for the string's ends.
"""

from __future__ import annotations

import json
import os
from typing import Any


from omp.sessions import lines
from omp.sessions.excerpt import TOOL_CLIP_BYTES, TOOL_HEAD_CHARS, TOOL_TAIL_CHARS
from omp.sessions.lines import decode_string, string_end
from omp.sessions.skeleton import RawClip, Skeleton, restore

TOOL_TYPE = b"tool.execution_complete"  # a tool output line: read by the ends of its output

def decode_line(line: bytes | bytearray) -> Any:
    """`json.loads(line.strip())` without copying the line first.
    (JSON's own whitespace is all a line ever has around it; the strip is for the rest.)"""
    try:
        return lines.json_loads(line)
    except ValueError:
        return lines.json_loads(line.strip())


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
        rest = Skeleton(window=TOOL_CLIP_BYTES, keep_whole=_SUFFIX_DECODED)
        rest.feed(buf, end + 1, stop)
        after = rest.skeleton()
        if after is None:
            return None
        clips = rest.clips
    else:
        after = buf[end + 1 : stop]
    outside = buf[start:first] + _OUTPUT_MARK_JSON + b'"' + after  # the line, its output a mark
    try:
        event = lines.json_loads(outside)
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
