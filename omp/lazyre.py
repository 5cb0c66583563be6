"""Regular expressions compiled the first time they are used, and compiled once per Python.

`re.compile` of a large pattern is slow (tens of microseconds per character of pattern: Python
parses and assembles it in Python code), and the explicit-request grammar (`omp.intents`), the
secret patterns (`omp.safety.secrets`) and the injection patterns (`omp.safety.injection`) hold
hundreds of them. Two things keep that out of every review's start-up (SPEC §12):

- **on first use**: a pattern compiles when it is first matched, so a review pays only for the
  patterns its texts reach (each pattern runs only where its trigger words are);
- **once per Python build**: what `re` compiles a pattern to (the `_sre` code, a list of ints)
  is kept in `G/state/regex-cache/`, one small marshal file per pattern, named by the sha256 of
  its key: the exact Python build (`sys.version`, `_sre.MAGIC`, `_sre.CODESIZE`), the flags and
  the pattern's source. The next process builds the pattern object from it with `_sre.compile`
  (which validates the code) instead of parsing again: about 100 ms of compiling becomes about
  3 ms of reading. The file holds the key itself, compared in full on every read; anything that
  does not fit (another build, a damaged or foreign file, an unreadable folder) is ignored and
  the pattern is compiled by `re.compile` as before. An entry is written only after the object
  built from it proved equal to `re.compile`'s (same flags, code, groups and group names), so
  the cache can make a pattern faster, never different. Never pickle; never in the project.

Standard library only (and omp.core for the home and the file helpers).
"""

from __future__ import annotations

import marshal
import os
import re
import sys
from typing import Any, Callable, Iterator

import _sre

from omp.core import layout
from omp.core.files import read_regular, write_best_effort
from omp.core.settings import sha256_hex

CACHE_FOLDER = os.path.join(layout.STATE_SUBDIR, "regex-cache")  # under G
# What the compiled code depends on besides the pattern: a different build compiles anew.
_BUILD = (sys.version, _sre.MAGIC, _sre.CODESIZE)
_FORMAT = 1  # of an entry's tuple; bump when it changes

_cache_state: dict[str, bool] = {"enabled": True, "writes": True}


def set_cache_enabled(enabled: bool) -> None:
    """Tests use this to compare the cached path with plain `re.compile`."""
    _cache_state["enabled"] = enabled


def set_cache_writes(allowed: bool) -> None:
    """A run that must write nothing at all (`omp memory-review --dry-run`, SPEC §5) still reads
    the cache but adds nothing to it."""
    _cache_state["writes"] = allowed


def cache_folder() -> str:
    """`G/state/regex-cache`."""
    return os.path.join(layout.global_home(), CACHE_FOLDER)


def _key(source: str, flags: int) -> tuple[Any, ...]:
    return (_FORMAT, *_BUILD, flags, source)


def _entry_path(key: tuple[Any, ...]) -> str:
    return os.path.join(cache_folder(), sha256_hex(repr(key).encode("utf-8", "surrogatepass")) + ".marshal")


def _from_entry(raw: bytes, key: tuple[Any, ...]) -> re.Pattern[str] | None:
    """The pattern an entry describes, or None when the entry is not this key's."""
    entry = marshal.loads(raw)
    if not (isinstance(entry, tuple) and len(entry) == 6 and entry[0] == key):
        return None
    _key_again, flags, code, groups, groupindex, indexgroup = entry
    if not (isinstance(flags, int) and isinstance(code, list) and isinstance(groups, int)
            and isinstance(groupindex, dict) and isinstance(indexgroup, tuple)):
        return None
    pattern: re.Pattern[str] = _sre.compile(key[-1], flags, code, groups, groupindex, indexgroup)
    return pattern


def _replay(source: str, flags: int) -> tuple[Any, ...]:
    """What `re.compile` passes `_sre.compile` after the pattern: `re`'s own steps (parse,
    assemble), with their product kept."""
    # re's own steps, under the names each Python gives them.
    if sys.version_info >= (3, 11):
        from re import _compiler, _parser  # type: ignore[attr-defined]
    else:  # pragma: no cover - Python 3.10
        import sre_compile as _compiler
        import sre_parse as _parser

    parsed = _parser.parse(source, flags)
    code = [int(op) for op in _compiler._code(parsed, flags)]  # type: ignore[attr-defined]
    groupindex = {str(name): int(number) for name, number in parsed.state.groupdict.items()}
    indexgroup: list[str | None] = [None] * parsed.state.groups
    for name, number in groupindex.items():
        indexgroup[number] = name
    return (int(flags | parsed.state.flags), code, parsed.state.groups - 1, groupindex, tuple(indexgroup))


def _entry(source: str, flags: int, reference: re.Pattern[str]) -> tuple[Any, ...] | None:
    """The arguments of `_sre.compile` for this pattern, or None when the object they build
    differs from `reference` (what `re.compile` gave) in any way."""
    arguments = _replay(source, flags)
    built = _sre.compile(source, *arguments)
    same = (built == reference and built.flags == reference.flags and built.groups == reference.groups
            and dict(built.groupindex) == dict(reference.groupindex))
    return arguments if same else None


def compile_cached(source: str, flags: int = 0) -> re.Pattern[str]:
    """`re.compile(source, flags)`, from `G/state/regex-cache` when this build compiled it before."""
    flags = int(flags)
    if not _cache_state["enabled"]:
        return re.compile(source, flags)
    key = _key(source, flags)
    try:
        path = _entry_path(key)
        raw = read_regular(path)
    except OSError:  # no home, or not a file there: compile, and leave the folder alone
        return re.compile(source, flags)
    if raw is not None:
        try:
            found = _from_entry(raw, key)
        except Exception:  # a damaged or foreign entry: compiled anew and replaced below
            found = None
        if found is not None:
            return found
    compiled = re.compile(source, flags)
    if not _cache_state["writes"]:
        return compiled
    try:
        arguments = _entry(source, flags, compiled)
        if arguments is not None:
            write_best_effort(path, marshal.dumps((key, *arguments)))
    except Exception:  # `re`'s internals differ in this Python: the pattern just is not cached
        pass
    return compiled


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
            self._compiled = compile_cached(self._source, self._flags)
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
    """`re.compile(source, flags)`, deferred to the first match (and cached, see above)."""
    return LazyPattern(source, flags)
