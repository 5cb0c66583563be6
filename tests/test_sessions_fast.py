"""A conversation line decoded by msgspec must read as json reads it (omp.sessions.decode.fast_event).

fast_event either gives up (None: the line goes to json, as before) or gives an event that
`parse_event` reads exactly as it reads json's: the same message, the same tool names
remembered. Lines are generated and mutated byte by byte (seeded) around everything where
msgspec and json differ: NaN and Infinity, duplicate keys, lone surrogates (escaped or as bytes),
bytes that are not UTF-8 and integers longer than int() takes (in a field the typed decoders
skip), deep nesting, a `data` that is not an object, a later "type" than the line's first.
"""

from __future__ import annotations

import json
import random
import re
from pathlib import Path
from typing import Any, Callable

import pytest
from sessions_support import assistant, event, tool_request, tool_result, user
from test_sessions_streamed import adversarial_session

from omp.sessions import decode, events, lines, streamed
from omp.intents.messages import FOREIGN_STEMS
from omp.sessions.decode import fast_event
from omp.sessions.events import SessionReader
from omp.sessions.parse import parse_event

KINDS = (b"user.message", b"assistant.message", b"tool.execution_complete")


def _json_event(line: bytes) -> Any:
    try:
        return decode.decode_line(line)
    except ValueError:
        return ValueError


def _read(event: Any) -> Any:
    """What the reader takes from an event: its message and the tool names it remembers."""
    names = {"c1": "bash", "c2": "view"}
    try:
        message = parse_event(event, names)
    except ValueError:
        return ValueError
    return repr(message), names


def _assert_reads_as_json(line: bytes, kind: bytes) -> bool:
    """True when fast_event took the line (it then reads as json's decode does)."""
    try:
        fast = fast_event(line, kind)
    except RecursionError:
        raise AssertionError(f"fast_event let a RecursionError out: {line[:200]!r}") from None
    if fast is None:
        return False
    whole = _json_event(line)
    assert whole is not ValueError, f"msgspec took a line json refuses: {line[:300]!r}"
    assert _read(fast) == _read(whole), line[:300]
    return True


def _base_lines() -> list[tuple[bytes, bytes]]:
    records = [
        user("From now on, always run the tests. héllo \u2028 \U0001f600 \"q\" \\ end"),
        user(""),
        event("user.message", {"content": [{"type": "text", "text": "remember that"}, "x", {"text": 5}]}),
        assistant("Running them.", [tool_request("c1"), tool_request("c2", "view", "cat a", "read", "read it")]),
        assistant("", [{"toolCallId": "c3", "name": "bash", "arguments": json.dumps({"command": "ls"})}, 7, None]),
        assistant("", []),
        tool_result("c1", "line one\nline two \"quoted\" \\ back", detailed="more"),
        tool_result("c2", "", success=False, detailed="the real output"),
        event("tool.execution_complete", {"toolCallId": "c1", "success": False, "error": {"message": "boom"}}),
        event("tool.execution_complete", {"toolCallId": "c9", "toolName": "grep", "result": "plain"}),
    ]
    made: list[tuple[bytes, bytes]] = []
    for record in records:
        kind = record["type"].encode()
        for ensure_ascii in (False, True):
            made.append((json.dumps(record, ensure_ascii=ensure_ascii, separators=(",", ":")).encode(), kind))
        made.append((json.dumps(record, indent=1).replace("\n", " ").encode(), kind))
    return made


