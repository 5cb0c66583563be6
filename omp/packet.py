"""The review packet: a redacted, token-budgeted transcript of a session (docs/explicit-requests-and-eval.md#the-packet).

The reviewer sees this packet, never the raw file. How it is built, so that a 100 MB session
costs about as much as reading it once and memory stays flat:

1. **Scan** (one streaming pass): for each message keep only where it is and its origin. A
   review reads the file once: the pass that feeds the explicit pass every message also
   indexes them for the packet (`SessionIndexer`), and notes which user messages are
   corrections or explicit requests. Alone (`omp memory-review --dry-run` aside, the benches),
   the packet scans with `SessionReader.iter_entries`, which does not even decode tool output
   lines, most of the bytes.
2. **Choose.** Round zero: every user correction and explicit request (`omp.intents`; each
   user message is read back once to tell), each with the assistant message it answers, at
   the most generous size at which all of them fit. Then, in priority order user › assistant ›
   tool, newest first within each origin: each candidate is read back from its offset,
   redacted, and counted exactly with the token counter, and gets up to a *floor* (a short
   message whole, a long one its head and tail), as long as the budget lasts: as many user
   messages as fit, never "only the last N" — but the other user messages leave a share of the
   budget to assistant and tool context, so the reviewer never gets user messages alone. Last,
   the chosen messages grow, newest first, up to a per-origin *cap*, so one huge paste cannot
   take the whole budget.
3. **Render** the chosen messages in conversation order, each labelled with its origin and
   position (`[user #12]`), long ones cut to head + tail around an omission marker, with a
   marker where messages were left out. The rendered text is counted exactly; if tokenizer
   boundary effects push it over, the lowest-priority message is shrunk or dropped until it
   fits. The packet never exceeds its budget.

Secrets are redacted on each message's whole text *before* any cut (`omp.packet_bodies`, which
also reads a message back, huge ones by their ends). The budget passed in is the transcript's
own: the review step subtracts its prompt frame from `memory-review-max-input-tokens` first.
"""

from __future__ import annotations

import collections
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Iterator

from omp.intents.checks import asks_to_keep, is_correction
from omp.packet_bodies import (
    MIN_KEEP_TOKENS,
    SEPARATOR_TOKENS,
    Builder,
    Candidate,
    Counter,
)
from omp.sessions.events import SessionReader, read_message_at
from omp.sessions.messages import ORIGINS, Entry, Message, Origin
from omp.sessions.streamed import StreamedMessage
from omp.tokens import get_counter, start_loading

PRIORITY: tuple[Origin, ...] = ("user", "assistant", "tool")
SEPARATOR = "\n\n"
# Round one: what each message gets at least (a long one: its head and tail). Round two: the
# most one message may take, as a share of the budget.
FLOOR_TOKENS: dict[str, int] = {"user": 400, "assistant": 200, "tool": 160}
CAP_SHARE: dict[str, float] = {"user": 1 / 3, "assistant": 1 / 8, "tool": 1 / 40}
# Round zero (corrections and explicit requests with the assistant turn each answers): the most
# each pair's user message and assistant turn may take, most generous first; the first level at
# which every pair fits is used. The assistant turn needs only enough to say what is corrected.
PAIR_LEVELS: tuple[tuple[int, int], ...] = ((400, 200), (300, 120), (200, 80), (120, 56), (64, 40))
# Of a budget this large or more, this share is left to assistant and tool context before the
# other user messages may take it.
CONTEXT_SHARE = 0.2
CONTEXT_MIN_BUDGET = 2000
TOOL_SHARE_OF_CONTEXT = 0.25


@dataclass
class PacketStats:
    seen: collections.Counter[str] = field(default_factory=collections.Counter)
    kept: collections.Counter[str] = field(default_factory=collections.Counter)
    dropped: collections.Counter[str] = field(default_factory=collections.Counter)
    trimmed: collections.Counter[str] = field(default_factory=collections.Counter)
    redactions: collections.Counter[str] = field(default_factory=collections.Counter)
    bad_lines: int = 0
    skipped_events: int = 0
    partial_tail: bool = False

    def to_dict(self) -> dict[str, Any]:
        def per_origin(counter: collections.Counter[str]) -> dict[str, int]:
            return {origin: counter.get(origin, 0) for origin in ORIGINS}

        return {
            "seen": per_origin(self.seen),
            "kept": per_origin(self.kept),
            "dropped": per_origin(self.dropped),
            "trimmed": per_origin(self.trimmed),
            "redactions": dict(sorted(self.redactions.items())),
            "bad_lines": self.bad_lines,
            "skipped_events": self.skipped_events,
            "partial_tail": self.partial_tail,
        }


