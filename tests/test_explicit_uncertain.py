"""Uncertain explicit requests go to the model, certain ones never depend on it (docs/reviewer-answer-schema.md, issue 35).

"use tabs not spaces, always" (the standing word only at the end) or "remember this" after a
message that is not one clear rule: the explicit pass is not sure. The `offline` reviewer
proposes what it can read (a human approves every item anyway); a model reviewer gets each
uncertain candidate with its context in the prompt's data part — after the fixed part, which
stays byte-identical — and decides. "Remember that …" in the user's own sentence is proposed
whatever the model answers.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from explicit_support import Msg
from omp.review.explicit import scan
from omp.review.prompt import FIXED_PART, KnownForPrompt, build_frame
from review_support import FakeReviewer, answer, assistant, json_reply, pending_lines, review, user, write_session


class _Chars:
    name = "chars"

    def count(self, text: str) -> int:
        return len(text) // 4 + 1


CERTAIN = "remember that we deploy with make release"
UNCERTAIN = "use tabs not spaces in the makefiles, always"


@pytest.fixture
def fake(tmp_path: Path) -> FakeReviewer:
    return FakeReviewer(tmp_path / "fake")


def _session(project: Path) -> str:
    return write_session(project, [
        user("the makefile is broken, can you look?"), assistant("Fixed the indentation."),
        user(UNCERTAIN), assistant("OK."),
        user(CERTAIN), assistant("Noted."),
    ])


def test_the_scan_tells_uncertain_candidates_from_certain_ones() -> None:
    found = scan([Msg("user", CERTAIN, 0), Msg("user", UNCERTAIN, 1)])
    assert [p.text for p in found.proposals] == ["We deploy with make release", "Use tabs not spaces in the makefiles, always"]
    assert [(c.sentence, c.text) for c in found.uncertain] == [(UNCERTAIN, "Use tabs not spaces in the makefiles, always")]


def test_an_unresolved_pointer_is_a_candidate_without_text_with_what_it_may_point_at() -> None:
    found = scan([
        Msg("user", "the deploy script is weird. it copies the env file twice and the logs go to /tmp?", 0),
        Msg("assistant", "I removed the second copy and moved the logs to ./logs.", 1),
        Msg("user", "nice, do that from now on", 2),
    ])
    assert found.proposals == []
    assert [(c.sentence, c.text) for c in found.uncertain] == [("nice, do that from now on", "")]
    assert "the logs go to /tmp" in found.uncertain[0].context


def test_candidates_sit_in_the_data_part_after_a_byte_identical_fixed_part() -> None:
    plain = build_frame(KnownForPrompt(), 8000, _Chars())
    found = scan([Msg("user", UNCERTAIN, 3)])
    framed = build_frame(KnownForPrompt(), 8000, _Chars(), candidates=found.uncertain)
    assert plain.head.startswith(FIXED_PART) and framed.head.startswith(FIXED_PART)
    after_fixed = framed.head[len(FIXED_PART):]
    assert '"use tabs not spaces in the makefiles, always"' in after_fixed
    assert UNCERTAIN not in plain.head
    # between its own marker lines, like every data section
    start = after_fixed.index("\n<<<CANDIDATES>>>\n")
    end = after_fixed.index("\n<<<END OF CANDIDATES>>>\n")
    assert start < after_fixed.index(UNCERTAIN) < end


def test_the_model_declines_an_uncertain_candidate_and_the_certain_one_stays(project: Path, fake: FakeReviewer) -> None:
    session = _session(project)
    fake.queue(json_reply(answer()))  # the model proposes nothing
    out = review(project, fake.env(), "--session", session).json()
    assert out["ran"] is True, out
    prompt = fake.calls()[0].stdin
    assert "\n<<<CANDIDATES>>>\n" in prompt and UNCERTAIN in prompt.split("\n<<<CANDIDATES>>>\n", 1)[1]
    assert pending_lines(project) == ["- [ ] We deploy with make release"]
    assert any("not a standing rule" in r["reason"] and r["source"] == "explicit" for r in out["rejected"]), out["rejected"]


def test_the_model_confirms_an_uncertain_candidate_in_the_users_words(project: Path, fake: FakeReviewer) -> None:
    session = _session(project)
    fake.queue(json_reply(answer(directives=[{"text": "Indent makefiles with tabs", "evidence": UNCERTAIN}])))
    out = review(project, fake.env(), "--session", session).json()
    assert out["ran"] is True, out
    assert sorted(pending_lines(project)) == ["- [ ] Use tabs not spaces in the makefiles, always",
                                              "- [ ] We deploy with make release"]


def test_offline_proposes_both(project: Path, fake: FakeReviewer) -> None:
    session = _session(project)
    out = review(project, fake.env("offline"), "--session", session).json()
    assert out["ran"] is True, out
    assert sorted(pending_lines(project)) == ["- [ ] Use tabs not spaces in the makefiles, always",
                                              "- [ ] We deploy with make release"]


def test_only_the_candidates_the_model_was_shown_are_decided_by_it() -> None:
    from omp.review.explicit import decide
    from omp.review.prompt import MAX_CANDIDATES

    found = scan([Msg("user", f"use tabs in makefile number {n}, always", n) for n in range(MAX_CANDIDATES + 2)])
    assert len(found.uncertain) == MAX_CANDIDATES + 2
    kept, declined = decide(found, [])
    assert len(declined) == MAX_CANDIDATES
    assert [p.text for p in kept] == [f"Use tabs in makefile number {n}, always" for n in (MAX_CANDIDATES, MAX_CANDIDATES + 1)]


def test_a_candidates_context_never_carries_a_secret_into_the_prompt() -> None:
    token = "ghp_" + "Q7x" * 12
    found = scan([
        Msg("user", f"the deploy uses my token {token} and the logs go to /tmp, why?", 0),
        Msg("assistant", "I moved the logs to ./logs.", 1),
        Msg("user", "nice, do that from now on", 2),
    ])
    assert found.uncertain and token not in found.uncertain[0].context
    framed = build_frame(KnownForPrompt(), 8000, _Chars(), candidates=found.uncertain)
    assert token not in framed.head and "[REDACTED:" in framed.head
