"""The explicit pass, fifth round (issue 35): requests to keep a rule told as a correction of the
assistant's habits, as the team's convention named, or inside a longer message.

- a decision for the project ("I've decided to incorporate …", "we will be using …", "use X everywhere");
- a request to save a rule named for the agent ("create a cursor rule that says …"), "this should
  be a rule: …", "make it a rule / a habit …", "our convention is to …", "by default, …";
- a correction repeated ("I've told you multiple times: …") or a habit stopped ("stop adding
  comments to every function", "最終段にcatつけるのやめて");
- a standing word closing one comma clause of a run-on message, the reply language asked for after
  a task ("逐一修复然后更新README，使用中文回答"), "keep in mind" in Japanese ("…ことに留意して"),
  "remember this guideline" in Chinese after what it names, Spanish and Portuguese double negation
  ("No uses nunca var"), a Japanese sentence ended by an ideographic space;
- and what must stay unproposed: "don't forget <a thing>" of this task, "修复不要再出现" (a bug not
  to recur), "let's forget about the tables", a piece of writing's "never mention our
  competitors", a process halted ("stop running the server").

Each proposed case failed before this change. Some are phrasings found on real conversations
(`omp/data/eval/real/SOURCES.md`, "Fifth round"); the others are the same forms reworded.
"""

from __future__ import annotations

import pytest

from explicit_support import Msg, rule_texts
from omp.review.explicit import scan


@pytest.mark.parametrize(("message", "rule"), [
    # a rule to save, named for the agent, or told as "this should be a rule"
    ("create a cursor rule that says we never commit directly to main", "We never commit directly to main"),
    ("Add a new claude rule stating that tests live next to the source.", "Tests live next to the source"),
    ("This should be a rule: all errors must be logged with the logger", "All errors must be logged with the logger"),
    ("let's make it a rule that every PR needs a test", "Every PR needs a test"),
    ("Please make it a habit to write tests first.", "Write tests first"),
    ("let's codify this as a rule: session ids are always uuids", "Session ids are always uuids"),
    ("make sure this is captured in the rules: we never mutate the session db directly",
     "We never mutate the session db directly"),
    ("this should be documented as a rule: commands never print stack traces", "Commands never print stack traces"),
    ("Please add to .cursor/rules that we always use zod for validation", "We always use zod for validation"),
    ("Create a new rule file for error handling that says errors must carry a code", "Errors must carry a code"),
    ("Update the testing-guidelines rule so that it says to use bun:test", "Use bun:test"),
    ("update our rules to reflect that we use bun test", "We use bun test"),
    ("let's add a rule about using the domain layer for all db access", "Using the domain layer for all db access"),
    ("Please keep responses short.", "Keep responses short"),
    ("请用简体中文回复", "用简体中文回复"),
    ("用中文回答我的问题", "用中文回答我的问题"),
    # the convention named, and what to do unless told otherwise
    ("Our convention is to name test files *.test.ts", "Name test files *.test.ts"),
    ("The convention in this repo is to use kebab-case file names.", "Use kebab-case file names"),
    ("By default, use TypeScript for new files.", "Use TypeScript for new files"),
    # a correction repeated
    ("I've told you multiple times: don't create new files for tests, put them next to the source.",
     "Don't create new files for tests, put them next to the source"),
    ("I told you before, never commit to main.", "Never commit to main"),
    # a habit stopped
    ("stop adding comments to every function, it's noise", "Stop adding comments to every function, it's noise"),
    ("please stop telling me to clear the cache", "Stop telling me to clear the cache"),
    ("あと最終段にcatつけるのやめて、無意味だから", "最終段にcatつけるのやめて"),
    # Spanish and Portuguese double negation
    ("No uses nunca var.", "No uses nunca var"),
    ("No vuelvas a usar var.", "No vuelvas a usar var"),
    ("Não use nunca var.", "Não use nunca var"),
    # the speaker's set-up, with what follows from it
    ("Please remember that I'm using Windows, so give me PowerShell commands.",
     "I'm using Windows, so give me PowerShell commands"),
    # Japanese "keep in mind", the sentence before it ended by an ideographic space
    ("ちょっと待って uvは入ってるだけだよ\u3000この環境はWindowsなことに留意してやり直して", "この環境はWindows"),
    ("この環境はWindowsなことに留意してください", "この環境はWindows"),
    # Chinese "remember this guideline", what it names before it
    ("关于设计界面必须考虑的7大维请你记住这个准则", "关于设计界面必须考虑的7大维"),
    # the reply language after a task
    ("逐一修复然后更新README，使用中文回答", "使用中文回答"),
    ("更新README文件使用中文回答", "使用中文回答"),
    ("fix the failing tests, and answer in Spanish please", "Answer in Spanish"),
    # a standing word closing one clause of a run-on message
    ("this isnt presentable, i prefer rounded polygons for any shapes going forward, this is a great first attempt",
     "I prefer rounded polygons for any shapes"),
    # a kind ruled out with "ever", a correction shouted mid-sentence, one tool over another
    ("no test scrits ever, i will test by recrawling", "No test scrits ever, i will test by recrawling"),
    ("SAME THING HAPPENED STOP TELLING ME TO RESTART THE SERVER I ALREADY DID THAT, ITS LIKE THAT EVERY TIME",
     "STOP TELLING ME TO RESTART THE SERVER I ALREADY DID THAT"),
    ("Use `uv pip ...` not `pip ...` . Read the TODO file", "Use `uv pip ...` not `pip ...`"),
    ("SAME THING AGAIN STOP TELLING ME TO RESTART THE SERVER I DID THAT, WASTING HOURS, DO YOU NOT SEE IT?",
     "STOP TELLING ME TO RESTART THE SERVER I DID THAT"),  # an outburst that ends in a question
    ("can you stop telling me to restart the server?", "Stop telling me to restart the server"),
    ("rememnber we upgraded to supabase pro", "We upgraded to supabase pro"),
    # the speaker reminds the assistant
    ("In terms of todo, I remind you the main directive that we rely on task-master, not in a file.",
     "The main directive that we rely on task-master, not in a file"),
    ("Te recuerdo que usamos pnpm.", "Usamos pnpm"),
    ("Je te rappelle que nous utilisons pnpm.", "Nous utilisons pnpm"),
    # a decision for the project
    ("I’ve decided to incorporate the falla code because the package is not maintained.",
     "I’ve decided to incorporate the falla code because the package is not maintained"),
    ("Use the safe pattern elsewhere too. We will be using dependency extras from here",
     "We will be using dependency extras from here"),
    ("JUST USE num_results **everywhere**. Simplify!", "USE num_results **everywhere**"),
    # a rule whose "it" is generic: much follows it
    ("fix it and from now on just fix it and do it yourself you dont need to ask me",
     "Fix it and do it yourself you dont need to ask me"),
])
def test_a_correction_a_named_convention_or_a_clause_is_proposed(message: str, rule: str) -> None:
    assert rule_texts(message) == [rule]


