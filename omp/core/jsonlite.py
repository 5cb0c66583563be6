"""JSON without importing `json`, for the hook path (docs/performance.md#where-speed-matters).

`import json` imports `re` (and `enum`, `functools`...): measured +16 ms of a fresh wheel
venv's start-up on this machine, which put sessionEnd at +30 ms over `python -c pass`, beyond
its 25 ms budget (bench/README.md). So the hook reads and writes its small JSON with this
reader and writer; anything the reader does not accept is handed to the real `json` module, so
`loads` always returns what `json.loads` would (tests/test_hooks.py checks both against it).
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations only: importing typing costs the hook start-up time
    from typing import Any


class _NotJSON(ValueError):
    pass


_WS = " \t\n\r"
_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}
_DIGITS = "0123456789"
_NUMBER_CHARS = frozenset("+-.eE" + _DIGITS)


def loads(text: str) -> Any:
    """json.loads(text), mostly without the json module."""
    try:
        value, end = _value(text, _skip(text, 0))
        if _skip(text, end) != len(text):
            raise _NotJSON("extra data")
        return value
    except (_NotJSON, IndexError):
        import json  # the exact verdict (and NaN, Infinity, …) comes from the real parser

        return json.loads(text)


def _skip(s: str, i: int) -> int:
    while i < len(s) and s[i] in _WS:
        i += 1
    return i


def _value(s: str, i: int) -> tuple[Any, int]:
    c = s[i]
    if c == '"':
        return _string(s, i + 1)
    if c == "{":
        return _object(s, i + 1)
    if c == "[":
        return _array(s, i + 1)
    for word, value in (("true", True), ("false", False), ("null", None)):
        if s.startswith(word, i):
            return value, i + len(word)
    return _number(s, i)


def _string(s: str, i: int) -> tuple[str, int]:
    parts: list[str] = []
    while True:
        quote = s.find('"', i)
        if quote < 0:
            raise _NotJSON("unterminated string")
        slash = s.find("\\", i, quote)
        chunk = s[i : quote if slash < 0 else slash]
        if any(ch < " " for ch in chunk):
            raise _NotJSON("control character in string")
        parts.append(chunk)
        if slash < 0:
            return "".join(parts), quote + 1
        kind = s[slash + 1]
        if kind in _ESCAPES:
            parts.append(_ESCAPES[kind])
            i = slash + 2
            continue
        if kind != "u":
            raise _NotJSON("bad escape")
        code = _hex4(s, slash + 2)
        i = slash + 6
        if 0xD800 <= code < 0xDC00 and s.startswith("\\u", i):
            low = _hex4(s, i + 2)
            if 0xDC00 <= low < 0xE000:
                code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                i += 6
        parts.append(chr(code))


def _hex4(s: str, i: int) -> int:
    digits = s[i : i + 4]
    if len(digits) != 4 or any(ch not in "0123456789abcdefABCDEF" for ch in digits):
        raise _NotJSON("bad \\u escape")
    return int(digits, 16)


def _number(s: str, i: int) -> tuple[int | float, int]:
    end = i
    while end < len(s) and s[end] in _NUMBER_CHARS:
        end += 1
    token = s[i:end]
    body = token[1:] if token.startswith("-") else token
    mantissa, _, exponent = body.replace("E", "e").partition("e")
    whole, dot, fraction = mantissa.partition(".")
    if (
        not whole or any(ch not in _DIGITS for ch in whole) or (len(whole) > 1 and whole[0] == "0")
        or (dot and (not fraction or any(ch not in _DIGITS for ch in fraction)))
        or ("e" in body.replace("E", "e") and not _exponent_ok(exponent))
    ):
        raise _NotJSON("bad number")
    if dot or "e" in body.replace("E", "e"):
        return float(token), end
    return int(token), end


def _exponent_ok(exponent: str) -> bool:
    digits = exponent[1:] if exponent[:1] in ("+", "-") else exponent
    return bool(digits) and all(ch in _DIGITS for ch in digits)


def _object(s: str, i: int) -> tuple[dict[str, Any], int]:
    result: dict[str, Any] = {}
    i = _skip(s, i)
    if s[i] == "}":
        return result, i + 1
    while True:
        if s[i] != '"':
            raise _NotJSON("expected a key")
        key, i = _string(s, i + 1)
        i = _skip(s, i)
        if s[i] != ":":
            raise _NotJSON("expected ':'")
        result[key], i = _value(s, _skip(s, i + 1))
        i = _skip(s, i)
        if s[i] == "}":
            return result, i + 1
        if s[i] != ",":
            raise _NotJSON("expected ',' or '}'")
        i = _skip(s, i + 1)


def _array(s: str, i: int) -> tuple[list[Any], int]:
    result: list[Any] = []
    i = _skip(s, i)
    if s[i] == "]":
        return result, i + 1
    while True:
        value, i = _value(s, i)
        result.append(value)
        i = _skip(s, i)
        if s[i] == "]":
            return result, i + 1
        if s[i] != ",":
            raise _NotJSON("expected ',' or ']'")
        i = _skip(s, i + 1)


def dumps(value: Any) -> str:
    """json.dumps for what the hooks print (objects of strings), ASCII-only; else the json module.

    ASCII with \\u escapes is valid JSON whatever encoding the hook's stdout has (a Windows
    pipe is not UTF-8).
    """
    if isinstance(value, dict) and all(isinstance(k, str) and isinstance(v, str) for k, v in value.items()):
        return "{" + ", ".join(f"{_quote(k)}: {_quote(v)}" for k, v in value.items()) + "}"
    import json  # the hook path: only what the small writer above does not take pays for json

    return json.dumps(value)


def _quote(text: str) -> str:
    out = ['"']
    for ch in text:
        if ch == '"' or ch == "\\":
            out.append("\\" + ch)
        elif " " <= ch <= "~":
            out.append(ch)
        elif ch in "\n\r\t\b\f":
            out.append({"\n": "\\n", "\r": "\\r", "\t": "\\t", "\b": "\\b", "\f": "\\f"}[ch])
        else:
            code = ord(ch)
            if code > 0xFFFF:  # a surrogate pair, as json.dumps writes it
                code -= 0x10000
                out.append(f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}")
            else:
                out.append(f"\\u{code:04x}")
    out.append('"')
    return "".join(out)
