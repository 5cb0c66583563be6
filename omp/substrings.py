"""Which of a fixed set of substrings occur in a text, found in one pass.

The review's one pass asks this of every message: does a tool output or an assistant text hold
a word a planted rule starts with (`omp.sessions.streamed.StreamedMessage.may_hold`), does a user
message, line or sentence hold a trigger of the request grammar (`omp.intents.might_ask`). And
secret detection asks where, in each text it redacts, the literals stand that its patterns
cannot match without (`omp.safety.secrets._trigger_hits`).
Asked with `in`, once per word, a question costs one sweep of the text per word: 150 of them
for the grammar's triggers, ≈ 9 µs even on a four-character sentence. An Aho-Corasick automaton
(pyahocorasick, in C) answers in one sweep: 0.3–0.9 µs on a sentence, 8 µs instead of 13 on a
tool output's excerpt (bench/README.md, "What the eleventh landing bought"). It reads a text as
code points, so a lone surrogate (JSON's "\\ud800") is searched like any other character.

The answers are exactly those of `in`: `found_in(text)` is
`tuple(s for s in substrings if s in text)` (tests/test_substrings.py holds the two to each
other on generated texts). Matching is case-sensitive, as `in` is: callers lower the text.
"""

from __future__ import annotations

import functools
from typing import Any, Iterable

import ahocorasick


class SubstringSet:
    """A fixed set of non-empty strings, and the questions asked of a text about them."""

    __slots__ = ("substrings", "_automaton")

    def __init__(self, substrings: Iterable[str]) -> None:
        self.substrings: tuple[str, ...] = tuple(dict.fromkeys(substrings))
        if "" in self.substrings:
            raise ValueError("an empty string is in every text: it cannot be looked for")
        self._automaton: Any = None
        if self.substrings:
            automaton = ahocorasick.Automaton()
            for index, substring in enumerate(self.substrings):
                automaton.add_word(substring, (index, len(substring) - 1))
            automaton.make_automaton()
            self._automaton = automaton

    def any_in(self, text: str) -> bool:
        """`any(s in text for s in substrings)`."""
        # The automaton's matches come as it reaches them: the first one answers.
        return self._automaton is not None and next(self._automaton.iter(text), None) is not None

    def found_in(self, text: str) -> tuple[str, ...]:
        """The substrings that occur in `text`, each once, in the set's order."""
        if self._automaton is None:
            return ()
        # Every match, overlapping ones too: "from now" must not hide "now on" in "from now on".
        hits = {index for _, (index, _) in self._automaton.iter(text)}
        return tuple(self.substrings[index] for index in sorted(hits))

    def occurrences(self, text: str) -> list[tuple[str, int]]:
        """(substring, offset) for every occurrence of every substring, overlapping ones too
        ("pass" and "password" at one offset), each substring's offsets ascending."""
        if self._automaton is None:
            return []
        substrings = self.substrings
        return [(substrings[index], end - back) for end, (index, back) in self._automaton.iter(text)]

    def __repr__(self) -> str:
        return f"SubstringSet({len(self.substrings)} substrings)"


@functools.lru_cache(maxsize=64)
def substring_set(substrings: tuple[str, ...]) -> SubstringSet:
    """The set of these substrings, built once per tuple (the stems a caller passes around)."""
    return SubstringSet(substrings)