def _special_lines() -> list[tuple[bytes, bytes]]:
    u, a, t = KINDS
    digits = b"1" * 5000
    return [
        (b'{"type":"user.message","data":{"content":"x"},"n":NaN}', u),
        (b'{"type":"user.message","data":{"content":"x"},"n":-Infinity}', u),
        (b'{"type":"user.message","data":{"content":"x","content":"always y"}}', u),
        (b'{"type":"user.message","data":{"content":"x"},"data":{"content":"never z"}}', u),
        (b'{"type":"user.message","data":{"content":"x"},"type":"assistant.message"}', u),
        (b'{"type":"user.message","data":{"content":"x"},"type":"system.message"}', u),
        (b'{"type":"user.message","data":{"content":"x"},"type":5}', u),
        (b'{"type":"user.message","data":{"content":"\\ud800 lone"}}', u),
        (b'{"type":"user.message","data":{"content":"\\udc00 lone"}}', u),
        (b'{"type":"user.message","data":{"content":"\xed\xa0\x80 bytes"}}', u),
        (b'{"type":"user.message","data":{"content":"ok"},"x":"\xed\xa0\x80"}', u),
        (b'{"type":"user.message","data":{"content":"ok"},"x":"\xff"}', u),
        (b'{"type":"user.message","data":{"content":"ok"},"x":"\xc0\xaf"}', u),
        (b'{"type":"user.message","data":{"content":"\xff"}}', u),
        (b'{"type":"user.message","data":{"content":"ok"},"x":' + digits + b"}", u),
        (b'{"type":"user.message","data":{"content":' + digits + b"}}", u),
        (b'{"type":"user.message","data":{"content":"ok"},"x":1e999}', u),
        (b'{"type":"user.message","data":{"content":1e999}}', u),
        (b'{"type":"user.message","data":{"content":"ok"},"x":-0.0}', u),
        (b'{"type":"user.message","data":"not an object"}', u),
        (b'{"type":"user.message","data":null}', u),
        (b'{"type":"user.message"}', u),
        (b'{"t\\u0079pe":"user.message","data":{"c\\u006fntent":"escaped keys"}}', u),
        (b'{"type":"user.message","data":{"content":"ok"}}  \r', u),
        (b'{"type":"user.message","data":{"content":"ok"}}\x0c', u),
        (b'{"type":"user.message","data":{"content":"ok"}}x', u),
        (b'{"type":"user.message","data":{"content":"ok"},}', u),
        (b'{"type":"user.message","data":{"content":"a\x01b"}}', u),
        (b'{"type":"user.message","data":{"content":"ok"},"x":"a\x01b"}', u),
        (b'{"type":"user.message","data":{"content":"ok"},"x":"\\q"}', u),
        (b'{"type":"user.message","data":{"content":"ok"},"x":"\\uZZZZ"}', u),
        (b'{"type":"user.message","data":{"content":"ok"},"x":01}', u),
        (b'{"type":"assistant.message","data":{"content":"ok","toolRequests":{"not":"a list"}}}', a),
        (b'{"type":"assistant.message","data":{"toolRequests":[{"toolCallId":"c1","name":"bash","name":"view"}]}}', a),
        (b'{"type":"tool.execution_complete","data":{"toolCallId":"c1","success":false,"success":true,'
         b'"result":{"content":"a","detailedContent":"b"}}}', t),
        (b'{"type":"tool.execution_complete","data":{"toolCallId":"c2","result":{"content":"  "},'
         b'"error":{"message":"e"}}}', t),
    ]


def _mutations(rng: random.Random, line: bytes, count: int) -> list[bytes]:
    alphabet = [b"{", b"}", b"[", b"]", b'"', b"\\", b"u", b"d8", b"00", b":", b",", b"1", b"-", b"e", b".", b"N",
                b" ", b"\x00", b"\x01", b"\xc3\xa9", b"\xff", b"\xed\xa0\x80", b"\\ud800", b'"type":"x",', b"null"]
    made = []
    for _ in range(count):
        at = rng.randrange(len(line) + 1)
        cut = rng.choice([0, 0, 1, 2])
        made.append(line[:at] + rng.choice(alphabet) * rng.choice([1, 1, 2]) + line[at + cut :])
    return made


def test_fast_event_reads_what_json_reads() -> None:
    rng = random.Random(11)
    taken = refused = 0
    cases = _base_lines() + _special_lines()
    for line, kind in cases:
        for candidate in [line, *_mutations(rng, line, 400)]:
            if _assert_reads_as_json(candidate, kind):
                taken += 1
            else:
                refused += 1
    assert taken > 3000 and refused > 3000  # both ways are well represented


def test_what_msgspec_takes_and_json_does_not_goes_to_json() -> None:
    # msgspec alone accepts these lines (or reads them otherwise); fast_event must not.
    u = b"user.message"
    for line in [
        b'{"type":"user.message","data":{"content":"ok"},"x":"\xff"}',
        b'{"type":"user.message","data":{"content":"ok"},"x":' + b"1" * 5000 + b"}",
        b'{"type":"user.message","data":{"content":"x"},"type":"assistant.message"}',
    ]:
        assert fast_event(line, u) is None, line[:100]


@pytest.mark.parametrize("kind", KINDS)
def test_deep_nesting_reads_as_json_reads_it(kind: bytes) -> None:
    """json refuses a line nested near the recursion limit (a RecursionError, which the reader
    makes a bad line: tests/test_sessions_deep.py); msgspec goes a few levels deeper. Around that
    depth the line must give what json gives, the bad line included."""

    def outcome(decode: Callable[[bytes], Any], line: bytes) -> str:
        try:
            return repr(_read(decode(line)))
        except RecursionError:
            return "RecursionError"

    def as_now(line: bytes) -> Any:
        return fast_event(line, kind) or _json_event(line)

    def as_before(line: bytes) -> Any:  # json called as deep in the stack as as_now calls it
        return _json_event(line)

    seen = set()
    for depth in range(0, 1100, 7):
        nested = b"[" * depth + b"]" * depth
        line = b'{"type":"' + kind + b'","data":{"content":"always","toolCallId":"c1","x":' + nested + b"}}"
        expected = outcome(as_before, line)
        assert outcome(as_now, line) == expected != "RecursionError", depth
        seen.add(_json_event(line) is ValueError)  # too deep: a bad line
    assert seen == {True, False}


