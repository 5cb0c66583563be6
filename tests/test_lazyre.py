"""omp.lazyre: patterns compiled on first use, and compiled code kept per Python build (SPEC §12).

The cache may make a pattern faster, never different: what it gives back is equal to
`re.compile`'s object (flags, code, groups), and anything that does not fit falls back to
`re.compile`. The grammar's and the safety patterns' behaviour through the cache is what the
intents, corpus and eval tests check (they all run with it, in their own OMP_HOME).
"""

from __future__ import annotations

import marshal
import os
import re
import subprocess
import sys
from pathlib import Path

import msgspec
import pytest

from helpers import python_output
from omp import intents, lazyre
from omp.safety import injection, secrets


def _entry_file(source: str, flags: int = 0) -> Path:
    return Path(lazyre._entry_path(lazyre._key(source, int(flags))))


def _all_patterns() -> list[lazyre.LazyPattern]:
    found: list[lazyre.LazyPattern] = []

    def collect(value: object) -> None:
        if isinstance(value, lazyre.LazyPattern):
            found.append(value)
        elif isinstance(value, (list, tuple, set, frozenset)):
            for item in value:
                collect(item)
        elif isinstance(value, dict):
            for item in value.values():
                collect(item)
        elif isinstance(value, msgspec.Struct):
            for name in value.__struct_fields__:
                collect(getattr(value, name))

    for module in (intents, injection, secrets):
        for value in vars(module).values():
            collect(value)
    return found


def _same(a: re.Pattern[str], b: re.Pattern[str]) -> bool:
    return a == b and a.flags == b.flags and a.groups == b.groups and dict(a.groupindex) == dict(b.groupindex)


def test_the_cache_lives_in_the_global_home(isolated_home: Path) -> None:
    folder = Path(lazyre.cache_folder())
    assert folder == Path(os.environ["OMP_HOME"]) / "state" / "regex-cache"
    lazyre.compile_cached(r"(?P<word>\w+) again")
    assert [p.suffix for p in folder.iterdir()] == [".marshal"]


def test_a_pattern_compiled_once_is_built_from_its_entry_next_time(monkeypatch: pytest.MonkeyPatch) -> None:
    source = r"(?P<key>[a-z_]+)\s*=\s*(?P<value>\S+)"
    first = lazyre.compile_cached(source, re.I)
    assert _entry_file(source, re.I).is_file()

    compiled: list[object] = []
    real = re.compile

    def spy(pattern: str, flags: int = 0) -> re.Pattern[str]:
        compiled.append(pattern)
        return real(pattern, flags)

    monkeypatch.setattr(re, "compile", spy)
    again = lazyre.compile_cached(source, re.I)
    assert source not in compiled
    assert again is not first and _same(again, first)
    assert again.match("Token = abc").group("value") == "abc"


def test_every_pattern_of_the_grammar_and_the_safety_checks_comes_back_the_same() -> None:
    patterns = _all_patterns()
    assert len(patterns) > 90
    for pattern in patterns:
        lazyre.compile_cached(pattern.pattern, pattern._flags)  # writes the entry
        assert _entry_file(pattern.pattern, int(pattern._flags)).is_file(), pattern
        cached = lazyre.compile_cached(pattern.pattern, pattern._flags)  # reads it
        assert _same(cached, re.compile(pattern.pattern, pattern._flags)), pattern


def test_a_damaged_entry_is_compiled_anew_and_replaced() -> None:
    source = r"remember (that )?(?P<rule>.+)"
    lazyre.compile_cached(source)
    path = _entry_file(source)
    good = path.read_bytes()
    path.write_bytes(b"\x00garbage")
    assert _same(lazyre.compile_cached(source), re.compile(source))
    assert path.read_bytes() == good


def test_an_entry_with_invalid_code_is_not_used() -> None:
    source = r"never (?:commit|push) \S+"
    lazyre.compile_cached(source)
    path = _entry_file(source)
    key, flags, code, groups, groupindex, indexgroup = marshal.loads(path.read_bytes())
    path.write_bytes(marshal.dumps((key, flags, [999] * len(code), groups, groupindex, indexgroup)))
    compiled = lazyre.compile_cached(source)
    assert _same(compiled, re.compile(source)) and compiled.search("never push main")


def test_an_entry_of_another_key_is_not_used() -> None:
    """A file at this pattern's name that holds another pattern (another build, a collision)."""
    source, other = r"always \w+", r"x"
    lazyre.compile_cached(other)
    _entry_file(source).parent.mkdir(parents=True, exist_ok=True)
    _entry_file(source).write_bytes(_entry_file(other).read_bytes())
    compiled = lazyre.compile_cached(source)
    assert compiled.pattern == source and compiled.search("always test")


def test_a_file_holding_anything_but_the_entry_tuple_is_not_used() -> None:
    source = r"forget \w+"
    path = _entry_file(source)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(marshal.dumps(compile("print('never run')", "x", "exec")))
    assert _same(lazyre.compile_cached(source), re.compile(source))


def test_nothing_is_kept_that_differs_from_what_re_compiles(monkeypatch: pytest.MonkeyPatch) -> None:
    """A Python whose `re` builds differently from what omp replays: valid code, another pattern's."""
    real = lazyre._replay
    monkeypatch.setattr(lazyre, "_replay", lambda _source, flags: real("other", flags))
    source = r"keep (?:in mind )?that .+"
    assert _same(lazyre.compile_cached(source), re.compile(source))
    assert not _entry_file(source).exists()


def test_an_unusable_home_still_compiles(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = isolated_home / "not-a-folder"
    blocker.write_text("a file where the home should be")
    monkeypatch.setenv("OMP_HOME", str(blocker))
    assert lazyre.compile_cached(r"from now on (.+)").match("from now on use tabs")


def test_switched_off_it_is_plain_re_compile(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(lazyre, "_cache_state", {"enabled": False, "writes": True})
    lazyre.compile_cached(r"going forward (.+)")
    assert not _entry_file(r"going forward (.+)").exists()


def test_a_second_process_reads_what_the_first_compiled() -> None:
    program = ("import omp.intents as g, omp.lazyre as L\n"
               "import re\n"
               "patterns = [v for v in vars(g).values() if isinstance(v, L.LazyPattern)]\n"
               "for p in patterns: p.compiled\n"
               "print(len(patterns))\n")
    subprocess.run([sys.executable, "-c", program], check=True, capture_output=True)
    folder = Path(lazyre.cache_folder())
    entries = {p.name: p.stat().st_mtime_ns for p in folder.iterdir()}
    count = python_output(program)
    assert len(entries) >= int(count) > 40
    assert {p.name: p.stat().st_mtime_ns for p in folder.iterdir()} == entries  # read, not rewritten


def test_a_run_that_writes_nothing_reads_the_cache_but_adds_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    known, new = r"known (\w+)", r"new (\w+)"
    lazyre.compile_cached(known)
    monkeypatch.setattr(lazyre, "_cache_state", {"enabled": True, "writes": False})
    before = sorted(Path(lazyre.cache_folder()).iterdir())
    assert lazyre.compile_cached(new).match("new one") and lazyre.compile_cached(known).match("known one")
    assert sorted(Path(lazyre.cache_folder()).iterdir()) == before
