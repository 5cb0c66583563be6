"""An explicit request found in a user message (docs/reviewer-answer-schema.md): what the grammar returns."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

RequestKind = Literal["directive", "forget"]

MIN_RULE_CHARS = 6  # "use it" is not a rule; CJK rules are short, hence characters, not words


@dataclass(frozen=True)
class Request:
    """One explicit request found in a user message."""

    kind: RequestKind
    text: str  # the rule (or what to forget), in the user's words
    sentence: str  # the sentence it came from: the evidence
    # False: the user may not have meant a standing rule (the standing word only at the end, a
    # request pointing back at another message): a model reviewer decides (docs/reviewer-answer-schema.md).
    certain: bool = True
