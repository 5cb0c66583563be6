"""The reviewer call: prompt on stdin, a clean environment, timeouts, and failures classified."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from omp.review.answer import answer_complete
from omp.review.reviewers import ReviewerConfig, ReviewerUnavailable, call_reviewer
from review_support import FakeReviewer, json_reply, reply, standard_answer


@pytest.fixture
def fake(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> FakeReviewer:
    reviewer = FakeReviewer(tmp_path / "fake")
    monkeypatch.setenv("FAKE_REVIEWER_DIR", str(reviewer.base))
    return reviewer


def _config(fake: FakeReviewer, project: Path, backend: str = "command", timeout: float = 30) -> ReviewerConfig:
    return ReviewerConfig(backend, "gpt-5-mini", fake.command, timeout, project)


def test_a_500kb_prompt_reaches_the_reviewer_intact_on_stdin(fake: FakeReviewer, project: Path) -> None:
    fake.queue(json_reply(standard_answer()))
    prompt = "".join(f"line {i}: caf\u00e9 {{braces}} \"quotes\" \u2603\n" for i in range(16000))
    assert len(prompt.encode()) > 500_000
    result = call_reviewer(_config(fake, project), prompt, answer_complete)
    assert json.loads(result.text) == standard_answer()
    [call] = fake.calls()
    assert call.stdin == prompt
    assert all(len(arg) < 1000 for arg in call.argv) and "line 1:" not in " ".join(call.argv)


def test_the_reviewer_runs_in_an_empty_temp_folder_with_memory_off(fake: FakeReviewer, project: Path) -> None:
    fake.queue(json_reply(standard_answer()))
    call_reviewer(_config(fake, project), "prompt", answer_complete)
    [call] = fake.calls()
    assert Path(call.cwd).name.startswith("omp-review-")
    assert not Path(call.cwd).exists()  # removed afterwards
    assert not Path(call.cwd).is_relative_to(project)
    assert call.env["OMP_MEMORY_MODE"] == "off" and call.env["OMP_REVIEWER"] == "1"


def test_the_copilot_backend_is_asked_for_a_silent_toolless_answer(
    fake: FakeReviewer, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OMP_COPILOT_BIN", str(fake.copilot_bin))
    fake.queue(json_reply(standard_answer()))
    call_reviewer(_config(fake, project, backend="copilot"), "the prompt", answer_complete)
    [call] = fake.calls()
    assert call.argv[:-2] == ["--model", "gpt-5-mini", "--output-format", "json", "--no-custom-instructions",
                              "--no-auto-update", "--available-tools", "omp-no-tools", "--disable-builtin-mcps"]
    assert call.argv[-2] == "--session-id" and len(call.argv[-1]) == 36
    assert call.stdin == "the prompt"


def _copilot_jsonl(answer: str, premium: float) -> str:
    """What `copilot --output-format json` prints (event shapes as Copilot CLI 1.0.102 writes them)."""
    events = [
        {"type": "assistant.turn_start", "data": {"turnId": "0"}},
        {"type": "assistant.message_delta", "data": {"messageId": "m1", "deltaContent": answer[:10]}, "ephemeral": True},
        {"type": "assistant.message", "data": {"messageId": "m1", "model": "gpt-5-mini", "content": answer,
                                                "toolRequests": []}},
        {"type": "assistant.turn_end", "data": {"turnId": "0"}},
        {"type": "result", "sessionId": "75a2405f-8683-4670-931f-c6a288b48557", "exitCode": 0,
         "usage": {"premiumRequests": premium, "totalApiDurationMs": 68}},
    ]
    return "\n".join(json.dumps(e) for e in events) + "\n"


def test_the_copilot_answer_and_its_premium_requests_come_from_the_json_events(
    fake: FakeReviewer, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OMP_COPILOT_BIN", str(fake.copilot_bin))
    fake.queue(reply(_copilot_jsonl(json.dumps(standard_answer()), 1)))
    result = call_reviewer(_config(fake, project, backend="copilot"), "the prompt", answer_complete)
    assert json.loads(result.text) == standard_answer()
    assert result.premium_requests == 1.0


def test_an_answer_followed_by_a_hang_is_used(fake: FakeReviewer, project: Path) -> None:
    fake.queue(json_reply(standard_answer(), hang=True))
    result = call_reviewer(_config(fake, project, timeout=30), "p", answer_complete, linger=0.2)
    assert json.loads(result.text) == standard_answer()
    assert result.stopped_after_answer and not result.timed_out


def test_an_answer_then_a_hang_past_the_timeout_is_still_used(fake: FakeReviewer, project: Path) -> None:
    fake.queue(json_reply(standard_answer(), hang=True, ignore_term=True))
    result = call_reviewer(_config(fake, project, timeout=1), "p", answer_complete, linger=60, grace=0.2)
    assert json.loads(result.text) == standard_answer()


def test_a_reviewer_that_never_answers_times_out_and_is_killed(fake: FakeReviewer, project: Path) -> None:
    fake.queue(reply("thinking...", sleep=60, ignore_term=True))
    with pytest.raises(ReviewerUnavailable) as caught:
        call_reviewer(_config(fake, project, timeout=1), "p", answer_complete, grace=0.2)
    assert caught.value.kind == "timeout"
    assert "memory-review-timeout" in (caught.value.hint or "")
    pid = int((fake.calls()[0].folder / "pid.txt").read_text())
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)


@pytest.mark.parametrize(
    ("stderr", "kind", "hint"),
    [
        ("Error: No authentication information found.\n", "auth", "copilot login"),
        ("Error: Model \"gpt-9\" is not available for your account\n", "model", "omp config set memory-review-model"),
        ("Error: getaddrinfo ENOTFOUND api.githubcopilot.com\n", "network", "network"),
        ("Segmentation fault\n", "failed", "memory-reviewer offline"),
    ],
)
def test_failures_are_classified_with_the_fix(
    fake: FakeReviewer, project: Path, monkeypatch: pytest.MonkeyPatch, stderr: str, kind: str, hint: str
) -> None:
    monkeypatch.setenv("OMP_COPILOT_BIN", str(fake.copilot_bin))
    fake.queue(reply(stderr=stderr, exit=1))
    with pytest.raises(ReviewerUnavailable) as caught:
        call_reviewer(_config(fake, project, backend="copilot"), "p", answer_complete)
    assert caught.value.kind == kind
    assert hint in (caught.value.hint or "")


def test_a_missing_binary_says_how_to_install(project: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("OMP_COPILOT_BIN", str(tmp_path / "no-such-copilot"))
    config = ReviewerConfig("copilot", "gpt-5-mini", None, 10, project)
    with pytest.raises(ReviewerUnavailable) as caught:
        call_reviewer(config, "p", answer_complete)
    assert caught.value.kind == "missing" and "OMP_COPILOT_BIN" in (caught.value.hint or "")
    monkeypatch.delenv("OMP_COPILOT_BIN")
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(ReviewerUnavailable) as caught:
        call_reviewer(config, "p", answer_complete)
    assert caught.value.kind == "missing"


def test_an_unset_reviewer_command_is_a_retryable_configuration_problem(project: Path) -> None:
    config = ReviewerConfig("command", "m", None, 10, project)
    with pytest.raises(ReviewerUnavailable) as caught:
        call_reviewer(config, "p", answer_complete)
    assert caught.value.kind == "not-configured" and "memory-reviewer-command" in (caught.value.hint or "")
