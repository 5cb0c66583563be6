"""What a review would send now: `omp memory-review --dry-run` (docs/behaviour.md#exactly-once-claims-the-retry-queue-and-sweeps).

`preview` runs a review's first steps with the review's own functions — the session found, its
cursor, the one pass with the explicit pass (`scan_session`), the packet at the review's budget
(`omp.review.prompt.transcript_budget`) — and writes nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from omp.config import get_value
from omp.packet import Packet, build_packet
from omp.review.claim import done_cursor
from omp.review.pipeline import scan_session
from omp.review.prompt import transcript_budget
from omp.sessions.discovery import find_session
from omp.tokens import get_counter


@dataclass
class Preview:
    session: Any  # omp.sessions.discovery.SessionInfo
    packet: Packet
    max_input_tokens: int
    prompt_reserve: int  # tokens kept for the prompt around the transcript
    resumed: bool  # the cursor came from an earlier review of this session
    # What the explicit pass would propose (kind, text, evidence): it runs on every review,
    # trivial sessions included, so a preview shows it too.
    explicit: tuple[tuple[str, str, str], ...] = ()
    model_skipped: str | None = None  # why a review would not call the model (a trivial session)

    def to_dict(self) -> dict[str, Any]:
        return {
            "ran": False,
            "reason": "dry run",
            "dry_run": True,
            "session": self.session.id,
            "events": str(self.session.events),
            "reviewer_session": self.session.is_reviewer,
            "summary": {},
            "rejected": [],
            "explicit": [{"kind": kind, "text": text, "evidence": evidence} for kind, text, evidence in self.explicit],
            "model_skipped": self.model_skipped,
            "tokens": {
                "packet": self.packet.tokens,
                "budget": self.packet.budget,
                "max_input": self.max_input_tokens,
                "prompt_reserve": self.prompt_reserve,
                "tokenizer": self.packet.tokenizer,
            },
            "cursor": {"start": self.packet.cursor, "end": self.packet.end_offset, "resumed": self.resumed},
            "packet": {
                "messages": len(self.packet.messages),
                **self.packet.stats.to_dict(),
                "text": self.packet.text,
            },
        }


def preview(spec: str, project: Any, force: bool = False) -> Preview:
    """The packet a review of session `spec` would send now. Reads only; writes nothing.

    Like a review, it starts where the last completed review of the session stopped (its
    claim's cursor), unless `force`.
    """
    session = find_session(spec, project)
    max_input = int(get_value("memory-review-max-input-tokens", project))
    counter = get_counter()
    budget, reserve = transcript_budget(max_input, counter)
    cursor = None if force else done_cursor(project, session.id)
    found, index = scan_session(session.events, cursor or 0)  # the review's own one pass
    packet = build_packet(session.events, budget, cursor=cursor or 0, counter=counter, index=index)
    minimum = int(get_value("memory-review-min-messages", project))
    model_skipped = None
    if found.messages < minimum:
        model_skipped = (f"trivial session: {found.messages} message(s), fewer than memory-review-min-messages={minimum}: "
                         + ("explicit pass only, no model call" if found.proposals else "a review would skip it"))
    explicit = tuple((p.kind, p.text, p.evidence) for p in found.proposals)
    return Preview(session, packet, max_input, reserve, resumed=bool(cursor), explicit=explicit,
                   model_skipped=model_skipped)
