"""omp.substrings answers exactly what `in` answers, one sweep instead of one per substring."""

from __future__ import annotations

import random

import pytest

from omp.intents.messages import FOREIGN_STEMS, TRIGGER_STEMS, might_ask, stems_in
from omp.substrings import SubstringSet, substring_set

# Texts built from the stems themselves, their pieces and neighbours, so that overlaps, prefixes
# and near misses come up often: "from now on", "nevermore", "alway", "記住", "remembe".
# A lone surrogate too (JSON's "\ud800"): the automaton reads code points, and must search it like any other.
_PIECES = [*TRIGGER_STEMS, *FOREIGN_STEMS, "now on", "alway", "nev", "er", " ", "\n", "x", "é", "記", "ab", "immer ",
           "\ud800", "\udfff"]


def _texts(seed: int, count: int = 400) -> list[str]:
    rng = random.Random(seed)
    texts = ["", " ", "a"]
    for _ in range(count):
        parts = [rng.choice(_PIECES) for _ in range(rng.randint(1, 6))]
        cut = [part[rng.randint(0, len(part)) :] if rng.random() < 0.3 else part for part in parts]
        texts.append("".join(cut))
    return texts


@pytest.mark.parametrize("substrings", [FOREIGN_STEMS, TRIGGER_STEMS, ("ab", "b", "abc", "bc"), ("記住", "住")])
def test_found_in_and_any_in_answer_what_in_answers(substrings: tuple[str, ...]) -> None:
    found = SubstringSet(substrings)
    for text in _texts(seed=len(substrings)):
        expected = tuple(dict.fromkeys(s for s in substrings if s in text))
        assert found.found_in(text) == expected, text
        assert found.any_in(text) is bool(expected), text
        occurrences = [(s, at) for s in substrings for at in range(len(text)) if text.startswith(s, at)]
        assert sorted(found.occurrences(text)) == sorted(occurrences), text


def test_an_empty_set_finds_nothing_and_an_empty_substring_is_refused() -> None:
    assert SubstringSet(()).any_in("anything") is False
    assert SubstringSet(()).found_in("anything") == ()
    with pytest.raises(ValueError, match="empty string"):
        SubstringSet(("a", ""))
    assert substring_set(("ab",)) is substring_set(("ab",))  # built once per tuple


def test_the_grammars_first_look_matches_a_plain_search_of_every_trigger() -> None:
    """might_ask and stems_in, now one sweep each, say what looking for every stem said."""
    for text in _texts(seed=7, count=600):
        lowered = f" {text.lower()} "
        assert might_ask(text) is any(stem in lowered for stem in TRIGGER_STEMS), text
        assert stems_in(text, FOREIGN_STEMS) == tuple(s for s in FOREIGN_STEMS if s in lowered), text