@dataclass
class Packet:
    messages: list[Message]  # kept, redacted, possibly cut, in conversation order
    text: str  # the transcript the prompt embeds
    tokens: int
    tokenizer: str  # "tiktoken" | "estimate"
    budget: int
    stats: PacketStats
    cursor: int  # where reading started
    end_offset: int  # the next cursor

    def to_dict(self, include_text: bool = True) -> dict[str, Any]:
        data: dict[str, Any] = {
            "tokens": self.tokens,
            "tokenizer": self.tokenizer,
            "budget": self.budget,
            "cursor": self.cursor,
            "end_offset": self.end_offset,
            "messages": len(self.messages),
            "stats": self.stats.to_dict(),
        }
        if include_text:
            data["text"] = self.text
        return data


def header(kept: int, seen: int) -> str:
    """The packet's first line when messages were left out: the numbering shows where."""
    return f"[{kept} of {seen} messages; #N is a message's position in the conversation, missing numbers were left out]"


# --------------------------------------------------------------------------------------------
# The first pass


@dataclass
class SessionIndex:
    """What the packet keeps of its first pass: where each message is, never its text."""

    entries: list[Entry]
    cursor: int
    end_offset: int
    bad_lines: int
    skipped_events: int
    partial_tail: bool
    # The user corrections and explicit requests (their seqs), found while the text went by;
    # None: not looked at, so the packet reads each user message back to tell.
    must_keep: set[int] | None = None


class SessionIndexer:
    """One pass over a session for a review: `messages()` streams every message to the explicit
    pass, and the index the packet needs is kept on the way (the file is read once). The
    corrections are noted here; which user messages ask for something the explicit pass says
    (`ExplicitScan.asking`), so no message is asked twice."""

    def __init__(self, reader: SessionReader) -> None:
        self.reader = reader
        self._entries: list[Entry] = []
        self._corrections: set[int] = set()

    def messages(self) -> Iterator[StreamedMessage]:
        """Every message, its text made when read (`StreamedMessage`)."""
        for entry, message in self.reader.iter_streamed():
            self._entries.append(entry)
            if entry.origin == "user" and is_correction(message.text):
                self._corrections.add(entry.seq)
            yield message

    def index(self, asking: Iterable[int]) -> SessionIndex:
        """Valid once `messages()` has been read to its end; `asking`: the seqs of the user
        messages holding an explicit request (the explicit pass's)."""
        reader = self.reader
        return SessionIndex(self._entries, reader.cursor, reader.end_offset, reader.bad_lines,
                            reader.skipped_events, reader.partial_tail, self._corrections | set(asking))


def index_entries(reader: SessionReader) -> SessionIndex:
    """The packet's own first pass: positions and origins, tool output lines not decoded."""
    entries = list(reader.iter_entries())
    return SessionIndex(entries, reader.cursor, reader.end_offset, reader.bad_lines, reader.skipped_events,
                        reader.partial_tail)


# --------------------------------------------------------------------------------------------
# Choosing what each message gets (read back by `omp.packet_bodies.Builder`)