def _streamed(path: Path) -> tuple[Any, ...]:
    reader = SessionReader(path)
    found = [(entry, message.origin, message.seq, message.text) for entry, message in reader.iter_streamed()]
    indexed = SessionReader(path)
    eager = [(entry, message.text) for entry, message in indexed.iter_indexed()]
    counters = (reader.messages, reader.bad_lines, reader.skipped_events, reader.end_offset, reader.partial_tail)
    return found, eager, counters, reader.injected


def test_a_session_reads_the_same_without_msgspec(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = adversarial_session(tmp_path / "events.jsonl", turns=80, seed=9)
    rng = random.Random(4)
    with path.open("ab") as out:  # and the special lines, some mutated, between real ones
        for line, _ in _special_lines() + _base_lines():
            out.write(line + b"\n")
            out.write(rng.choice(_mutations(rng, line, 1)).replace(b"\n", b" ") + b"\n")
    fast = _streamed(path)
    monkeypatch.setattr(events, "fast_event", lambda line, kind: None)
    monkeypatch.setattr(decode, "fast_event", lambda line, kind: None)  # tool lines read by their ends
    assert _streamed(path) == fast
    assert fast[2][1] > 0  # bad lines too


def test_decode_raw_is_json_scanstring() -> None:
    """decode_raw tries msgspec first; it must decode (or refuse) every string as json does (a lone
    surrogate read as U+FFFD)."""
    scanstring = lines._scanstring

    def as_json(raw: bytes) -> Any:
        try:
            text = raw.decode("utf-8", "surrogatepass") + '"'
            value, end = scanstring(text, 0, True)
        except ValueError:
            return ValueError
        # A lone surrogate (UTF-8 has no form for it) is read as U+FFFD.
        return re.sub("[\ud800-\udfff]", "\ufffd", value) if end == len(text) else ValueError

    def decoded(raw: bytes) -> Any:
        try:
            return lines.decode_raw(raw)
        except ValueError:
            return ValueError

    rng = random.Random(7)
    alphabet = [b"a", b"\\", b'"', b"u", b"d", b"8", b"0", b"c", b"D", b"f", b"n", b"/", b"\xc3", b"\xa9", b"\xed",
                b"\xa0", b"\x80", b"\xff", b"\x01", b"\x7f", b" ", b"\t", b"\xf0\x9f\x98\x80", b"\\ud83d", b"\\ude00",
                b"\\u00e9", b'\\"', b"\\\\", b"\\ud800", b"\xe2\x80\xa8"]
    valid = 0
    for _ in range(60000):
        raw = b"".join(rng.choice(alphabet) for _ in range(rng.randint(0, 10)))
        expected = as_json(raw)
        assert repr(decoded(raw)) == repr(expected), raw
        assert repr(decoded(bytearray(raw))) == repr(expected), raw
        valid += expected is not ValueError
    assert valid > 5000


def test_may_hold_looks_at_what_a_clipped_excerpt_shows(tmp_path: Path) -> None:
    """Of a tool output read by its ends, may_hold looks only at what the excerpt shows of them:
    a stem on either side of every cut, after leading or trailing whitespace, must be told."""
    rng = random.Random(8)
    words = ["alpha", "beta", "x = 1", "\n", "path/to/file.py", "ok"]
    filler = " ".join(rng.choice(words) for _ in range(6000))
    records = []
    for pad in ("", " " * 3, "\n" * 40):
        for at in [*range(600, 820, 3), *range(690, 712)]:  # around the head's cut, then at each character
            records.append(tool_result("c", pad + filler[:at] + " always " + filler[at:]))
        for back in [*range(400, 620, 3), *range(490, 512)]:  # around the tail's
            records.append(tool_result("c", filler[:-back] + " Always " + filler[-back:] + pad))
    path = tmp_path / "events.jsonl"
    path.write_text("".join(json.dumps(record, separators=(",", ":")) + "\n" for record in records), encoding="utf-8")
    said_no = 0
    for _, message in SessionReader(path).iter_streamed():
        may = message.may_hold(("always",))
        holds = "always" in message.text.lower()
        assert may or not holds, message.text
        said_no += not may
    assert 0 < said_no < len(records)  # some stems are beyond what is shown, some within


def test_stems_are_found_in_a_reply_as_in_its_folded_text() -> None:
    """may_hold folds a reply's whitespace only when a stem with a space might be in it
    (streamed._holds_any_folded): it must say what a search of the folded text says."""
    rng = random.Random(12)
    words = ["from", "now", "a", "partir", "de", "ab", "sofort", "always", "immer", "x", "Désormais", "以后", "jetzt"]
    spaces = [" ", "  ", "\n", "\t", "\u2028", "\xa0", "\x00", "", "\x1c"]
    found = 0
    for _ in range(20_000):
        text = "".join(rng.choice(words) + rng.choice(spaces) for _ in range(rng.randint(0, 8))).lower()
        expected = streamed._holds_any(" ".join(text.split()), FOREIGN_STEMS)
        assert streamed._holds_any_folded(text, FOREIGN_STEMS) == expected, repr(text)
        found += expected
    assert 2000 < found < 18_000
