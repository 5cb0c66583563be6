"""Secrets where they live (docs/secrets-and-poisoning.md, issue 32), end to end: every form of
tests/secret_places_corpus.py, in the place it occurs (a file the agent `cat`s, a user's paste,
the model's echo, an explicit request), goes through the real review with the fake reviewer, which
answers with notes and directives that carry the secrets back. Neither a secret nor any 20-character
prefix of it may reach the prompt the reviewer receives, or any file under the project's `.omp/`
and `.github/`; the look-alikes (SHAs, UUIDs, digests, base64 of images, …) reach the prompt as
they were.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from review_support import FakeReviewer, answer, assistant, json_reply, notes, review, tool, user, write_session
from secret_places_corpus import FORMS, LOOKALIKES, SECRETS, PlacedSecret

BATCHES = 4


@pytest.fixture
def fake(tmp_path: Path) -> FakeReviewer:
    return FakeReviewer(tmp_path / "fake")


def _needles(case: PlacedSecret) -> list[str]:
    """The secret and its first 20 characters: a secret's head is a leak too."""
    return [case.secret] + ([case.secret[:20]] if len(case.secret) > 20 else [])


def _leaks(text: str, cases: list[PlacedSecret] | tuple[PlacedSecret, ...]) -> list[str]:
    return [f"{case.name} ({case.place}): {needle!r}" for case in cases for needle in _needles(case) if needle in text]


def _event(case: PlacedSecret) -> dict:
    if case.place == "cat":
        return tool(case.text)
    if case.place == "echo":
        return assistant(f"Here is what I found:\n{case.text}")
    return user(case.text)  # a paste, or a request to remember


def _answer(cases: list[PlacedSecret], batch: int) -> dict:
    """A careless model: every secret echoed in a note's body or title and in directives, and one
    benign note that must still be written."""
    items = []
    for i in range(0, len(cases), 8):
        group = cases[i:i + 8]
        items.append({"title": f"Deploy setup values {batch}.{i}: {group[0].text[:60]}",
                      "body": "\n".join(case.text for case in group),
                      "evidence": "the deploy setup lives in infra/"})
    items = items[:7]
    items.append({"title": f"Deploy setup lives in infra/ (batch {batch})", "body": "Terraform under infra/.",
                  "evidence": "the deploy setup lives in infra/"})
    directives = [{"text": f"Deploy with {case.text}", "evidence": "the deploy setup lives in infra/"}
                  for case in cases[:5]]
    return answer(notes=items, directives=directives)


def _written(project: Path) -> list[Path]:
    found = []
    for base in (project / ".omp", project / ".github"):
        for folder, _dirs, files in os.walk(base):
            found += [Path(folder) / name for name in files]
    return found


def test_the_corpus_is_as_large_as_promised() -> None:
    assert len(SECRETS) >= 120 and len(FORMS) >= 60
    assert {case.place for case in SECRETS} == {"cat", "paste", "echo", "request"}
    assert len(LOOKALIKES) >= 40


def test_every_secret_place_is_hidden_from_the_prompt_and_every_file(project: Path, fake: FakeReviewer) -> None:
    env = fake.env(memory_review_max_input_tokens="200000")
    batches = [list(SECRETS[i::BATCHES]) for i in range(BATCHES)]
    for number, cases in enumerate(batches):
        events = [user("the deploy setup lives in infra/ and uses terraform"), assistant("ok")]
        for case in cases:
            events.append(_event(case))
        if number == 0:
            events += [tool(f"look-alike {name}:\n{text}") for name, text in LOOKALIKES]
        session = write_session(project, events)
        fake.queue(json_reply(_answer(cases, number)))
        result = review(project, env, "--session", session)
        assert result.returncode == 0, result.stderr
        out = result.json()
        assert out["ran"] is True, out
        leaked = _leaks(result.stdout + result.stderr, cases)
        assert leaked == [], [(n, (result.stdout + result.stderr)[max(0, (result.stdout + result.stderr).find(n.split(": ", 1)[1].strip("\x27")) - 300):][:400]) for n in leaked]

    calls = fake.calls()
    assert len(calls) == BATCHES
    for call, cases in zip(calls, batches):
        assert _leaks(call.stdin, cases) == []
    for name, text in LOOKALIKES:
        for line in text.splitlines():
            assert line in calls[0].stdin, f"look-alike redacted: {name}: {line!r}"
    written = _written(project)
    assert written, "the review wrote nothing"
    for path in written:
        assert _leaks(path.read_text(encoding="utf-8", errors="replace"), SECRETS) == [], path
    titles = "\n".join(note.read_text() for note in notes(project))
    for number in range(BATCHES):
        assert f"Deploy setup lives in infra/ (batch {number})" in titles


@pytest.mark.parametrize("case", SECRETS, ids=[f"{c.name} ({c.place})" for c in SECRETS])
def test_each_place_is_redacted_and_refused(case: PlacedSecret) -> None:
    from omp.memory.neutralise import secret_reason
    from omp.safety.secrets import redact

    assert _leaks(redact(case.text)[0], [case]) == []
    assert secret_reason(case.text) is not None


@pytest.mark.parametrize(("name", "text"), LOOKALIKES, ids=[name for name, _ in LOOKALIKES])
def test_lookalikes_stay_readable(name: str, text: str) -> None:
    from omp.safety.secrets import redact

    assert redact(text)[0] == text


def test_detection_is_the_same_without_detect_secrets() -> None:
    """The new rules are omp's own: detect-secrets missing changes none of these findings."""
    from omp.safety import detect_secrets_adapter, secrets

    detect_secrets_adapter.set_detect_secrets_enabled(False)
    try:
        missed = [f"{case.name} ({case.place})" for case in SECRETS if _leaks(secrets.redact(case.text)[0], [case])]
    finally:
        detect_secrets_adapter.set_detect_secrets_enabled(True)
    assert missed == []
