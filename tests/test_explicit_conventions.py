"""The explicit pass, fourth round (issue 35): a standing request told as the project's way of
working, without a standing word (omp.intents.conventions), a habit the team states ("we should …
each time we make changes"), a standing word followed by "as well", a way of doing things pointed
back at ("use this approach in the future as well"), and "keep in mind" in a later clause after
a remark about the present.

Each proposed case failed before this change; the cases that must stay unproposed are the forms
the new readings must not take for a rule (one thing of the code, the task in hand, a question).
They are phrasings of the failure kinds found on real conversations, not cases copied from the
corpus.
"""

from __future__ import annotations

import pytest

from explicit_support import Msg, rule_texts
from omp.review.explicit import scan


@pytest.mark.parametrize(("message", "rule"), [
    # a kind of work, then how
    ("for commit messages use the conventional commits format",
     "For commit messages use the conventional commits format"),
    ("For tests, use pytest.", "For tests, use pytest"),
    ("for styling use the design tokens, not raw hex values", "For styling use the design tokens, not raw hex values"),
    ("To build, use scripts/build.sh.", "To build, use scripts/build.sh"),
    ("to run the tests use make test", "To run the tests use make test"),
    ("要部署请使用 deploy.sh 脚本", "要部署请使用 deploy.sh 脚本"),
    # a principle to stick to, framed as the speaker's or the team's
    ("also I'd like to stick to plain CSS modules", "I'd like to stick to plain CSS modules"),
    ("we should stick with server-side rendering", "We should stick with server-side rendering"),
    # a kind ruled out
    ("there must be no hardcoded credentials whatsoever", "There must be no hardcoded credentials whatsoever"),
    ("so I don't want any SQL queries in the controllers", "I don't want any SQL queries in the controllers"),
    ("I don't want any network calls in ui_helpers", "I don't want any network calls in ui_helpers"),
])
def test_a_convention_without_a_standing_word_is_proposed(message: str, rule: str) -> None:
    assert rule_texts(message) == [rule]


@pytest.mark.parametrize("message", [
    "For this bug use the debugger.",  # one thing of this task
    "for the next step use the old api",
    "In test_cmd_add_read_only_file use os.path.samefile in the assert",  # one function of the code
    "For example use a dict here.",
    "Stick to the limitations of the sheet and derive a parser from what you see",  # this task's, not framed as a way
    "let's stick to the plan",
    "Should we use pytest for tests?",  # a question
    "There is no error at all",  # what happens
    "I don't want any borders",  # no place in the code
    "I don't want any borders in the table",  # a thing of the product, not a place in the code
    "To fix this, use the debugger.",  # "this": the task in hand
])
def test_one_thing_of_the_task_a_question_or_what_happens_is_no_convention(message: str) -> None:
    assert rule_texts(message) == []


@pytest.mark.parametrize(("message", "rule"), [
    ("I think we should bump the version number each time we make changes",
     "We should bump the version number each time we make changes"),
    ("我们完成每个里程碑之后都需要跑一遍代码检查", "我们完成每个里程碑之后都需要跑一遍代码检查"),
    ("please use pnpm in the future as well.", "Use pnpm"),
    ("The tests are slow right now, but still keep in mind the hexagonal ports-and-adapters architecture",
     "The hexagonal ports-and-adapters architecture"),
])
def test_a_habit_the_team_states_and_a_standing_word_said_late_are_proposed(message: str, rule: str) -> None:
    assert rule_texts(message) == [rule]


@pytest.mark.parametrize("message", [
    "the build breaks each time we make changes",  # what happens
    "每次刷新后都要这样展示",  # points at what was shown: the thing built
])
def test_what_happens_each_time_and_a_pointer_are_no_habit(message: str) -> None:
    assert rule_texts(message) == []


def test_this_approach_is_resolved_to_the_sentence_that_shows_it() -> None:
    message = "I changed get_users to read the column definitions. Please use this approach in the future as well."
    assert rule_texts(message) == [
        "I changed get_users to read the column definitions. Use this approach"]


def test_this_approach_with_nothing_before_it_is_not_proposed_alone() -> None:
    messages = [Msg("user", "Use this approach from now on.", 0)]
    assert [p.text for p in scan(messages).proposals] != ["Use this approach"]


@pytest.mark.parametrize(("message", "rule"), [
    # a prohibition that protects something kept: the user's or the team's, or with its reason
    ("so don't change my eslint config.", "Don't change my eslint config"),
    ("Do not reset the database, we don't want to lose the seed data",
     "Do not reset the database, we don't want to lose the seed data"),
    ("I tuned the retry delays in backoff.py, make sure to not overwrite them.",
     "I tuned the retry delays in backoff.py, make sure to not overwrite them"),
    ("do not come up with solutions that change the public API", "Do not come up with solutions that change the public API"),
    # what "you" must be aware of, in Chinese
    ("你必须认识到我们的端口都是固定的", "我们的端口都是固定的"),
])
def test_a_protected_thing_and_what_to_be_aware_of_are_proposed(message: str, rule: str) -> None:
    assert rule_texts(message) == [rule]


