"""The trigger search finds every occurrence of every trigger literal, as one `str.find` sweep per
literal would: the one automaton sweep (omp.substrings) is a speed-up, never a filter."""

from __future__ import annotations

import pytest

import random

from omp.safety import patterns, secrets
from omp.safety.secrets import find_secrets

from regex_phrases import spell
from safety_corpus import CONTROLS, SECRETS


def _reference_hits(lowered: str) -> list[tuple[int, str]]:
    """Every (offset, trigger), overlapping ones too, by trigger then offset; "--" only where an
    option starts (a letter after it, no dash before it), searched on two by two."""
    hits: list[tuple[int, str]] = []
    for trigger in secrets._ALL_TRIGGERS:
        step = 2 if trigger == "--" else 1
        at = lowered.find(trigger)
        while at >= 0:
            if trigger != "--" or (lowered[at + 2 : at + 3].isalpha() and (at == 0 or lowered[at - 1] != "-")):
                hits.append((at, trigger))
            at = lowered.find(trigger, at + step)
    return hits


def _texts() -> list[str]:
    rng = random.Random(5)
    triggers = list(secrets._ALL_TRIGGERS)
    # Pieces that make triggers overlap, nest and touch: a trigger inside another ("pass" in
    # "sshpassword"), one ending where the next begins, rulers of dashes, upper case.
    pieces = [*triggers, "ss", "word", "-", "---", "_", "=", ":", " ", "\n", "é", "ＰＡＳＳ", "x", "live_", "test_",
              "PASSWORD", "Glpat-", "AKIA", "sk_live_sk_live_", "passpass", "keykey", "--us", "a", "gl", "hooks.slack.com"]
    made = ["".join(rng.choice(pieces) for _ in range(rng.randint(1, 60))) for _ in range(600)]
    long = ["".join(rng.choice(pieces) for _ in range(2000)) for _ in range(5)]  # long texts, many hits each
    # Every pair of triggers where the second starts inside the first ("acca" + "akia" is
    # "accakia"): a search that went on after a whole match would miss the second.
    overlapping = [first + second[size:] for first in triggers for second in triggers
                   for size in range(1, min(len(first), len(second)))
                   if first.endswith(second[:size])]
    corpus = [case.text for case in SECRETS] + [text for _, text in CONTROLS]
    return made + long + overlapping + corpus + ["", "-", "--", "--a", "---a", "pass", " " * 600 + "token"]


def test_trigger_hits_are_every_occurrence_of_every_trigger() -> None:
    texts = _texts()
    found = 0
    for text in texts:
        lowered = secrets._lowered(text)
        expected = _reference_hits(lowered)
        assert secrets._trigger_hits(lowered) == expected, text
        found += len(expected)
    # The texts exercise every trigger, many times over.
    seen = {trigger for text in texts for _, trigger in _reference_hits(secrets._lowered(text))}
    assert seen == set(secrets._ALL_TRIGGERS)
    assert found > 10_000


def test_a_secret_after_an_overlapping_trigger_is_still_found() -> None:
    # "sshpass" holds "pass", and "password" holds both: each trigger's own finder must still run.
    text = "sshpass -p 'Xq9!vT2#mL' ssh host; PGPASSWORD=Zr8*uW1@kP psql"
    kinds = {finding.kind for finding in find_secrets(text)}
    assert kinds, find_secrets(text)
    redacted = secrets.redact(text)[0]
    assert "Xq9!vT2#mL" not in redacted and "Zr8*uW1@kP" not in redacted


@pytest.mark.slow  # a sweep over every pattern (docs/test-suite.md, Marks)
def test_every_match_of_every_own_pattern_holds_a_trigger_and_is_found() -> None:
    """omp's own patterns run only where one of their triggers stands, so each match must hold
    one: every match of each pattern, spelled out from the pattern (tests/regex_phrases.py), holds
    one of its triggers and is found by find_secrets in a line of its own."""
    rng = random.Random(1)
    checked, wrong = 0, []
    for pattern in patterns.PATTERNS:
        spelled = spell(pattern.regex.pattern)
        for sample in rng.sample(spelled, min(len(spelled), 300)):
            match = pattern.regex.search(sample)
            if match is None or (pattern.check is not None and not pattern.check(match)):
                continue  # a spelling the pattern's own check refuses
            checked += 1
            if not any(trigger in sample.lower() for trigger in pattern.triggers) or not find_secrets(f"x {sample} y"):
                wrong.append((pattern.kind, sample))
    assert wrong == [] and checked > 300
