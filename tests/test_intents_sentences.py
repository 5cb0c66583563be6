"""Sentence ends are searched from the punctuation (intents._SENTENCE_END): they must be where
the plain pattern, a lookbehind tried at every character, puts them."""

from __future__ import annotations

import random
import re

from omp import intents

# The rule as first written: after . ! ? and whitespace (not inside "e.g." or "v1.2"), or right
# after a CJK sentence end.
PLAIN = re.compile(r"(?<![.\s][a-z]\.)(?<!\be\.g\.)(?<!\bi\.e\.)(?<=[.!?])\s+(?=\S)|(?<=[。！？!?])(?=\S)")


def _ends(text: str) -> list[int]:
    return [match.start() + 1 for match in intents._SENTENCE_END.finditer(text)]


def test_sentence_ends_are_the_plain_patterns() -> None:
    rng = random.Random(3)
    pieces = list("ab eA.!?。！？\t\n ") + ["e.g.", "i.e.", "v1.2", "x.", " .", "..", "!!", "?！", "a. b", "。x"]
    for _ in range(100_000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 14)))
        assert _ends(text) == [match.start() for match in PLAIN.finditer(text)], repr(text)


def test_sentences_split_where_they_end() -> None:
    line = "Use pnpm, e.g. for installs. Always run the tests! 以后都用pnpm。今後は気をつけて？Ok"
    assert list(intents.sentences(line)) == [
        "Use pnpm, e.g. for installs.", "Always run the tests!", "以后都用pnpm。", "今後は気をつけて？", "Ok"]
