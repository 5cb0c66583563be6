"""Sentence ends are searched from the punctuation (intents._SENTENCE_END): they must be where
the plain pattern, a lookbehind tried at every character, puts them."""

from __future__ import annotations

import random
import re

from omp.intents import spoken

# The rule as plainly written: after . ! ? and whitespace (not inside "e.g." or "v1.2"), right
# after a CJK sentence end, or after ! ? right before a CJK character; never inside a token
# ("S3cr3t!x9" is one word).
PLAIN = re.compile(r"(?<![.\s][a-z]\.)(?<!\be\.g\.)(?<!\bi\.e\.)(?<=[.!?])\s+(?=\S)|(?<=[。！？])(?=\S)"
                   r"|(?<=[!?])(?=[\u3040-\u30ff\u3400-\u9fff\uf900-\ufaff])")


def _ends(text: str) -> list[int]:
    return [match.start() + 1 for match in spoken._SENTENCE_END.finditer(text)]


def test_sentence_ends_are_the_plain_patterns() -> None:
    rng = random.Random(3)
    pieces = list("ab eA.!?。！？\t\n ") + ["e.g.", "i.e.", "v1.2", "x.", " .", "..", "!!", "?！", "a. b", "。x", "以", "!x", "?后"]
    for _ in range(100_000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 14)))
        assert _ends(text) == [match.start() for match in PLAIN.finditer(text)], repr(text)


def test_sentences_split_where_they_end() -> None:
    line = "Use pnpm, e.g. for installs. Always run the tests! 以后都用pnpm。今後は気をつけて？Ok"
    assert list(spoken.sentences(line)) == [
        "Use pnpm, e.g. for installs.", "Always run the tests!", "以后都用pnpm。", "今後は気をつけて？", "Ok"]


def test_a_sentence_never_ends_inside_a_token() -> None:
    """A URL's password, a token, a path: a run without whitespace is one word, whatever signs
    it holds (issue 32: "postgres://app:S3cr3t" was queued, cut at the "!")."""
    line = "From now on connect with postgres://app:S3cr3t!x9@db:5432/app. Use pnpm! 记住这个!以后都用pnpm。Why?Ok"
    assert list(spoken.sentences(line)) == [
        "From now on connect with postgres://app:S3cr3t!x9@db:5432/app.", "Use pnpm!", "记住这个!", "以后都用pnpm。",
        "Why?Ok"]