def _floor(origin: str, budget: int) -> int:
    return min(FLOOR_TOKENS[origin], max(MIN_KEEP_TOKENS * 2, budget // 4))


def _cap(origin: str, budget: int) -> int:
    return max(_floor(origin, budget), int(budget * CAP_SHARE[origin]))


def _priority_pairs(builder: Builder, entries: list[Entry], must_keep: set[int] | None) -> list[tuple[Entry, Entry | None]]:
    """Every user correction and explicit request, with the assistant message it answers
    (the one just before it), newest first.

    Without `must_keep` (the index did not see the texts), each user message is read back once,
    not kept: memory stays flat however many there are.
    """
    pairs: list[tuple[Entry, Entry | None]] = []
    answered: Entry | None = None
    for entry in entries:
        if entry.origin == "assistant":
            answered = entry
        elif entry.origin == "user":
            if must_keep is not None:
                keep = entry.seq in must_keep
            else:
                raw = read_message_at(builder.handle, entry.offset)
                keep = raw is not None and asks_to_keep(raw.text)
            if keep:
                pairs.append((entry, answered))
            answered = None  # an assistant message answers only the user message right after it
    return pairs[::-1]


def _pair_cost(user: Candidate, assistant: Candidate | None, user_room: int, assistant_room: int) -> int:
    cost = min(user.tokens, user_room)
    if assistant is not None:
        cost += min(assistant.tokens, assistant_room)
    return cost


def _take_pairs(builder: Builder, pairs: list[tuple[Entry, Entry | None]], budget: int,
                chosen: dict[int, Candidate]) -> int:
    """Round zero: the pairs, each user message with its assistant turn, at the most generous
    level at which all of them fit; if none does, the newest pairs at the smallest level.
    Returns the tokens used."""
    measured: list[tuple[Candidate, Candidate | None]] = []
    for user_entry, assistant_entry in pairs:
        user = builder.measure(user_entry)
        if user is None:
            continue
        assistant = builder.measure(assistant_entry) if assistant_entry is not None else None
        measured.append((user, assistant))
    if not measured:
        return 0
    levels = [(min(_floor("user", budget), room_u), room_a) for room_u, room_a in PAIR_LEVELS]
    user_room, assistant_room = levels[-1]
    for room_u, room_a in levels:
        if sum(_pair_cost(u, a, room_u, room_a) for u, a in measured) <= budget:
            user_room, assistant_room = room_u, room_a
            break
    used = 0
    for user, assistant in measured:  # newest first
        cost = _pair_cost(user, assistant, user_room, assistant_room)
        if used + cost > budget:
            break
        user.allot = min(user.tokens, user_room)
        user.priority = True
        chosen[user.entry.seq] = user
        if assistant is not None and assistant.entry.seq not in chosen:
            assistant.allot = min(assistant.tokens, assistant_room)
            assistant.priority = True
            chosen[assistant.entry.seq] = assistant
        used += cost
    return used


def _take(builder: Builder, newest_first: list[Entry], floor: int, remaining: int, keep: int,
          chosen: dict[int, Candidate], taken: list[Candidate]) -> tuple[int, list[Entry]]:
    """Give messages, newest first, up to `floor` each while more than `keep` tokens remain.
    Returns what remains and the messages not reached."""
    for index, entry in enumerate(newest_first):
        if entry.seq in chosen:
            continue
        available = remaining - keep
        if available < MIN_KEEP_TOKENS + SEPARATOR_TOKENS:
            return remaining, newest_first[index:]
        candidate = builder.measure(entry)
        if candidate is None:
            continue
        want = min(candidate.tokens, floor, available)
        if want < candidate.tokens and want < min(floor // 2, MIN_KEEP_TOKENS + SEPARATOR_TOKENS):
            continue  # it would be cut to a sliver: leave the room to a smaller message
        candidate.allot = want
        remaining -= want
        taken.append(candidate)
        chosen[entry.seq] = candidate
    return remaining, []


def _grow(candidates: list[Candidate], cap: int, remaining: int) -> int:
    for candidate in candidates:  # newest first
        grow = min(candidate.tokens, cap) - candidate.allot
        if grow > 0 and remaining > 0:
            give = min(grow, remaining)
            candidate.allot += give
            remaining -= give
    return remaining


def _choose(builder: Builder, entries: list[Entry], budget: int, must_keep: set[int] | None = None) -> dict[int, Candidate]:
    """Allot tokens to messages (docs/explicit-requests-and-eval.md#the-packet).

    Round zero: every correction and explicit request with the assistant turn it answers.
    Then the other user messages, newest first, up to a floor each, leaving `CONTEXT_SHARE` of
    the budget to assistant and tool context (so the reviewer never gets user messages alone),
    then assistant text, then tool excerpts, then more user messages if room is left; last, the
    chosen messages grow, newest first, up to a per-origin cap.
    """
    chosen: dict[int, Candidate] = {}
    remaining = budget - _take_pairs(builder, _priority_pairs(builder, entries, must_keep), budget, chosen)
    by_origin: dict[str, list[Entry]] = {origin: [] for origin in ORIGINS}
    for entry in entries:
        by_origin[entry.origin].append(entry)
    has_context = bool(by_origin["assistant"] or by_origin["tool"])
    keep = int(budget * CONTEXT_SHARE) if has_context and budget >= CONTEXT_MIN_BUDGET else 0
    taken: dict[str, list[Candidate]] = {origin: [] for origin in ORIGINS}
    remaining, users_left = _take(builder, by_origin["user"][::-1], _floor("user", budget), remaining, keep,
                                  chosen, taken["user"])
    priority = sorted((c for c in chosen.values() if c.priority), key=lambda c: -c.entry.seq)
    # The user's words grow first (a pasted log whole rather than cut), still leaving the share.
    spare = _grow([c for c in priority if c.entry.origin == "user"] + taken["user"], _cap("user", budget),
                  max(0, remaining - keep))
    remaining = spare + min(keep, remaining)
    # Assistant text first, leaving a quarter of the share to tool excerpts (what was run, and
    # what it said, is context too).
    tool_keep = int(keep * TOOL_SHARE_OF_CONTEXT) if by_origin["tool"] else 0
    for origin, hold in (("assistant", tool_keep), ("tool", 0)):
        remaining, _ = _take(builder, by_origin[origin][::-1], _floor(origin, budget), remaining, hold,
                             chosen, taken[origin])
    if users_left:
        remaining, _ = _take(builder, users_left, _floor("user", budget), remaining, 0, chosen, taken["user"])
    remaining = _grow([c for c in priority if c.entry.origin == "user"], _cap("user", budget), remaining)
    for origin in PRIORITY:
        remaining = _grow(taken[origin], _cap(origin, budget), remaining)
    _grow([c for c in priority if c.entry.origin == "assistant"], _cap("assistant", budget), remaining)
    return chosen


def _render(builder: Builder, chosen: dict[int, Candidate], seen: int) -> tuple[str, list[Message], collections.Counter[str]]:
    parts: list[str] = []
    messages: list[Message] = []
    redactions: collections.Counter[str] = collections.Counter()
    builder.cut = set()
    for seq in sorted(chosen):
        candidate = chosen[seq]
        found = builder.body(candidate.entry)
        if found is None:
            continue
        text, counts = found
        text = builder.fit(candidate, text)
        if not text:
            continue
        parts.append(builder.block(candidate.entry, text))
        messages.append(Message(candidate.entry.origin, text, seq))
        redactions.update(counts)
    if messages and len(messages) < seen:
        parts.insert(0, header(len(messages), seen))
    return SEPARATOR.join(parts), messages, redactions


def _victim(chosen: dict[int, Candidate]) -> Candidate:
    """The least valuable kept message: tool before assistant before user, oldest first, and
    the corrections and requests with their assistant turns last of all."""
    rank = {origin: i for i, origin in enumerate(PRIORITY)}
    return max(chosen.values(), key=lambda c: (not c.priority, rank[c.entry.origin], -c.entry.seq))


def build_packet(
    events_path: Path,
    budget_tokens: int,
    cursor: int = 0,
    counter: Counter | None = None,
    index: SessionIndex | None = None,
) -> Packet:
    """The packet for `events_path` from byte offset `cursor`, at most `budget_tokens` tokens.

    `index`: the first pass a review already made (`SessionIndexer`, from the same cursor);
    without it the packet makes its own.
    """
    if counter is None:
        start_loading()  # overlaps the scan below
    budget = max(0, int(budget_tokens))
    if index is None:
        index = index_entries(SessionReader(Path(events_path), cursor))  # pass 1: positions and origins only
    entries = index.entries
    if counter is None:
        counter = get_counter()
    stats = PacketStats(bad_lines=index.bad_lines, skipped_events=index.skipped_events, partial_tail=index.partial_tail)
    stats.seen.update(entry.origin for entry in entries)

    with Path(events_path).open("rb") as handle:
        builder = Builder(handle, counter)
        # The header line is paid for up front; without it every message could be kept.
        header_tokens = counter.count(header(len(entries), len(entries))) + SEPARATOR_TOKENS
        chosen = _choose(builder, entries, max(0, budget - header_tokens), index.must_keep)
        text, messages, redactions = _render(builder, chosen, len(entries))
        tokens = counter.count(text)
        while tokens > budget and chosen:
            # Tokenizer boundary effects (or a tiny budget): shrink the least valuable message.
            victim = _victim(chosen)
            victim.allot -= tokens - budget + MIN_KEEP_TOKENS
            if victim.allot < MIN_KEEP_TOKENS + SEPARATOR_TOKENS:
                del chosen[victim.entry.seq]
            text, messages, redactions = _render(builder, chosen, len(entries))
            tokens = counter.count(text)
        if not messages:
            text, tokens = "", 0
        cut = builder.cut

    kept = {message.seq for message in messages}
    for message in messages:
        stats.kept[message.origin] += 1
        if message.seq in cut:
            stats.trimmed[message.origin] += 1
    for entry in entries:
        if entry.seq not in kept:
            stats.dropped[entry.origin] += 1
    stats.redactions = redactions
    return Packet(
        messages=messages,
        text=text,
        tokens=tokens,
        tokenizer=counter.name,
        budget=budget,
        stats=stats,
        cursor=index.cursor,
        end_offset=index.end_offset,
    )
