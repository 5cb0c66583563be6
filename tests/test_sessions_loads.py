"""lines.json_loads, which the reader decodes every line with, must decode as json.loads does (a lone
surrogate, which UTF-8 cannot carry, read as U+FFFD), whatever the encoding or the bytes."""

from __future__ import annotations

import codecs
import json
import random
import re
from typing import Any

from omp.sessions.lines import json_loads as loads


def _outcome(decode: Any, line: bytes | bytearray) -> Any:
    try:
        return ("ok", decode(line))
    except ValueError as exc:  # JSONDecodeError and UnicodeDecodeError alike
        return ("error", type(exc).__name__)


def _lines() -> list[bytes]:
    event = {"type": "user.message", "data": {"content": "héllo \u2028 \U0001f600 \"q\" \\ end"}}
    text = json.dumps(event, ensure_ascii=False)
    made = [text.encode(), json.dumps(event).encode(), text.encode() + b"  \r\n", b" " + text.encode()]
    for codec in ("utf-16-le", "utf-16-be", "utf-32-le", "utf-32-be", "utf-16", "utf-32", "utf-8-sig"):
        made.append(text.encode(codec))
    made += [b"{", b"{}", b"{}x", b'{"a":1} {"b":2}', b"{\x00}", b'{"a":"\xff"}', b'{"a":"\\ud800"}',
             b'{"a":"\xed\xa0\x80"}', b"[1,2]", b"", b"\x00{}", b'{"a":NaN}', b'{"a":1e999}']
    rng = random.Random(2)
    alphabet = [b"{", b"}", b'"', b"\\", b"u", b"0", b":", b",", b"a", b"\x00", b"\xc3\xa9", b"\xff", b" ", b"\n"]
    made += [b"{" + b"".join(rng.choice(alphabet) for _ in range(rng.randint(0, 12))) for _ in range(2000)]
    return made


def _readable(value: Any) -> Any:
    """A decoded value with every lone surrogate in it (keys too) as U+FFFD."""
    if isinstance(value, str):
        return re.sub("[\ud800-\udfff]", "\ufffd", value)
    if isinstance(value, list):
        return [_readable(item) for item in value]
    if isinstance(value, dict):
        return {_readable(key): _readable(item) for key, item in value.items()}
    return value


def _json_loads(line: bytes | bytearray) -> Any:
    return _readable(json.loads(line))


def test_loads_is_json_loads() -> None:
    for line in _lines():
        for form in (line, bytearray(line)):
            assert repr(_outcome(loads, form)) == repr(_outcome(_json_loads, form)), line
    assert loads(b'{"a":"\\ud800 \\ud83d\\ude00","\xed\xa0\x80":1}') == {"a": "\ufffd \U0001f600", "\ufffd": 1}
    assert codecs.BOM_UTF8 == b"\xef\xbb\xbf"  # a mark starts with no "{" (nor do UTF-16/32 BOMs)
