"""The review packet: a redacted, token-budgeted transcript of a session (SPEC §4.3).

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

Secrets are redacted (omp.safety.secrets) on each message's whole text *before* any cut, so a cut can
never leave half a secret behind. The budget passed in is the transcript's own: the review step
subtracts its prompt frame from `memory-review-max-input-tokens` first.

Reading a message back (`read_message_at`) decodes its line whole when it holds at most
`omp.sessions.lines.MAX_HELD_BYTES` (8 MiB): what the packet sends of it is then exactly what a
whole read gives, a tool excerpt's counts included. A longer line is never held: it is read by
the ends of its long strings (`omp.sessions.lines.Skeleton`). Of such a tool output the excerpt
is made from its ends, redacted through the same 32 K-character margin before its cuts; of such a
user or assistant message the packet shows at most CLIP_BODY_CHARS of each end, redacted through
that margin too (the ends were cut from the line at arbitrary points: a secret across a cut is
seen whole, or not shown). Their sizes are estimates, and the header and markers say "about".
"""

from __future__ import annotations

import collections
from pathlib import Path
from typing import IO, Any, Iterable, Iterator, Protocol

from msgspec import Struct, field

from omp.intents.checks import asks_to_keep, is_correction
from omp.safety.secrets import find_secrets, redact, redaction_marker
from omp.sessions.events import (
    EXCERPT_MARGIN_CHARS,
    ORIGINS,
    Entry,
    Message,
    Origin,
    RawMessage,
    SessionReader,
    StreamedMessage,
    cut_head_tail,
    excerpt_tool,
    read_message_at,
)
from omp.sessions.lines import Clip, about, omission_marker
from omp.tokens import get_counter, start_loading


class Counter(Protocol):
    name: str

    def count(self, text: str) -> int: ...


PRIORITY: tuple[Origin, ...] = ("user", "assistant", "tool")
SEPARATOR = "\n\n"
# Round one: what each message gets at least (a long one: its head and tail). Round two: the
# most one message may take, as a share of the budget.
FLOOR_TOKENS: dict[str, int] = {"user": 400, "assistant": 200, "tool": 160}
CAP_SHARE: dict[str, float] = {"user": 1 / 3, "assistant": 1 / 8, "tool": 1 / 40}
MIN_KEEP_TOKENS = 24  # below this a message is dropped rather than cut to nothing
SEPARATOR_TOKENS = 2  # the blank line between two messages, with room for boundary effects
HEAD_SHARE = 0.6  # of a cut message's room, the head's share; the tail gets the rest
TEXT_CACHE_CHARS = 64 * 1024  # redacted texts up to this size are kept between passes
# Of a message read by its ends (a line over 8 MiB), the most the packet shows of each end; it
# is redacted through a margin wider than any secret beyond that, and kept between passes.
CLIP_BODY_CHARS = 64 * 1024
# Round zero (corrections and explicit requests with the assistant turn each answers): the most
# each pair's user message and assistant turn may take, most generous first; the first level at
# which every pair fits is used. The assistant turn needs only enough to say what is corrected.
PAIR_LEVELS: tuple[tuple[int, int], ...] = ((400, 200), (300, 120), (200, 80), (120, 56), (64, 40))
# Of a budget this large or more, this share is left to assistant and tool context before the
# other user messages may take it.
CONTEXT_SHARE = 0.2
CONTEXT_MIN_BUDGET = 2000
TOOL_SHARE_OF_CONTEXT = 0.25


class PacketStats(Struct):
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


class Packet(Struct):
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


def label(origin: str, seq: int) -> str:
    return f"[{origin} #{seq}]"


def header(kept: int, seen: int) -> str:
    """The packet's first line when messages were left out: the numbering shows where."""
    return f"[{kept} of {seen} messages; #N is a message's position in the conversation, missing numbers were left out]"


# --------------------------------------------------------------------------------------------
# The first pass


class SessionIndex(Struct):
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


class _Candidate(Struct):
    entry: Entry
    text_tokens: int  # its redacted text, counted exactly
    tokens: int  # what its whole block costs: label, text and separator
    allot: int = 0
    priority: bool = False  # a correction or explicit request, or the assistant turn it answers


