"""Lines nobody reads are passed over in runs (LineSource's `skip`): the same lines, counts and cursor."""

from __future__ import annotations

import io
import json
import random
import re
from pathlib import Path

import pytest

from omp.packet import SessionIndexer
from omp.review.explicit import scan
from omp.sessions import events
from omp.sessions.events import SessionReader
from omp.sessions.injected import MAX_REMEMBERED_CONTEXTS
from omp.sessions.lines import LineSource

from test_sessions_streamed import adversarial_session

# Two ways a line is skipped: by its start, and by its start unless it holds a word.
SKIP = re.compile(rb'\{"type":"hook\.start"|\{"type":"turn"(?![^\n]*keep)')


def _random_file(rng: random.Random) -> bytes:
    pieces = [b'{"type":"hook.start","x":1}', b'{"type":"turn","big":"' + b"y" * 700 + b'"}', b'{"type":"user"}',
              b'{"type":"hook.st', b'{"type":"turn"', b'{"type":"turns"}', b"", b"   ", b'{"type":"hook.start"',
              b'{"type":"turn","a":"' + b"y" * 300 + b'keep"}', b'{"type":"turn","keep":1}', b'{"type":"turn","kee']
    lines = [rng.choice(pieces) for _ in range(rng.randint(0, 60))]
    data = b"\n".join(lines)
    if rng.random() < 0.7:
        data += b"\n"
    elif rng.random() < 0.5:
        data += rng.choice(pieces)[: rng.randint(0, 20)]  # a torn last line, maybe of a skipped type
    return data


def _read(data: bytes, block: int, skip: re.Pattern[bytes] | None, offset: int = 0
          ) -> tuple[list[tuple[int, bytes]], LineSource]:
    source = LineSource(io.BufferedReader(io.BytesIO(data)), offset, block, skip=skip)  # type: ignore[arg-type]
    seen = []
    for at, buf, start, stop, length in source:
        line = bytes(buf[start:stop]) if stop - start == length else source.read_line(at, length)
        seen.append((at, line))
    return seen, source


@pytest.mark.parametrize("seed", range(300))
def test_a_run_of_skipped_lines_is_what_reading_each_would_count(seed: int) -> None:
    rng = random.Random(seed)
    data = _random_file(rng)
    block = rng.choice([256, 300, 512, 1024, 1 << 20])
    offset = rng.choice([0, 0, data.find(b"\n") + 1 if b"\n" in data else 0])
    every, plain = _read(data, block, None, offset)
    kept, passing = _read(data, block, SKIP, offset)
    passed = [line for line in every if line not in kept]
    assert all(SKIP.match(line) for _, line in passed)  # only skipped lines are missing,
    assert [line for line in every if line in kept] == kept  # in order, and nothing else changes
    assert passing.skipped == len(passed)
    assert (passing.end, passing.partial) == (plain.end, plain.partial)


def test_a_skipped_line_longer_than_a_block_is_yielded() -> None:
    data = b'{"type":"turn","big":"' + b"y" * 5000 + b'"}\n{"type":"user"}\n'
    kept, source = _read(data, 256, SKIP)
    assert [line[:14] for _, line in kept] == [b'{"type":"turn"', b'{"type":"user"'] and source.skipped == 0


def test_the_reader_counts_and_yields_what_it_did_line_by_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = adversarial_session(tmp_path / "events.jsonl", turns=60, seed=9)
    with path.open("a", encoding="utf-8") as out:  # the record types Copilot writes around a turn
        for kind in ("hook.start", "assistant.turn_start", "session.usage_record", "tool.execution_start",
                     "assistant.turn_end", "session.shutdown", "hook.end"):
            out.write(json.dumps({"type": kind, "data": {"x": 1}}) + "\n")
            out.write(json.dumps({"type": kind, "data": {"x": 1}}, separators=(",", ":")) + "\n")
        # What a hook injected (read from its hook.end) is not the user's: the message is dropped.
        injected = "Context a hook added for this session: the build uses Bazel, always."
        hook_end = {"type": "hook.end", "data": {"output": {"additionalContext": injected}}}
        out.write(json.dumps(hook_end, separators=(",", ":")) + "\n")  # as Copilot writes it
        out.write(json.dumps({"type": "user.message", "data": {"content": injected}}) + "\n")
        out.write('{"type":"hook.start","data":')  # torn
    fast = SessionReader(path)
    fast_messages = [(entry, message.text) for entry, message in fast.iter_streamed()]
    monkeypatch.setattr(events, "_PASSED_OVER", None)
    slow = SessionReader(path)
    slow_messages = [(entry, message.text) for entry, message in slow.iter_streamed()]
    assert fast_messages == slow_messages
    counters = ("messages", "bad_lines", "skipped_events", "end_offset", "partial_tail")
    assert [getattr(fast, name) for name in counters] == [getattr(slow, name) for name in counters]
    assert fast.partial_tail and fast.skipped_events > 14 and len(fast.injected) == 1


def test_the_passed_over_types_carry_no_conversation() -> None:
    for kind in events._PASSED_OVER_TYPES:
        assert kind not in events._CONVERSATION_TYPES and kind != b"hook.end"
    assert events._PASSED_OVER is not None
    assert events._PASSED_OVER.match(b'{"type":"hook.end","data":{"hookType":"x","success":true}}')
    assert not events._PASSED_OVER.match(b'{"type":"hook.end","data":{"output":{"additionalContext":"x"}}}')
    assert not events._PASSED_OVER.match(b'{"type":"user.message","data":{"content":"hi"}}')


def test_the_explicit_pass_is_the_same_with_lines_read_one_by_one(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    path = adversarial_session(tmp_path / "events.jsonl", turns=60, seed=4)
    fast = scan(SessionIndexer(SessionReader(path)).messages())
    monkeypatch.setattr(events, "_PASSED_OVER", None)
    assert scan(SessionIndexer(SessionReader(path)).messages()) == fast


def test_a_hook_injecting_on_every_prompt_keeps_the_check_bounded(tmp_path: Path) -> None:
    """A hook that injects a new context before every prompt (a timestamp, a ticket number): each
    user message is compared with the most recent distinct contexts only, so reading stays linear
    in the session; what was injected just before a message is still recognised as the hook's."""
    path = tmp_path / "events.jsonl"
    with path.open("w", encoding="utf-8") as out:
        for number in range(500):
            injected = f"Context a hook added before prompt {number}: the ticket is OPS-{number}, keep it in mind."
            out.write(json.dumps({"type": "hook.end", "data": {"output": {"additionalContext": injected}}},
                                 separators=(",", ":")) + "\n")
            out.write(json.dumps({"type": "hook.end", "data": {"output": {"additionalContext": "same every time, "
                                                                          "a context repeated by a hook"}}}) + "\n")
            text = injected if number % 2 else f"Please fix the failing test number {number} in the parser."
            out.write(json.dumps({"type": "user.message", "data": {"content": text}}) + "\n")
    reader = SessionReader(path)
    kept = [message.text for _entry, message in reader.iter_streamed()]
    assert len(reader.injected) == MAX_REMEMBERED_CONTEXTS
    assert kept == [f"Please fix the failing test number {n} in the parser." for n in range(0, 500, 2)]
