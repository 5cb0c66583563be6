"""Which of a fixed set of substrings occur in a text, found in one pass.

The review's one pass asks this of every message: does a tool output or an assistant text hold
a word a planted rule starts with (`omp.sessions.events.StreamedMessage.may_hold`), does a user
message, line or sentence hold a trigger of the request grammar (`omp.intents.might_ask`). And
secret detection asks where, in each text it redacts, the literals stand that its patterns
cannot match without (`omp.safety.secrets._trigger_hits`).
Asked with `in`, once per word, a question costs one sweep of the text per word: 150 of them
for the grammar's triggers, ≈ 9 µs even on a four-character sentence. An Aho-Corasick automaton
(ahocorasick_rs, the Rust `aho-corasick` crate's SIMD searcher) answers in one sweep: 0.3–0.7 µs
on a sentence, 5 µs instead of 13 on a tool output's excerpt (bench/README.md, "What the
eleventh landing cost").

The answers are exactly those of `in`: `found_in(text)` is
`tuple(s for s in substrings if s in text)` (tests/test_substrings.py holds the two to each
other on generated texts). Matching is case-sensitive, as `in` is: callers lower the text.
"""

from __future__ import annotations

import functools
from typing import Iterable

from ahocorasick_rs import AhoCorasick


class SubstringSet:
    """A fixed set of non-empty strings, and the questions asked of a text about them."""

    __slots__ = ("substrings", "_automaton")

    def __init__(self, substrings: Iterable[str]) -> None:
        self.substrings: tuple[str, ...] = tuple(dict.fromkeys(substrings))
        if "" in self.substrings:
            raise ValueError("an empty string is in every text: it cannot be looked for")
        self._automaton = AhoCorasick(list(self.substrings)) if self.substrings else None

    def any_in(self, text: str) -> bool:
        """`any(s in text for s in substrings)`."""
        # Non-overlapping matches are enough: when any substring occurs, the one that ends
        # first is reported.
        if self._automaton is None:
            return False
        try:
            return bool(self._automaton.find_matches_as_indexes(text))
        except UnicodeEncodeError:  # a lone surrogate: see `_by_find`
            return any(substring in text for substring in self.substrings)

    def found_in(self, text: str) -> tuple[str, ...]:
        """The substrings that occur in `text`, each once, in the set's order."""
        if self._automaton is None:
            return ()
        # Overlapping matches: "from now" must not hide "now on" in "from now on".
        hits = {index for index, _ in self._matches(text)}
        return tuple(self.substrings[index] for index in sorted(hits))

    def occurrences(self, text: str) -> list[tuple[str, int]]:
        """(substring, offset) for every occurrence of every substring, overlapping ones too
        ("pass" and "password" at one offset), each substring's offsets ascending."""
        if self._automaton is None:
            return []
        substrings = self.substrings
        return [(substrings[index], start) for index, start in self._matches(text)]

    def _matches(self, text: str) -> list[tuple[int, int]]:
        """(index of the substring, offset) of every occurrence, overlapping ones too."""
        assert self._automaton is not None
        try:
            return [(index, start) for index, start, _ in self._automaton.find_matches_as_indexes(text, overlapping=True)]
        except UnicodeEncodeError:
            return self._by_find(text)

    def _by_find(self, text: str) -> list[tuple[int, int]]:
        """The occurrences found with `str.find`, for a text the automaton cannot take: it reads
        UTF-8, and a lone surrogate has none (JSON's "\\ud800" puts one in a decoded session
        line, and a review must read such a session as it reads any other)."""
        found = []
        for index, substring in enumerate(self.substrings):
            at = text.find(substring)
            while at >= 0:
                found.append((index, at))
                at = text.find(substring, at + 1)
        return found

    def __repr__(self) -> str:
        return f"SubstringSet({len(self.substrings)} substrings)"


@functools.lru_cache(maxsize=64)
def substring_set(substrings: tuple[str, ...]) -> SubstringSet:
    """The set of these substrings, built once per tuple (the stems a caller passes around)."""
    return SubstringSet(substrings)