@pytest.mark.parametrize("message", [
    "EEXCELLENT!!! table looks great, all we need to do is get the seats in position. dont forget host controls",
    "don't forget the tests",
    "标题显示仪表盘但是界面还是白班，排查问题，并修复不要再出现",  # a bug not to come back
    "lets forget about the tables, i am just interested in the chart now",
    "Write a blog post. Never mention our competitors. Always include a call to action.",  # the piece's spec
    "stop running the server",  # a process halted
    "stop the build",
    "It won't stop using 100% CPU.",
    "I had to stop using the old API.",
    "By default the page shows ten rows.",  # the product's behaviour
    "This should be a rule, not a suggestion.",  # points back: nothing before it here
    "add an eslint rule that forbids console.log",  # a linter's rule: this task's change
    "add a rule for the eslint config",
    "please codify that in the rules",  # points back: nothing before it here
    "Make the validation rule stricter.",
    "I remind you of the meeting tomorrow",  # a thing of today
    "why do you keep telling me to restart the server, did you stop telling me that?",  # a question
    "almost every time you edit this file you end up creating issues",  # what happens each time
    "every time you edit this file you end up creating issues due to assuming things",
    "How many times do I have to tell you, the tests fail?",
    "no other features will ever be necessary",  # what will happen
    "remember its okay to make errors if we are actually moving forward",  # "it's", this task's mood
    "adjust spacing, and lock in, remember this page is the private room with the big central tiles",  # the page in hand
    "Use the Spinner instead of the inlined custom spinner",  # one change of this code
    "please write out a plan for what we will use (Playwright) and how the tests will be implemented.",
    "We will use this function to parse the input.",  # a thing of this task
    "I decided to teach myself how to recover deleted chats manually.",  # what the speaker did
    "Make sure to fix the use of toast everywhere.",  # a change to make now
])
def test_a_thing_of_this_task_or_what_happens_is_not_proposed(message: str) -> None:
    assert rule_texts(message) == []


def test_a_chinese_list_of_rules_introduced_without_a_colon_gives_each_rule() -> None:
    """"請記住以下規則" then a numbered list: the list's items are the rules, not "以下規則"."""
    message = "請記住以下規則\n1. 測試不用 run.py，而是使用 @run.py 做測試\n2. 不需要建立 __init__.py 檔案\n之後會補充"
    assert rule_texts(message) == ["測試不用 run.py，而是使用 @run.py 做測試", "不需要建立 __init__.py 檔案"]
    assert rule_texts("下面是日志\n1. error\n2. warning") == []


def test_the_reply_language_alone_keeps_its_words() -> None:
    """"使用中文回答" typed alone is the rule whole (the after-a-task reading must not cut it)."""
    assert rule_texts("使用中文回答") == ["使用中文回答"]


def test_a_correction_and_a_habit_are_uncertain_readings() -> None:
    """No standing word in them: a model reviewer confirms them when one runs."""
    found = scan([Msg("user", "stop adding comments to every function, it's noise", 0),
                  Msg("user", "this isnt presentable, i prefer rounded polygons for any shapes going forward, a first try", 1)])
    assert [c.proposed for c in found.uncertain] == ["Stop adding comments to every function, it's noise",
                                                      "I prefer rounded polygons for any shapes"]
