"""The explicit pass on real sessions' noise (issue 35, fourth round): text the user did not type
(an agent transcript's tags, a merge conflict, a terminal session, an assistant's answer pasted
back), the user's answers to the assistant's numbered questions and a checklist of what the thing
built must do, a setting's value, and what the product shows told as an imperative.

Each case that must propose nothing was proposed before this change; each control was proposed
before and still is. They are phrasings of forms found in real transcripts nobody here wrote,
not copies of them.
"""

from __future__ import annotations

import pytest

from explicit_support import rule_texts


@pytest.mark.parametrize("message", [
    # an agent transcript's tags: a teammate's or a tool's text
    '<teammate-message teammate_id="docs" summary="done">\nTask done. Entries replace in place, never duplicate, '
    'always ask the user first.\n</teammate-message>',
    "<bash-input>sed -i 's/old/new/' notes.md\nNever tell the user to edit the file by hand.</bash-input>",
    # a merge conflict
    "<<<<<<< Updated upstream\nIf you resize the image with CSS, always set the other side to auto.\n=======\nold\n>>>>>>> Stashed",
    # a terminal session, and a command line with its options
    "❯ cat CONVENTIONS.md\nAlways use the staging database.\nNever push on Fridays.",
    'python3 -c "print(1)"\nNever tell the user to open a file manually.',
    # an assistant's answer pasted back
    "Short answer: yes — deleting the message does not remove the notification. Always use allowed_mentions "
    "so the role is pinged.",
    "please add this too. Short answer: yes — always wait a second before deleting the message.",
    "I can’t run commands in your environment, but here’s how you can run it:\n- If you hit any errors, always "
    "paste the full output here.",
    # a prompt pasted to be used ("Prompt: …")
    "Talk me through each step. Prompt: IMPORTANT INFORMATION:\n- This is a large Python project.\n"
    "- Always use Python from the activated venv.",
    # the user's answers to the assistant's numbered questions: the spec of the thing built
    "1. yes, everything like you wrote\n2. just list orders with guest names\n3. yes, always show the explicit guest",
    # what the thing built must do, item by item
    "Limit recent searches to 3 items.\n\nVerify:\n- never more than 3 shown\n- newest appears first",
    "The forms are broken on the live site.\n\nSCENARIO TO TEST:\n1. Always use the mock URL if needed",
    "I want a minimal Rulesync setup focused on:\n1. Product discovery\n2. PRD generation\n3. Test-plan generation",
    # a prompt written for another agent, a project brief pasted after its label
    "You are executing Phase 2 of the docs migration. CONSTRAINTS: Never delete existing files.",
    "Add the admin page like the brief says.\n\nProject Overview:\nThe app always emails new users.\nRules:\n- Full Name",
    # a list of this task's corrections; a file ordered after a first step (Claude Code's /init)
    "Wait, a small technical correction:\n1. Use the modern import.\n2. Don't forget to always keep the webp format for each image.",
    "Please analyze this codebase and create a CLAUDE.md file.\n\nWhat to add:\n1. If there's already a CLAUDE.md, "
    "always suggest improvements to it.",
    # answers that are fragments ("2. to all", "4. more detailed")
    "1. Custom modal with matching styling\n2. to all\n3. keep it open with zero items\n4. more detailed\n"
    "5. Just let the user delete each and ask every time",
    # a setting's value, what happens, what the product shows
    "We set trailingSlash: always in Astro, but the redirect URLs may lack the slash.",
    "So currently when I run the build I keep getting more and more icons each time.",
    "when we split admin and pos we forgot to update the routes, now I have this error when I add a guest",
    "一直无输出",
    "Always show all available options based on the current selection",
    "Always only show one table and refresh the card with the new contents",
])
def test_what_the_user_did_not_type_or_the_things_spec_proposes_nothing(message: str) -> None:
    assert rule_texts(message) == []


@pytest.mark.parametrize(("message", "rules"), [
    ("Please always try to build at the end of your work.", ["Always try to build at the end of your work"]),
    ("- NEVER fetch data inside screen components\n- ALWAYS use custom hooks for data fetching",
     ["NEVER fetch data inside screen components", "ALWAYS use custom hooks for data fetching"]),
    ("do not update seeds, never update seeds please", ["Do not update seeds, never update seeds"]),
    ("Always show me the diff before applying it", ["Always show me the diff before applying it"]),
    ("Please remember the following:\n- Use pnpm, not npm.\n- Squash merge every PR.", ["Use pnpm, not npm", "Squash merge every PR"]),
    ("Please remember the following:\n1. Use pnpm\n2. No semicolons\n3. Tabs only", ["Use pnpm", "No semicolons", "Tabs only"]),
    ("RULES:\n- Always use pnpm\n- Never push to main", ["Always use pnpm", "Never push to main"]),  # a label in capitals
    # a pointer that says where to keep what it points at: the sentence before it
    ("We will set up the git remote when version 1.0 is done. Please remember that for your instructions.",
     ["We will set up the git remote when version 1.0 is done"]),
])
def test_the_users_own_rules_still_stand(message: str, rules: list[str]) -> None:
    assert rule_texts(message) == rules
