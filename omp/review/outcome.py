"""What a review returns: the request and the outcome (the `--json` object of SPEC §5)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class ReviewRequest:
    session: str = "latest"
    model: str | None = None
    reviewer: str | None = None
    force: bool = False


@dataclass
class ReviewOutcome:
    """What one review did. `to_json()` is the `--json` object of SPEC §5."""

    ran: bool
    reason: str | None
    session: str | None
    summary: dict[str, Any] = field(default_factory=dict)
    rejected: list[dict[str, Any]] = field(default_factory=list)
    tokens: dict[str, Any] = field(default_factory=dict)
    failed: bool = False
    hint: str | None = None

    @property
    def exit_code(self) -> int:
        return 1 if self.failed else 0

    @property
    def status(self) -> str:
        return "failed" if self.failed else ("ran" if self.ran else "skipped")

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "ran": self.ran,
            "reason": self.reason,
            "session": self.session,
            "summary": self.summary,
            "rejected": self.rejected,
            "tokens": self.tokens,
        }
        if self.hint:
            data["hint"] = self.hint
        return data

