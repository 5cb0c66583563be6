"""Regular expressions compiled the first time they are used.

The explicit-request grammar (`omp.intents`), the secret patterns (`omp.safety.secrets`) and the
injection patterns (`omp.safety.injection`) hold hundreds of patterns, and `re.compile` of a large
one is slow (Python parses and assembles it). Each is compiled when it is first matched, with
`re.compile`, so a process pays only for the patterns its texts reach: the hooks and most
commands reach none. (An earlier omp kept compiled patterns in `G/state/regex-cache/`; that
folder is no longer read and can be deleted.)
"""

from __future__ import annotations

import re
import sys
from typing import Callable, Iterator


class LazyPattern:
    """A compiled pattern's interface (the methods omp uses), compiled on first use."""

    __slots__ = ("_source", "_flags", "_compiled")

    def __init__(self, source: str, flags: int = 0) -> None:
        self._source = source
        self._flags = flags
        self._compiled: re.Pattern[str] | None = None

    @property
    def compiled(self) -> re.Pattern[str]:
        if self._compiled is None:
            self._compiled = re.compile(self._source, self._flags)
        return self._compiled

    @property
    def pattern(self) -> str:
        return self._source

    @property
    def groupindex(self) -> dict[str, int]:
        return dict(self.compiled.groupindex)

    def match(self, string: str, pos: int = 0, endpos: int = sys.maxsize) -> re.Match[str] | None:
        return self.compiled.match(string, pos, endpos)

    def search(self, string: str, pos: int = 0, endpos: int = sys.maxsize) -> re.Match[str] | None:
        return self.compiled.search(string, pos, endpos)

    def finditer(self, string: str, pos: int = 0, endpos: int = sys.maxsize) -> Iterator[re.Match[str]]:
        return self.compiled.finditer(string, pos, endpos)

    def fullmatch(self, string: str, pos: int = 0, endpos: int = sys.maxsize) -> re.Match[str] | None:
        return self.compiled.fullmatch(string, pos, endpos)

    def findall(self, string: str, pos: int = 0, endpos: int = sys.maxsize) -> list[str]:
        return self.compiled.findall(string, pos, endpos)

    def sub(self, repl: str | Callable[[re.Match[str]], str], string: str, count: int = 0) -> str:
        return self.compiled.sub(repl, string, count)

    def __repr__(self) -> str:
        return f"lazy({self._source[:40]!r}{'…' if len(self._source) > 40 else ''})"


def lazy(source: str, flags: int = 0) -> LazyPattern:
    """`re.compile(source, flags)`, deferred to the first match."""
    return LazyPattern(source, flags)
