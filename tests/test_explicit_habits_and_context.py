"""The explicit pass, third round (issue 35): a habit tied to each unit of the work, a fact the
user asks to keep by pointing back at it, and the other way the context of the work in hand —
a piece of writing, "it is a brief presentation", a date, what the user will do, what happened
each time, the problems pasted after "the following:", the bug at hand.

Each case failed before this change. They are phrasings of the failure kinds found on real
conversations (docs/explicit-requests-and-eval.md), not cases copied from the corpus.
"""

from __future__ import annotations

import pytest

from explicit_support import Msg, rule_texts
from omp.review.explicit import scan


@pytest.mark.parametrize(("message", "rule"), [
    ("run the tests before every commit", "Run the tests before every commit"),
    ("Please update the changelog after each release.", "Update the changelog after each release"),
    ("Tenés que correr los tests antes de cada commit.", "Correr los tests antes de cada commit"),
    ("lint the code after each change", "Lint the code after each change"),
])
def test_an_act_tied_to_each_unit_of_the_work_is_a_habit(message: str, rule: str) -> None:
    assert rule_texts(message) == [rule]


@pytest.mark.parametrize("message", [
    "Add a log line after each request.",  # what the code does on each request: the thing built
    "Suggest another rule for something you might add at the end of each response",  # one answer, now
    "Each time you've spawned a new cli with npm run dev it has bumped the port by 1, so we're now up to 3006",
    "every time I have run the build, it crashed",
])
def test_an_occasion_in_what_is_built_asked_once_or_told_is_no_habit(message: str) -> None:
    assert rule_texts(message) == []


def _scan(previous: str, message: str) -> list[str]:
    messages = [Msg("user", previous, 0), Msg("assistant", "Done.", 1), Msg("user", message, 2)]
    return [p.text for p in scan(messages).proposals]


@pytest.mark.parametrize(("previous", "message"), [
    ("The API base URL is /api/v2", "remember that"),
    ("The API base URL is /api/v2", "please remember that going forward"),
    ("We use yarn, not npm", "keep that in mind from now on"),
])
def test_remember_that_keeps_the_fact_said_before_it(previous: str, message: str) -> None:
    assert _scan(previous, message) == [previous]


@pytest.mark.parametrize(("previous", "message"), [
    ("Why is the build red?", "remember that"),  # a question is no fact
    ("It is due tomorrow", "remember that"),  # this task's date
    ("The API base URL is /api/v2", "do that from now on"),  # an act pointed at, and a fact is none
])
def test_remember_that_after_a_question_a_date_or_do_that_after_a_fact_proposes_nothing(previous: str,
                                                                                     message: str) -> None:
    assert _scan(previous, message) == []


@pytest.mark.parametrize("message", [
    "Never mention that you are an AI in the cover letter.",
    "In the poem, never use the word love.",
    "remember it is a brief presentation, also give some questions they might ask",
    "remember this is only a prototype so keep it simple",
    "Remember that it's due tomorrow.",
    "Remember, the deadline is Friday, so hurry with this feature.",
    "I'll always use the latest version from now on.",
    "From now on I will just test and tell you what breaks.",
    "别着急，请务必用最佳编程实践的原则来修复我们的BUG",
    "Please always fix the bug without touching the tests",
])
def test_the_work_in_hand_its_writing_its_date_its_bug_and_what_the_user_will_do_is_no_rule(message: str) -> None:
    assert rule_texts(message) == []


@pytest.mark.parametrize(("message", "rule"), [
    ("This is the shared prod cluster, never run migrations against it by hand.",
     "This is the shared prod cluster, never run migrations against it by hand"),
    ("Never use print in the tests.", "Never use print in the tests"),  # the project's files are where the user works
    ("Going forward, it should be tested before merge.", "It should be tested before merge"),
])
def test_context_told_beside_a_standing_order_or_about_the_project_keeps_the_order(message: str, rule: str) -> None:
    assert rule_texts(message) == [rule]


def test_a_long_message_whose_first_line_introduces_the_paste_keeps_only_the_introduction() -> None:
    pasted = "别再让AI在旧的沙滩上捡贝壳了。" + "我们来立刻终止它的胡闹，并制定正确的下一步行动。" * 10
    body = "\n\n".join(["### 第一步\n" + "彻底理解新元数据Schema的每一个字段。" * 20] * 4)
    message = f"请继续，在我们继续开发计划之前，我们需要检查是否存在下面的问题：{pasted}\n\n{body}\n\n谢谢"
    assert len(message) > 2000
    assert rule_texts(message) == []
    english = (f"Before we go on, check whether the following holds: never touch the old schema again. "
               f"{'The model is wrong here. ' * 10}\n\n{body}\n\nthanks, and from now on use pnpm")
    assert rule_texts(english) == ["Use pnpm"]


@pytest.mark.parametrize(("message", "rule"), [
    ("请用中文说话", "用中文说话"),
    ("please answer in English", "Answer in English"),
    ("Reply in Spanish please.", "Reply in Spanish"),
    ("每个函数都需要写注释", "每个函数都需要写注释"),
])
def test_the_language_to_talk_in_and_what_each_piece_needs_hold_for_what_follows(message: str, rule: str) -> None:
    assert rule_texts(message) == [rule]


@pytest.mark.parametrize("message", [
    "answer this in English",  # this one answer
    "Write the README in English",  # a piece of work
    "请用中文回答这个问题",  # this question
    "每次运行都失败",  # what happens each time
])
def test_one_answer_in_a_language_or_what_fails_each_time_is_no_rule(message: str) -> None:
    assert rule_texts(message) == []
