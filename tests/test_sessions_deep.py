"""A line nested deeper than the JSON decoder recurses is a bad line, like any other line that is
not JSON: the session's other messages are read, numbered and reviewed as before, and the review
does not fail (it used to end in a RecursionError, from a corrupt or hand-made session)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from omp.sessions.events import SessionReader, read_message_at
from review_support import (FakeReviewer, conversation, copilot_home, json_reply, pending_lines, review, standard_answer, user,
                            write_session)


def _nested(depth: int) -> str:
    return "[" * depth + "]" * depth


# Where a deep value can sit in a line the reader decodes, and whether the line is a bad one.
PLACES = {
    "an unread field of a user message": (
        lambda deep: {"type": "user.message", "data": {"content": "hello", "extra": deep}}, True),
    "a tool request's arguments": (
        lambda deep: {"type": "assistant.message", "data": {"content": "ok", "toolRequests": [
            {"toolCallId": "c1", "name": "bash", "arguments": {"command": "ls", "deep": deep}}]}}, True),
    "a tool result": (
        lambda deep: {"type": "tool.execution_complete", "data": {
            "toolCallId": "c1", "success": True, "result": {"content": "out", "deep": deep}}}, True),
    "a hook's output (not a message)": (
        lambda deep: {"type": "hook.end", "data": {"output": {"additionalContext": "x", "deep": deep}}}, False),
}


def _line(place: str, depth: int) -> str:
    make, _ = PLACES[place]
    # json.dumps itself recurses: the nested value is written by hand.
    return json.dumps(make("@@")).replace('"@@"', _nested(depth))


@pytest.mark.parametrize("place", sorted(PLACES))
@pytest.mark.parametrize("depth", [990, 20_000])
def test_a_line_nested_too_deep_is_a_bad_line(tmp_path: Path, place: str, depth: int) -> None:
    before = json.dumps({"type": "user.message", "data": {"content": "Remember that we deploy with make release."}})
    after = json.dumps({"type": "user.message", "data": {"content": "thanks"}})
    path = tmp_path / "events.jsonl"
    path.write_text(f"{before}\n{_line(place, depth)}\n{after}\n", encoding="utf-8")
    reader = SessionReader(path)
    read = [(entry, message.text) for entry, message in reader.iter_streamed()]
    assert [text for _, text in read] == ["Remember that we deploy with make release.", "thanks"]
    assert [entry.seq for entry, _ in read] == [0, 1]
    assert reader.bad_lines == (1 if PLACES[place][1] else 0)
    with path.open("rb") as handle:  # the packet's read-back of each message
        assert [read_message_at(handle, entry.offset).text for entry, _ in read] == [text for _, text in read]


def test_a_tool_request_whose_json_string_arguments_nest_too_deep_is_read_as_a_command(tmp_path: Path) -> None:
    arguments = '{"command": "ls", "deep": ' + _nested(20_000) + "}"
    line = {"type": "assistant.message", "data": {"content": "Listing.", "toolRequests": [
        {"toolCallId": "c1", "name": "bash", "arguments": arguments}]}}
    path = tmp_path / "events.jsonl"
    path.write_text(json.dumps(line) + "\n", encoding="utf-8")
    reader = SessionReader(path)
    texts = [message.text for _, message in reader.iter_streamed()]
    assert reader.bad_lines == 0 and len(texts) == 1 and texts[0].startswith("Listing.")


def test_a_review_of_a_session_with_a_line_nested_too_deep_still_runs(project: Path, tmp_path: Path) -> None:
    fake = FakeReviewer(tmp_path / "fake")
    fake.queue(json_reply(standard_answer()))
    events = [*conversation(), user("Remember that we deploy with make release.")]
    session = write_session(project, events)
    events_file = copilot_home() / "session-state" / session / "events.jsonl"
    with events_file.open("a", encoding="utf-8") as handle:
        handle.write(_line("a tool result", 20_000) + "\n")
    out = review(project, fake.env(), "--session", session)
    assert out.returncode == 0, out.stderr
    assert out.json()["ran"] is True
    assert "- [ ] We deploy with make release" in pending_lines(project)
    assert len(fake.calls()) == 1
