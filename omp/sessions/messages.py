"""The records a session is read into: a message, a message before excerpting, where one is.

`omp.sessions.events` reads them from `events.jsonl`; the packet (`omp.packet`) keeps them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from omp.sessions.lines import Clip

Origin = Literal["user", "assistant", "tool"]
ORIGINS: tuple[Origin, ...] = ("user", "assistant", "tool")


@dataclass(frozen=True)
class Message:
    origin: Origin
    text: str
    seq: int  # 0-based position in the conversation, counting only messages (from the cursor)


@dataclass(frozen=True)
class RawMessage:
    """A message as found in one line, before excerpting: tool output is still whole, or, read
    by its ends, a Clip (`clip`; `text` is then its head and tail around an omission marker)."""

    origin: Origin
    text: str
    tool_name: str | None = None
    tool_failed: bool = False
    clip: Clip | None = None


@dataclass(frozen=True)
class Entry:
    """Where one message is, without its text: what the packet's first pass keeps per message."""

    seq: int
    origin: Origin
    offset: int  # byte offset of its line
    tool_name: str | None = None
