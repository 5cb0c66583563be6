"""Strings a regular expression matches, spelled out from its parse: every alternative, each
optional part with and without it, a character class by one of its characters, a repeat at its
least count. Tests use them to hold a cheap first look (a substring list, a prefilter) to every
phrase a pattern can match, not only to the phrases a corpus happens to hold."""

from __future__ import annotations

from typing import Any

try:
    import re._constants as sre_constants
    import re._parser as sre_parse
except ImportError:  # Python 3.10
    import sre_constants  # type: ignore[no-redef]
    import sre_parse  # type: ignore[no-redef]

LIMIT = 50_000  # strings per pattern, at most


def spell(source: str, flags: int = 0) -> list[str]:
    return _sequence(list(sre_parse.parse(source, flags)))


def _one_of(items: list[tuple[Any, Any]]) -> str:
    op, value = items[0]
    if op is sre_constants.LITERAL:
        return chr(value)
    if op is sre_constants.RANGE:
        return chr(value[0])
    if op is sre_constants.CATEGORY and "SPACE" in str(value) and "NOT" not in str(value):
        return " "
    if op is sre_constants.CATEGORY and "DIGIT" in str(value) and "NOT" not in str(value):
        return "7"
    return "a"


def _sequence(items: list[tuple[Any, Any]]) -> list[str]:
    out = [""]
    for op, value in items:
        out = [head + tail for head in out for tail in _part(op, value)][:LIMIT]
    return out


def _part(op: Any, value: Any) -> list[str]:
    c = sre_constants
    if op is c.LITERAL:
        return [chr(value)]
    if op is c.NOT_LITERAL or op is c.ANY:
        return ["x" if op is c.ANY or chr(value) != "x" else "y"]
    if op is c.IN:
        return [_one_of(list(value))]
    if op is c.CATEGORY:
        return [_one_of([(op, value)])]
    if op is c.BRANCH:
        return [text for branch in value[1] for text in _sequence(list(branch))]
    if op is c.SUBPATTERN:
        return _sequence(list(value[-1]))
    if op in (c.MAX_REPEAT, c.MIN_REPEAT):
        low, _high, inner = value
        spelled = _sequence(list(inner))
        return [""] + spelled if low == 0 else [text * low for text in spelled]
    return [""]  # anchors, lookarounds, group references
