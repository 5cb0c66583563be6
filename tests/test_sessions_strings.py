"""Reading a session's strings as json reads them: a JSON string's raw bytes (`decode_raw`), a
tool output read by its ends (what `may_hold` looks at), a reply's stems found as in its folded
text. (The session reader decodes lines with the standard `json` module: bench/README.md.)
"""

from __future__ import annotations

import json
import random
import re
from pathlib import Path
from typing import Any

from sessions_support import tool_result

from omp.intents.messages import FOREIGN_STEMS
from omp.sessions import lines, streamed
from omp.sessions.events import SessionReader


def test_decode_raw_is_json_scanstring() -> None:
    """decode_raw must decode (or refuse) every string as json does (a lone surrogate read as U+FFFD)."""
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
