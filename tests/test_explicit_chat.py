"""The explicit pass on what chat users type (issue 35, docs/reviewer-answer-schema.md): how every reply should be,
traditional Chinese, the standing word twice in Polish and Russian; and, the other way, an
embedded question, a text to translate or rewrite, a compound word, a spec in the present tense,
the task's context, an earlier thing of this chat put aside.

Sentences written in the style of real developer chats (ShareGPT-like and editor histories); each
failed before this change.
"""

from __future__ import annotations

import pytest

from explicit_support import rule_texts


# ---------------------------------------------------------------------------------------------
# standing requests that were missed

@pytest.mark.parametrize(("message", "rule"), [
    # how every reply should be: the most common standing request of chat users
    ("In all future responses, give me complete code, not snippets.", "Give me complete code, not snippets"),
    ("For all future answers, include the file path at the top of each code block.",
     "Include the file path at the top of each code block"),
    ("in every response you give, cite the docs you used", "Cite the docs you used"),
    ("Your answers should always be concise and to the point.", "Your answers should always be concise and to the point"),
    ("Every response should include the full file, not a diff.", "Every response should include the full file, not a diff"),
    ("I want all your answers to be in markdown tables", "I want all your answers to be in markdown tables"),
    # what every piece of work the assistant writes must be
    ("Any code you write must have type hints.", "Any code you write must have type hints"),
    ("every test you add should use pytest fixtures", "Every test you add should use pytest fixtures"),
    # the standing word at the end, without "on"
    ("Please respond in English from now.", "Respond in English from now"),
    # traditional Chinese (Taiwan, Hong Kong): the same words in other characters
    ("請以後都用繁體中文回答", "都用繁體中文回答"),
    ("記住，我們用pnpm", "我們用pnpm"),
    ("永遠不要刪除資料", "永遠不要刪除資料"),
    ("從現在開始，請用英文寫註解", "用英文寫註解"),
    # every time …, do it so
    ("每次回答都用中文", "每次回答都用中文"),
    # the standing word twice: "from now on always …"
    ("Od teraz zawsze pisz testy w pytest", "Zawsze pisz testy w pytest"),
    ("С этого момента всегда отвечай по-русски", "Всегда отвечай по-русски"),
])
def test_a_standing_request_as_chat_users_type_it_is_found(message: str, rule: str) -> None:
    assert rule_texts(message) == [rule]


# ---------------------------------------------------------------------------------------------
# what reads like a rule and is none

# Guards: what the new readings above must not take (these held before; they keep the new
# readings from reaching too far).
@pytest.mark.parametrize("message", [
    # one reply, not every one
    "Your answer should be shorter.",
    "I want your answer in json",
    "The responses should be cached for 5 minutes",
    # what happens, not an act
    "每次运行都失败",
    "od teraz zawsze będzie działać",
    "The deadline is two weeks from now.",
    "The code you write is too long.",
    "all the code you wrote should be deleted",
])
def test_what_only_resembles_those_requests_is_no_rule(message: str) -> None:
    assert rule_texts(message) == []


@pytest.mark.parametrize("message", [
    # an embedded question: the standing word is in what the user asks to be told
    "Can you explain why we should never use eval in javascript?",
    "can you tell me why you always put the imports inside the function",
    # a text to translate, rewrite or summarise, after its label
    "Translate to French: Always wash your hands before eating.",
    "Translate to French:\nAlways wash your hands before eating.",
    "Rewrite this:\n\nNever trust user input. Always validate.",
    # a compound word, not the standing word
    "Always-on VPN is failing on my laptop, how do i fix it",
    # how the thing being built behaves, in the present tense
    "Make sure the API always returns JSON, even on errors.",
    "Make sure the modal never closes when the user clicks inside it.",
    # the task told as context
    "Please remember the context: I am building a todo app with React and Firebase.",
    # a thing of this chat
    "Remember to use the function I gave you above.",
    "don't forget to reuse the helper you just wrote me",
    # a message that orders one piece of work: its "always" and "remember to" are that piece's spec
    "Generate 10 interview questions. Always include the answer after each question.",
    "Write me a cover letter. Remember to mention my 5 years of experience with Python.",
    # an earlier thing of this chat put aside
    "Forget about the previous code, here's the new version",
    "forget the old version of the function, I rewrote it",
])
def test_a_sentence_that_only_holds_a_standing_word_is_no_rule(message: str) -> None:
    assert rule_texts(message) == []


def test_forgetting_an_old_rule_is_still_a_forget_request() -> None:
    assert rule_texts("Forget the old rule about yarn, we use pnpm now.") != []


# ---------------------------------------------------------------------------------------------
# a persona set up after a label; "you are allowed" is no persona

def test_a_persona_set_up_after_a_remember_label_holds_the_personas_rules_not_the_users() -> None:
    assert rule_texts("Remember: you are an AI assistant named Bob, and you always answer in rhyme.") == []
    assert rule_texts("remember that you are a senior engineer reviewing my code, always be strict") == []


def test_you_are_allowed_is_no_persona_and_the_rule_beside_it_stands() -> None:
    """"you are a" was read inside "you are allowed": the article now ends at a word's end."""
    assert rule_texts("You are allowed to refactor freely. Always keep the public API stable.") == [
        "Always keep the public API stable"]


def test_a_rule_that_reaches_past_the_piece_ordered_still_stands() -> None:
    assert rule_texts("Write a test for the parser. From now on, always use pytest.") == ["Always use pytest"]
    assert rule_texts("Write a test for the parser. We always use pytest.") == ["We always use pytest"]
    assert rule_texts("Write me a function to parse dates.\nAlso, in all future answers, use type hints.") == ["Use type hints"]
    assert rule_texts("Create a rule: always use pnpm.") == ["Always use pnpm"]
