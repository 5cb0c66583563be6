"""omp.lazyre: patterns compiled on first use, with `re.compile` (docs/performance.md#where-speed-matters)."""

from __future__ import annotations

import dataclasses
import re

from omp import lazyre
from omp.intents import checks, grammar, messages, phrases, pl_ru, spoken, standing, wording
from omp.safety import assignments, detect_secrets_adapter, disguise, injection, patterns, secrets


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
        elif dataclasses.is_dataclass(value) and not isinstance(value, type):
            for item in dataclasses.fields(value):
                collect(getattr(value, item.name))

    for module in (checks, grammar, messages, phrases, pl_ru, spoken, standing, wording, injection, secrets, patterns, assignments,
                   detect_secrets_adapter, disguise):
        for value in vars(module).values():
            collect(value)
    return found


def test_a_pattern_compiles_on_first_use_and_is_what_re_compiles() -> None:
    pattern = lazyre.lazy(r"(?P<word>\w+) again", re.I)
    assert pattern._compiled is None
    assert pattern.search("Once AGAIN").group("word") == "Once"
    assert pattern.compiled == re.compile(r"(?P<word>\w+) again", re.I) and pattern.groupindex == {"word": 1}


def test_every_pattern_of_the_grammar_and_the_safety_checks_compiles() -> None:
    found = _all_patterns()
    assert len(found) > 100
    for pattern in found:
        assert pattern.compiled == re.compile(pattern.pattern, pattern._flags)
