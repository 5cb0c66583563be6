"""What the explicit pass's tests share: a message as the scan reads it, and the rules a text gives."""

from __future__ import annotations

from dataclasses import dataclass

from omp.intents.messages import requests_in


@dataclass
class Msg:
    origin: str
    text: str
    seq: int = 0


def rule_texts(message: str) -> list[str]:
    """The rule text of every standing request the grammar finds in `message`."""
    return [r.text for r in requests_in(message)]
