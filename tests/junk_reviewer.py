#!/usr/bin/env python3
"""A fake model that answers junk notes, as a real small model did (issue 33): for the session's
last user sentence it proposes a rule dressed as a note ("Always …") and trivia ("Understanding
…"), each quoting that sentence word for word, so the evidence check finds the quote and shares
words with the note. Used as the `command` reviewer by tests/test_eval.py (standard library only).
"""

from __future__ import annotations

import json
import re
import sys

# A user message in the transcript: its label line, then its text up to the next blank line.
_USER_LINE = re.compile(r"^\[user #\d+\]\n(.+)$", re.MULTILINE)
_SENTENCE = re.compile(r"[^.!?\n。！？]{12,200}")


def junk_notes(prompt: str) -> list[dict[str, str]]:
    sentences = [s.strip() for line in _USER_LINE.findall(prompt) for s in _SENTENCE.findall(line)]
    sentences = [s for s in sentences if len(s.split()) >= 3]
    if not sentences:
        return []
    quote = sentences[-1]
    words = quote.rstrip(",;: ").split()
    return [
        {"title": ("Always " + " ".join(words[:8]))[:120], "body": f"The user said: {quote}", "evidence": quote},
        {"title": ("Understanding the " + " ".join(words[-3:]))[:120], "body": "The user asked about it.",
         "evidence": quote},
    ]


def main() -> int:
    prompt = sys.stdin.read()
    answer = {"schema": "omp.review.v1", "directives": [], "notes": junk_notes(prompt), "skill_drafts": [],
              "forget": []}
    sys.stdout.write(json.dumps(answer, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