class _Builder:
    def __init__(self, handle: IO[bytes], counter: Counter) -> None:
        self.handle = handle
        self.counter = counter
        self.texts: dict[int, tuple[str, collections.Counter[str]]] = {}  # seq -> redacted body
        self.cut: set[int] = set()
        # seq -> (characters left out of it, whether that count is an estimate): the bodies of
        # huge messages, read by their ends
        self.clipped: dict[int, tuple[int, bool]] = {}

    # Reading one message back, redacted (whole text first, then the tool excerpt).
    def body(self, entry: Entry) -> tuple[str, collections.Counter[str]] | None:
        cached = self.texts.get(entry.seq)
        if cached is not None:
            return cached
        raw = read_message_at(self.handle, entry.offset, entry.tool_name)
        if raw is None:
            return None
        if raw.origin == "tool":
            text, counts = _redacted_tool_excerpt(raw)
        elif raw.clip is not None:  # a huge message read by its ends: its middle is already out
            text, counts, omitted = _redacted_clip(raw.clip)
            self.clipped[entry.seq] = (omitted, not raw.clip.exact)
            self.texts[entry.seq] = (text, counts)
            return text, counts
        else:
            text, counts = redact(raw.text)
        if len(text) <= TEXT_CACHE_CHARS:
            self.texts[entry.seq] = (text, counts)
        return text, counts

    def block(self, entry: Entry, text: str) -> str:
        return f"{label(entry.origin, entry.seq)}\n{text}"

    def label_tokens(self, entry: Entry) -> int:
        return self.counter.count(label(entry.origin, entry.seq) + "\n")

    def measure(self, entry: Entry) -> _Candidate | None:
        found = self.body(entry)
        if found is None:
            return None
        text_tokens = self.counter.count(found[0])
        return _Candidate(entry, text_tokens, text_tokens + self.label_tokens(entry) + SEPARATOR_TOKENS)

    # Cutting a message to its allotment, head and tail kept.
    def fit(self, candidate: _Candidate, text: str) -> str:
        entry = candidate.entry
        room = candidate.allot - SEPARATOR_TOKENS - self.label_tokens(entry)
        whole = candidate.text_tokens
        if whole <= room:
            return text
        self.cut.add(entry.seq)
        clipped = self.clipped.get(entry.seq)
        chars = int(len(text) * room / max(whole, 1) * 0.95)
        for _ in range(12):
            if chars <= 0:
                break
            head = int(chars * HEAD_SHARE)
            shortened = _cut(text, head, chars - head, clipped)
            used = self.counter.count(shortened)
            if used <= room:
                return shortened
            chars = int(chars * room / used * 0.95) - 8
        # Too short for a head and a tail around a marker (a small allotment of round zero):
        # its head, so that a correction still reaches the reviewer.
        chars = int(len(text) * room / max(whole, 1) * 0.9)
        while chars >= 8 and room >= MIN_KEEP_TOKENS // 2:
            shortened = text[:chars].rstrip() + " […]"
            if self.counter.count(shortened) <= room:
                return shortened
            chars = int(chars * 0.8)
        return ""


def _cut(text: str, head: int, tail: int, clipped: tuple[int, bool] | None) -> str:
    """`text` cut to its head and tail. Of a huge message read by its ends (`clipped`: what was
    left out of it already, and whether that is an estimate), the cut takes the omission marker
    out with the middle around it, and its own marker counts what was left out before too."""
    if clipped is None:
        return cut_head_tail(text, head, tail)[0]
    omitted, approximate = clipped
    shortened, _ = cut_head_tail(text, head, tail, omitted, approximate)
    if omission_marker(about(omitted) if approximate else omitted, approximate) in shortened:
        shortened, _ = cut_head_tail(text, head, tail)  # the cut kept the old marker
    return shortened


def _redacted_clip(clip: Clip) -> tuple[str, collections.Counter[str], int]:
    """The body of a message read by its ends: at most CLIP_BODY_CHARS of its head and of its
    tail around an omission marker, each redacted through EXCERPT_MARGIN_CHARS more (the Clip's
    inner edges are arbitrary cuts: a secret across one is seen whole, or not shown at all).
    Returns the text, the redactions, and how many characters it leaves out (an estimate)."""
    margin = EXCERPT_MARGIN_CHARS
    counts: collections.Counter[str] = collections.Counter()
    head = clip.head[: CLIP_BODY_CHARS + margin]
    head_text, head_kept = _redact_before(head, len(head) - margin, counts)
    tail = clip.tail[max(0, len(clip.tail) - CLIP_BODY_CHARS - margin):]
    tail_text, tail_kept = _redact_after(tail, margin, counts)
    omitted = max(0, clip.chars - head_kept - tail_kept)
    marker = omission_marker(about(omitted) if not clip.exact else omitted, not clip.exact)
    return f"{head_text.rstrip()}\n{marker}\n{tail_text.lstrip()}", counts, omitted


def _redact_before(text: str, cut: int, counts: collections.Counter[str]) -> tuple[str, int]:
    """`text[:cut]` redacted (cut moved back out of any secret found in `text`, to whitespace)."""
    findings = find_secrets(text)
    cut = max(0, cut)
    space = max(text.rfind(" ", 0, cut), text.rfind("\n", 0, cut))
    cut = space if space > cut - 200 else cut
    for finding in findings:  # in text order, never overlapping: a start is inside no other
        if finding.start < cut < finding.end:
            cut = finding.start
    return _apply(text, [f for f in findings if f.end <= cut], 0, cut, counts), cut


