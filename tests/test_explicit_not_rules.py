"""What has the words of a standing rule and is not one (issue 35): a line of the spec of the
thing being built ("we always want 4 robots in the simulation"), another model's analysis pasted
(numbered points with bold labels), "forget X" meaning "leave X aside in this task", and the
items of a list that enumerates what this task's thing must cover ("… at least these:")."""

from __future__ import annotations

import pytest

from explicit_support import rule_texts
from omp.intents.messages import requests_in


@pytest.mark.parametrize("message", [
    "we always want to use 4 robots in the simulation",
    "we always need 2 replicas of the worker in staging",
])
def test_a_count_of_the_thing_built_is_a_spec_line(message: str) -> None:
    assert rule_texts(message) == []


@pytest.mark.parametrize("message", [
    "forget the login page, focus on the api",
    "forget about the css and just make it work",
    "ok forget the old endpoint, use the new one",
])
def test_forget_a_thing_and_do_another_is_leave_it_aside(message: str) -> None:
    assert rule_texts(message) == []


def test_forget_a_rule_with_a_reason_stays() -> None:
    assert rule_texts("Forget the yarn rule, we use pnpm now.") == ["The yarn rule"]


@pytest.mark.parametrize("message", [
    "1. **Root cause**: the cache is always stale after a deploy\n2. **Fix**: always invalidate the cache on write\n"
    "3. **Risk**: low",
    "- **Performance**: never block the event loop in handlers\n- **Safety**: always validate the payload",
])
def test_numbered_analysis_with_bold_labels_is_pasted(message: str) -> None:
    assert rule_texts(message) == []


@pytest.mark.parametrize("message", [
    "the report must cover at least these:\n- always list the failing tests\n- never skip the summary",
    "make sure the parser handles at least the following:\n1. always return json\n2. never crash on empty input",
])
def test_a_list_of_what_the_thing_must_cover_is_not_rules(message: str) -> None:
    assert rule_texts(message) == []


def test_a_list_of_the_users_rules_stays() -> None:
    assert rule_texts("our conventions:\n- always use pnpm\n- never commit .env files") == [
        "Always use pnpm", "Never commit .env files"]


def test_we_always_want_a_practice_stays() -> None:
    assert rule_texts("we always want to run the linter before committing") != []


@pytest.mark.parametrize(("message", "expected"), [
    ("forget the yarn rule and use pnpm", "The yarn rule"),
    ("forget what i said about tab width, use spaces", "Tab width"),
    ("Vergiss die Regel mit yarn, nimm pnpm", "Die Regel mit yarn"),
])
def test_forget_a_rule_then_do_another_forgets_the_rule_only(message: str, expected: str) -> None:
    found = [(r.kind, r.text) for r in requests_in(message)]
    assert ("forget", expected) in found, found
