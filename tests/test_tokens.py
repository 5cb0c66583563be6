"""A tokenizer that cannot be loaded is remembered, not retried on every review (docs/performance.md#where-speed-matters).

Offline, `tiktoken.get_encoding` fails after trying the network; a review must not pay that (the
import, the attempt, ~10 MiB) each time. A stand-in `tiktoken` module counts the attempts.
"""

from __future__ import annotations

import json
import sys
import time
import types
from pathlib import Path
from typing import Iterator

import pytest

from omp import tokens


class _Offline(types.ModuleType):
    def __init__(self) -> None:
        super().__init__("tiktoken")
        self.attempts = 0

    def get_encoding(self, name: str) -> object:
        self.attempts += 1
        raise ConnectionError(f"cannot download {name}: no network")


@pytest.fixture
def offline(monkeypatch: pytest.MonkeyPatch) -> Iterator[_Offline]:
    fake = _Offline()
    monkeypatch.setitem(sys.modules, "tiktoken", fake)
    monkeypatch.delenv("OMP_TOKENIZER", raising=False)
    tokens.reset_counter_cache()
    yield fake
    tokens.reset_counter_cache()


def _review_once() -> str:
    """What each review process does: a fresh cache, then one counter."""
    tokens.reset_counter_cache()
    return tokens.get_counter().name


def test_a_failed_load_is_tried_once_then_remembered(offline: _Offline, isolated_home: Path) -> None:
    assert _review_once() == "estimate"
    assert offline.attempts == 1
    note = tokens.unavailable_note()
    assert note.is_file() and "no network" in json.loads(note.read_text())["error"]
    for _ in range(5):
        assert _review_once() == "estimate"
    assert offline.attempts == 1  # five more reviews, no more attempts


def test_doctor_retries_and_an_old_note_expires(offline: _Offline, isolated_home: Path) -> None:
    _review_once()
    tokens.reset_counter_cache()
    assert tokens.get_counter(retry=True).name == "estimate"  # what omp doctor does
    assert offline.attempts == 2
    note = tokens.unavailable_note()
    data = json.loads(note.read_text())
    note.write_text(json.dumps({**data, "at": time.time() - tokens.RETRY_AFTER_SECONDS - 1}))
    _review_once()
    assert offline.attempts == 3  # a day later it tries again


def test_a_load_that_works_clears_the_note(offline: _Offline, isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _review_once()
    encoding = types.SimpleNamespace(name="o200k_base", encode_ordinary=lambda text: text.split())
    monkeypatch.setattr(offline, "get_encoding", lambda name: encoding)
    tokens.reset_counter_cache()
    counter = tokens.get_counter(retry=True)
    assert counter.name == "tiktoken" and counter.count("a b c") == 3
    assert not tokens.unavailable_note().exists()