def _redact_after(text: str, start: int, counts: collections.Counter[str]) -> tuple[str, int]:
    """`text[start:]` redacted (start moved forward out of any secret found in `text`, to
    whitespace). Returns it and how many characters it keeps."""
    findings = find_secrets(text)
    start = min(start, len(text))
    spaces = [i for i in (text.find(" ", start, start + 200), text.find("\n", start, start + 200)) if i >= 0]
    start = min(spaces) + 1 if spaces else start
    for finding in findings:  # an end is inside no other finding either
        if finding.start < start < finding.end:
            start = finding.end
    return _apply(text, [f for f in findings if f.start >= start], start, len(text), counts), len(text) - start


def _apply(text: str, findings: list[Any], start: int, end: int, counts: collections.Counter[str]) -> str:
    parts: list[str] = []
    position = start
    for finding in findings:
        parts.append(text[position : finding.start])
        parts.append(redaction_marker(finding.kind))
        counts[finding.kind] += 1
        position = finding.end
    parts.append(text[position:end])
    return "".join(parts)


def _redacted_tool_excerpt(raw: RawMessage) -> tuple[str, collections.Counter[str]]:
    counts: collections.Counter[str] = collections.Counter()

    def clean(text: str) -> str:
        redacted, found = redact(text)
        counts.update(found)
        return redacted

    return excerpt_tool(raw, clean), counts


def _floor(origin: str, budget: int) -> int:
    return min(FLOOR_TOKENS[origin], max(MIN_KEEP_TOKENS * 2, budget // 4))


def _cap(origin: str, budget: int) -> int:
    return max(_floor(origin, budget), int(budget * CAP_SHARE[origin]))


def _priority_pairs(builder: _Builder, entries: list[Entry], must_keep: set[int] | None) -> list[tuple[Entry, Entry | None]]:
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


def _pair_cost(user: _Candidate, assistant: _Candidate | None, user_room: int, assistant_room: int) -> int:
    cost = min(user.tokens, user_room)
    if assistant is not None:
        cost += min(assistant.tokens, assistant_room)
    return cost


def _take_pairs(builder: _Builder, pairs: list[tuple[Entry, Entry | None]], budget: int,
                chosen: dict[int, _Candidate]) -> int:
    """Round zero: the pairs, each user message with its assistant turn, at the most generous
    level at which all of them fit; if none does, the newest pairs at the smallest level.
    Returns the tokens used."""
    measured: list[tuple[_Candidate, _Candidate | None]] = []
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


def _take(builder: _Builder, newest_first: list[Entry], floor: int, remaining: int, keep: int,
          chosen: dict[int, _Candidate], taken: list[_Candidate]) -> tuple[int, list[Entry]]:
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


def _grow(candidates: list[_Candidate], cap: int, remaining: int) -> int:
    for candidate in candidates:  # newest first
        grow = min(candidate.tokens, cap) - candidate.allot
        if grow > 0 and remaining > 0:
            give = min(grow, remaining)
            candidate.allot += give
            remaining -= give
    return remaining


def _choose(builder: _Builder, entries: list[Entry], budget: int, must_keep: set[int] | None = None) -> dict[int, _Candidate]:
    """Allot tokens to messages (SPEC §4.3).

    Round zero: every correction and explicit request with the assistant turn it answers.
    Then the other user messages, newest first, up to a floor each, leaving `CONTEXT_SHARE` of
    the budget to assistant and tool context (so the reviewer never gets user messages alone),
    then assistant text, then tool excerpts, then more user messages if room is left; last, the
    chosen messages grow, newest first, up to a per-origin cap.
    """
    chosen: dict[int, _Candidate] = {}
    remaining = budget - _take_pairs(builder, _priority_pairs(builder, entries, must_keep), budget, chosen)
    by_origin: dict[str, list[Entry]] = {origin: [] for origin in ORIGINS}
    for entry in entries:
        by_origin[entry.origin].append(entry)
    has_context = bool(by_origin["assistant"] or by_origin["tool"])
    keep = int(budget * CONTEXT_SHARE) if has_context and budget >= CONTEXT_MIN_BUDGET else 0
    taken: dict[str, list[_Candidate]] = {origin: [] for origin in ORIGINS}
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


def _render(builder: _Builder, chosen: dict[int, _Candidate], seen: int) -> tuple[str, list[Message], collections.Counter[str]]:
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


def _victim(chosen: dict[int, _Candidate]) -> _Candidate:
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
        builder = _Builder(handle, counter)
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