@pytest.mark.parametrize("message", [
    "don't change the test, it's correct",  # this task's test, no reason beyond it
    "don't delete that file",
    "Don't touch the CSS.",
    "Don't change anything else.",
    "do not change the function signature",
    "我知道端口是固定的",  # what the user knows
])
def test_a_one_off_prohibition_is_no_protection(message: str) -> None:
    assert rule_texts(message) == []


@pytest.mark.parametrize(("message", "rule"), [
    # a request to change the agent's own instruction file is a rule to save
    ("yo, edit my CLAUDE.md to never use em dashes in prose", "Never use em dashes in prose"),
    ("please update the rules file so you always run the linter first", "Always run the linter first"),
    # a from-now word before a rule told about the work's files: the work's rule, not a spec
    ("delete the snapshot test and also make sure in future the snapshot tests should never be committed",
     "The snapshot tests should never be committed"),
])
def test_a_change_to_the_instruction_file_and_a_rule_said_for_the_future_are_proposed(message: str, rule: str) -> None:
    assert rule_texts(message) == [rule]


@pytest.mark.parametrize("message", [
    "update the readme to say we use pnpm",  # a file of the project, not the agent's instructions
    "yes add purchase prices. That will be helpful in the future.",  # the from-now word modifies "helpful"
    "the function must always return a list",
])
def test_a_project_file_and_a_trailing_future_are_no_rule(message: str) -> None:
    assert rule_texts(message) == []


@pytest.mark.parametrize(("message", "rule"), [
    # an obligation tied to an act of the work named by its verb ("before pushing")
    ("tenés que correr los tests antes de pushear", "Correr los tests antes de pushear"),
    ("you have to run the linter before committing", "Run the linter before committing"),
])
def test_an_obligation_before_each_act_of_the_work_is_a_habit(message: str, rule: str) -> None:
    assert rule_texts(message) == [rule]


@pytest.mark.parametrize("message", [
    "run the tests before pushing",  # may be this change's step: no obligation told
    "could you run the tests before pushing",  # a favour asked, once
])
def test_a_step_before_pushing_asked_once_is_no_habit(message: str) -> None:
    assert rule_texts(message) == []


@pytest.mark.parametrize(("message", "rule"), [
    # every reply: "in your responses" (a plural), "to every answer", "when I ask for …"
    ("Please don't use emojis in your responses.", "Don't use emojis in your responses"),
    ("Can you stop adding disclaimers to every answer?", "Stop adding disclaimers to every answer"),
    ("When I ask for code, only give me the code without explanations.",
     "When I ask for code, only give me the code without explanations"),
    ("Please keep your responses under 200 words.", "Keep your responses under 200 words"),
    ("Please write your answers in plain text without markdown.", "Write your answers in plain text without markdown"),
    ("Answer me in Spanish please.", "Answer me in Spanish"),
    ("Use tabs, not spaces, in every file you write.", "Use tabs, not spaces, in every file you write"),
    # a preference between two ways
    ("I prefer tabs over spaces.", "I prefer tabs over spaces"),
])
def test_how_every_reply_is_to_be_is_proposed(message: str, rule: str) -> None:
    assert rule_texts(message) == [rule]


@pytest.mark.parametrize("message", [
    "Please don't use emojis in your response.",  # this one reply
    "Add a log line to every request.",  # what the code does on each request
    "When I open the page, the button is missing.",  # what happens
    "When I ask you to fix something you break something else.",  # a complaint
    "Please check your answers to the quiz.",  # one act on them
    "Your answers were wrong.",
    "I prefer if we can just make them squish better.",  # this task's wish
])
def test_one_reply_the_code_or_what_happens_is_no_reply_rule(message: str) -> None:
    assert rule_texts(message) == []


@pytest.mark.parametrize(("message", "rule"), [
    # "from now on" in Italian and Korean (their other phrasings are not read)
    ("d'ora in poi rispondi in italiano", "Rispondi in italiano"),
    ("da ora in poi usa sempre pnpm", "Usa sempre pnpm"),
    ("앞으로 한국어로 대답해 주세요", "한국어로 대답해 주세요"),
    ("이제부터 항상 타입스크립트를 사용해", "항상 타입스크립트를 사용해"),
    # and their always, never and remember
    ("non usare mai jQuery", "Non usare mai jQuery"),
    ("ricordati che usiamo pnpm", "Usiamo pnpm"),
    ("항상 테스트를 먼저 작성하세요", "항상 테스트를 먼저 작성하세요"),
    ("절대 main에 직접 푸시하지 마세요", "절대 main에 직접 푸시하지 마세요"),
])
def test_from_now_on_in_italian_and_korean_is_read(message: str, rule: str) -> None:
    assert rule_texts(message) == [rule]


@pytest.mark.parametrize("message", [
    "non ho mai visto questo errore",  # "I have never seen this error"
    "항상 에러가 발생해요",  # "errors always occur": told, not ordered
    "이 버그는 절대 재현이 안 돼요",
])
def test_what_always_happens_in_italian_and_korean_is_no_rule(message: str) -> None:
    assert rule_texts(message) == []
