"""What a review would send now: `omp memory-review --dry-run` (SPEC §5.1).

`preview` runs a review's first steps — the session found, its cursor, the one pass with the
explicit pass, the packet at the review's budget — and writes nothing. `transcript_budget` is
the share of `memory-review-max-input-tokens` the packet gets once the prompt around it is
reserved; the demo and the benches size their packets with it too.
"""

from __future__ import annotations

from typing import Any

from msgspec import Struct

from omp.config import get_value
from omp.packet import Counter, Packet, SessionIndexer, build_packet
from omp.review.claim import done_cursor
from omp.review.explicit import scan
from omp.review.prompt import KNOWN_SHARE, KnownForPrompt, build_frame
from omp.sessions.discovery import find_session
from omp.sessions.events import SessionReader
from omp.tokens import get_counter


class Preview(Struct):
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


def transcript_budget(max_input_tokens: int, counter: Counter) -> tuple[int, int]:
    """(tokens for the packet, tokens reserved for the prompt around it).

    The reserve is the prompt frame as the review builds it (task, schema, markers) plus the
    largest share the "already known" list may take, so a preview never shows more than a
    review would send.
    """
    frame = build_frame(KnownForPrompt(), max_input_tokens, counter)
    reserve = frame.tokens + int(max_input_tokens * KNOWN_SHARE)
    return max(0, max_input_tokens - reserve), reserve


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
    indexer = SessionIndexer(SessionReader(session.events, cursor or 0))
    found = scan(indexer.messages())  # the file is read once, as a review reads it
    packet = build_packet(session.events, budget, cursor=cursor or 0, counter=counter, index=indexer.index(found.asking))
    minimum = int(get_value("memory-review-min-messages", project))
    model_skipped = None
    if found.messages < minimum:
        model_skipped = (f"trivial session: {found.messages} message(s), fewer than memory-review-min-messages={minimum}: "
                         + ("explicit pass only, no model call" if found.proposals else "a review would skip it"))
    explicit = tuple((p.kind, p.text, p.evidence) for p in found.proposals)
    return Preview(session, packet, max_input, reserve, resumed=bool(cursor), explicit=explicit,
                   model_skipped=model_skipped)
