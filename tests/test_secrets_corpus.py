"""No secret reaches a prompt or a file (docs/secrets-and-poisoning.md), tried the way an attacker would.

Every class of the corpus (tests/safety_corpus.py) is placed in user text, tool output, a tool
request (behind a long prefix, so the summary's cut falls inside it) and the assistant's answer;
the fake reviewer then proposes notes and directives that carry the same secrets back. Nothing
of any secret may reach the reviewer's stdin, or any file omp writes (project, OMP_HOME, the
personal instructions file, the logs); the controls must reach the reviewer untouched.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Iterator

import pytest

from review_support import FakeReviewer, answer, assistant, json_reply, notes, omp, review, tool, user, write_session
from safety_corpus import CONTROLS, SECRETS, SecretCase

CHUNK = 7  # notes per review are capped at 8: seven carry a secret, one is benign


@pytest.fixture
def fake(tmp_path: Path) -> FakeReviewer:
    return FakeReviewer(tmp_path / "fake")


def _written_files(project: Path, home: Path) -> Iterator[Path]:
    """Every file omp may have written: the project, OMP_HOME, and Copilot's home except the
    session logs (Copilot's own record of what was typed)."""
    for base in (project, home):
        for folder, dirs, files in os.walk(base):
            dirs[:] = [d for d in dirs if d not in (".git", "session-state")]
            for name in files:
                yield Path(folder) / name


def _leaks(text: str, cases: tuple[SecretCase, ...] | list[SecretCase]) -> list[str]:
    return [f"{case.name}: {needle!r}" for case in cases for needle in case.needles if needle in text]


def _cut_inside(case: SecretCase) -> str:
    """`echo ….. TEXT`, padded so that a cut at 199 characters falls in the middle of the secret."""
    needle = case.needles[0]
    at = case.text.index(needle) + len(needle) // 2
    padding = max(1, 199 - at - len("echo  "))
    return f"echo {'.' * padding} {case.text}"


def _fragments(cases: list[SecretCase] | tuple[SecretCase, ...], size: int = 10) -> list[tuple[str, str]]:
    """Every `size`-character piece of every needle: half a secret is a leak too."""
    return [(case.name, needle[i:i + size]) for case in cases for needle in case.needles
            for i in range(0, max(1, len(needle) - size + 1))]


def _session_for(cases: list[SecretCase], offset: int) -> list[dict]:
    events: list[dict] = []
    for i, case in enumerate(cases, start=offset):
        events += [
            user(f"fact {i} about the deploy setup: {case.text}"),
            # A long command: the summary cuts it at 200 characters, in the middle of the secret.
            assistant(f"I will use it for fact {i}: {case.text}", command=_cut_inside(case)),
            tool(f"output {i}: {case.text}"),
        ]
    return events


def _echoing_answer(cases: list[SecretCase], offset: int) -> dict:
    """What a careless model sends back: every secret in a note or a directive, and one benign note."""
    note_items = []
    for i, case in enumerate(cases, start=offset):
        in_title = i % 2 and len(case.text) < 90  # the title is capped at 120 characters
        title = f"Deploy setup fact {i}: {case.text}" if in_title else f"Deploy setup fact {i}"
        body = "See above." if in_title else f"Use {case.text}"
        note_items.append({"title": title, "body": body, "evidence": f"fact {i} about the deploy setup"})
    note_items.append({"title": f"Deploy setup lives in infra/ (batch {offset})",
                       "body": "Terraform under infra/.", "evidence": f"fact {offset} about the deploy setup"})
    directives = [{"text": f"Deploy setup: {case.text}", "evidence": f"fact {i} about the deploy setup"}
                  for i, case in enumerate(cases[:5], start=offset)]
    return answer(notes=note_items, directives=directives)


@pytest.mark.slow
def test_no_secret_of_any_class_reaches_the_reviewer_or_a_file(project: Path, fake: FakeReviewer,
                                                               isolated_home: Path) -> None:
    env = fake.env(memory_review_max_input_tokens="100000")
    # Near-equal contiguous chunks of at most CHUNK: a chunk of one case would be a session too
    # short to review (memory-review-min-messages).
    count = -(-len(SECRETS) // CHUNK)
    bounds = [len(SECRETS) * i // count for i in range(count + 1)]
    chunks = [list(SECRETS[bounds[i]:bounds[i + 1]]) for i in range(count)]
    offsets = [bounds[i] + 1 for i in range(count)]
    outputs = []
    for number, cases in enumerate(chunks):
        offset = offsets[number]
        events = _session_for(cases, offset)
        if number == 0:
            events += [user(f"control number {i} reads {text}") for i, (_name, text) in enumerate(CONTROLS)]
        session = write_session(project, events)
        fake.queue(json_reply(_echoing_answer(cases, offset)))
        result = review(project, env, "--session", session)
        assert result.returncode == 0, result.stderr
        outputs.append(result.stdout + result.stderr)
        out = result.json()
        assert out["ran"] is True, out
        # Every echoed secret was refused, saying it is a secret (and which kind), never showing it.
        # (A directive quoting a fact whose line is code, `if ("…" == db_password) {`, is refused
        # before that: a line of code in a user message is pasted, not the user's words.)
        secret_refusals = [r for r in out["rejected"] if "contains a secret" in r["reason"]
                           or r["kind"] == "directive" and "not the user's own words" in r["reason"]]
        assert len(secret_refusals) == len(cases) + min(5, len(cases)), out["rejected"]

    calls = fake.calls()
    assert len(calls) == len(chunks)
    for number, call in enumerate(calls):
        stdin = call.stdin
        cases = chunks[number]
        assert _leaks(stdin, cases) == []
        assert [f for f in _fragments(cases) if f[1] in stdin] == []
        for i, _case in enumerate(cases, start=offsets[number]):
            for start in (f"fact {i} about the deploy setup: ", f"output {i}: "):  # kept, and redacted
                assert "[REDACTED:" in stdin[stdin.index(start):].split("\n[", 1)[0], start
    for name, text in CONTROLS:
        assert text in calls[0].stdin, f"control redacted: {name}"

    # Nothing of any secret in anything omp wrote, printed or logged.
    assert _leaks("\n".join(outputs), SECRETS) == []
    for path in _written_files(project, isolated_home):
        assert _leaks(path.read_text(encoding="utf-8", errors="replace"), SECRETS) == [], path
    # ... while the benign notes of every batch were written.
    titles = "\n".join(note.read_text() for note in notes(project))
    for offset in offsets:
        assert f"Deploy setup lives in infra/ (batch {offset})" in titles


def test_a_remembered_password_never_reaches_the_instruction_file(project: Path, fake: FakeReviewer,
                                                                  isolated_home: Path) -> None:
    """The issue's case: offline reviewer, explicit request, promote --all."""
    session = write_session(project, [
        user("remember that the staging DB is reached with PGPASSWORD=Stg9-heron-Vale psql -h staging-db"),
        assistant("Noted."),
        user("remember that we deploy with make deploy from the main branch"),
        assistant("Noted too."),
    ])
    env = fake.env(backend="offline")
    out = review(project, env, "--session", session).json()
    assert out["ran"] is True
    assert any("contains a secret (password-assignment)" in r["reason"] for r in out["rejected"])
    promoted = omp(project, env, "project-memory", "promote-directive", "--all")
    assert promoted.returncode == 0, promoted.stderr
    instructions = (project / ".github" / "copilot-instructions.md").read_text()
    assert "make deploy" in instructions  # the benign request went through
    assert "Stg9-heron-Vale" not in instructions and "PGPASSWORD" not in instructions
    for path in _written_files(project, isolated_home):
        assert "Stg9-heron-Vale" not in path.read_text(encoding="utf-8", errors="replace"), path


@pytest.mark.parametrize("joiner", ["<!---->", "\x00", "\u200b", "<!--", "\x1b"])
def test_neutralising_cannot_rebuild_a_token(project: Path, fake: FakeReviewer, isolated_home: Path,
                                             joiner: str) -> None:
    """A token split by something neutralising removes is judged as it would be stored."""
    token = "ghp_Wd3Kq8Zx1Lm6Vn9Bc4Fg7Hj2Ts5Ry0PeAuIo"
    split = token[:14] + joiner + token[14:]
    session = write_session(project, [
        user("the CI setup uses the deploy bot credentials from the vault"),
        assistant("ok"), user("and the CI setup runs nightly"), assistant("fine"),
    ])
    fake.queue(json_reply(answer(
        notes=[{"title": f"CI setup token {split}", "body": "nightly", "evidence": "the CI setup runs nightly"},
               {"title": "CI setup runs nightly", "body": "From the vault.", "evidence": "the CI setup runs nightly"}],
        directives=[{"text": f"Use deploy bot credentials {split}", "evidence": "uses the deploy bot credentials"}],
    )))
    out = review(project, fake.env(), "--session", session).json()
    assert out["ran"] is True
    reasons = {r["item"]: r["reason"] for r in out["rejected"]}
    assert "contains a secret" in reasons["notes[0]"] and "contains a secret" in reasons["directives[0]"]
    assert [n.name for n in notes(project)] == ["ci-setup-runs-nightly.md"]
    for path in _written_files(project, isolated_home):
        assert token[4:20] not in path.read_text(encoding="utf-8", errors="replace"), path


def test_crash_logs_redact_the_command_line_and_the_traceback(monkeypatch: pytest.MonkeyPatch) -> None:
    from omp.program import crash_report as _crash_report

    monkeypatch.setattr(sys, "argv", ["omp", "-p", "connect with PGPASSWORD=Cr4sh-otter-Bay", "--password", "Cr4shPw9"])
    try:
        raise RuntimeError("token ghp_Cr4shTq8Zx1Lm6Vn9Bc4Fg7Hj2Ts5Ry0PeAuIo leaked in a message")
    except RuntimeError as exc:
        report = _crash_report(exc)
    assert "Traceback" in report and "RuntimeError" in report and "--password" in report
    assert "Cr4sh-otter-Bay" not in report and "Cr4shPw9" not in report and "Cr4shTq8Zx1" not in report


@pytest.mark.parametrize("case", SECRETS, ids=lambda c: c.name)
def test_each_class_is_redacted_and_refused_on_its_own(case: SecretCase) -> None:
    from omp.memory.neutralise import secret_reason
    from omp.safety.secrets import redact

    redacted, counts = redact(case.text)
    assert sum(counts.values()) >= 1 and _leaks(redacted, [case]) == []
    assert secret_reason(case.text) is not None
    # ... and in the forms it would be stored in: one line (a directive, a title: a line break
    # becomes "; ") and a note's body. A continued shell line once leaked that way.
    from omp.memory.neutralise import neutralise_body, neutralise_line

    for stored in (neutralise_line(f"Deploy setup: {case.text}"), neutralise_body(f"Use {case.text}")):
        assert _leaks(redact(stored)[0], [case]) == [], stored


@pytest.mark.parametrize(("name", "text"), CONTROLS, ids=[name for name, _ in CONTROLS])
def test_controls_are_never_redacted(name: str, text: str) -> None:
    from omp.safety.secrets import redact

    assert redact(text)[0] == text


def test_the_bench_figures_are_perfect() -> None:
    """bench/bench_safety.py prints the figures the README quotes; they must stay true."""
    import subprocess

    bench = Path(__file__).resolve().parent.parent / "bench" / "bench_safety.py"
    proc = subprocess.run([sys.executable, str(bench), "--json"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    import json

    figures = json.loads(proc.stdout)
    assert figures["secrets_caught"] == figures["secrets_total"] == len(SECRETS)
    assert figures["planted_refused"] == figures["planted_total"]
    assert figures["false_positives"] == 0
