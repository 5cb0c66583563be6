"""`G/reviewer.env` applies to every reviewer start (docs/reviewers.md): a typed `omp memory-review`, a
sweep, `omp eval` and `omp doctor --deep` as well as a hook-started review. The reviewer here is
a real process (tests/fake_reviewer.py as `memory-reviewer-command`), and what it records of its
environment is what it saw."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from helpers import run_omp
from review_support import FakeReviewer, conversation, json_reply, omp, review, standard_answer, write_session

EMPTY_ANSWER = {"schema": "omp.review.v1", "directives": [], "notes": [], "skill_drafts": [], "forget": []}


@pytest.fixture
def fake(tmp_path: Path) -> FakeReviewer:
    return FakeReviewer(tmp_path / "fake")


@pytest.fixture
def reviewer_env(isolated_home: Path) -> Path:
    """The user's reviewer.env: a provider setting, one the shell also sets, and lines that try to
    turn the reviewer's own memory back on."""
    path = isolated_home / ".omp" / "reviewer.env"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("# given back to every reviewer\n"
                    "COPILOT_PROVIDER_BASE_URL=http://127.0.0.1:9/v1\n"
                    "export OMP_TEST_SHARED='from reviewer.env'\n"
                    "OMP_MEMORY_MODE=on\nOMP_REVIEWER=0\n")
    path.chmod(0o600)
    return path


def _assert_reviewer_saw_the_file(env: dict[str, str]) -> None:
    assert env["COPILOT_PROVIDER_BASE_URL"] == "http://127.0.0.1:9/v1"
    assert env["OMP_TEST_SHARED"] == "from reviewer.env"  # the file wins over the shell
    assert env["OMP_MEMORY_MODE"] == "off" and env["OMP_REVIEWER"] == "1"  # never turned back on


def test_a_review_typed_in_the_shell_gives_the_reviewer_reviewer_env(
    project: Path, fake: FakeReviewer, reviewer_env: Path
) -> None:
    fake.queue(json_reply(standard_answer()))
    session = write_session(project, conversation())
    result = review(project, {**fake.env("command"), "OMP_TEST_SHARED": "from the shell"}, "--session", session)
    assert result.returncode == 0, result.stderr
    [call] = fake.calls()
    _assert_reviewer_saw_the_file(call.env)


def test_a_sweep_typed_in_the_shell_gives_every_reviewer_reviewer_env(
    project: Path, fake: FakeReviewer, reviewer_env: Path
) -> None:
    fake.default(json_reply(standard_answer()))
    for topic in ("pnpm", "yarn"):
        write_session(project, conversation(topic))
    env = {**fake.env("command"), "OMP_TEST_SHARED": "from the shell"}
    swept = omp(project, env, "memory-review", "--sweep", "--all", "--json")
    assert swept.returncode == 0, swept.stderr
    calls = fake.calls()
    assert len(calls) == 2
    for call in calls:
        _assert_reviewer_saw_the_file(call.env)


def test_omp_eval_gives_its_reviewer_the_users_reviewer_env(
    tmp_path: Path, fake: FakeReviewer, reviewer_env: Path
) -> None:
    """eval runs in a throwaway omp home, where no reviewer.env is: the user's own still applies."""
    fake.default(json_reply(EMPTY_ANSWER))
    corpus = tmp_path / "one.jsonl"
    corpus.write_text(json.dumps({
        "id": "lint-rule", "category": "request", "language": "en",
        "expect": [{"kind": "directive", "contains": "linter"}],
        "messages": [{"role": "user", "content": "From now on, run the linter before committing."},
                     {"role": "assistant", "content": "Done."}, {"role": "user", "content": "thanks, that works"},
                     {"role": "assistant", "content": "Glad to help."}],
    }) + "\n")
    tmpdir = tmp_path / "tmpdir"
    tmpdir.mkdir()
    result = run_omp(["eval", "--json", "--reviewer", "command", "--corpus", str(corpus)], cwd=tmp_path,
                     env={**fake.env("command"), "TMPDIR": str(tmpdir), "OMP_TEST_SHARED": "from the shell"},
                     timeout=120)
    assert result.returncode == 0, result.stderr
    [call] = fake.calls()
    _assert_reviewer_saw_the_file(call.env)


def test_doctor_deep_calls_the_reviewer_as_a_typed_review_does(
    project: Path, fake: FakeReviewer, reviewer_env: Path
) -> None:
    """doctor --deep calls the reviewer as a hook-started review would; a review typed in the
    shell now gets the same settings, so what doctor proves holds for it too."""
    fake.default(json_reply(standard_answer()))
    env = {**fake.env("command"), "OMP_TEST_SHARED": "from the shell"}
    result = omp(project, env, "doctor", "--deep", "--json")
    [check] = [c for c in result.json()["checks"] if c["name"] == "reviewer"]
    assert check["status"] == "ok", check
    session = write_session(project, conversation())
    assert review(project, env, "--session", session).returncode == 0
    by_doctor, by_hand = (call.env for call in fake.calls())
    _assert_reviewer_saw_the_file(by_doctor)
    names = ("COPILOT_PROVIDER_BASE_URL", "OMP_TEST_SHARED", "OMP_MEMORY_MODE", "OMP_REVIEWER")
    assert {n: by_hand.get(n) for n in names} == {n: by_doctor.get(n) for n in names}


def test_without_reviewer_env_the_reviewer_gets_the_shells_environment(project: Path, fake: FakeReviewer) -> None:
    fake.queue(json_reply(standard_answer()))
    session = write_session(project, conversation())
    result = review(project, {**fake.env("command"), "OMP_TEST_SHARED": "from the shell"}, "--session", session)
    assert result.returncode == 0, result.stderr
    [call] = fake.calls()
    assert call.env["OMP_TEST_SHARED"] == "from the shell" and "COPILOT_PROVIDER_BASE_URL" not in call.env
