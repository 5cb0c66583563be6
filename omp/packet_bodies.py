"""Reading one message back for the packet (`omp.packet`): its body redacted, counted, and cut to
what it is allotted.

Secrets are redacted (omp.safety.secrets) on each message's whole text *before* any cut, so a
cut can never leave half a secret behind.

Reading a message back (`read_message_at`) decodes its line whole when it holds at most
`omp.sessions.lines.MAX_HELD_BYTES` (8 MiB): what the packet sends of it is then exactly what a
whole read gives, a tool excerpt's counts included. A longer line is never held: it is read by
the ends of its long strings (`omp.sessions.skeleton.Skeleton`). Of such a tool output the excerpt
is made from its ends, redacted through the same 32 K-character margin before its cuts; of such a
user or assistant message the packet shows at most CLIP_BODY_CHARS of each end, redacted through
that margin too (the ends were cut from the line at arbitrary points: a secret across a cut is
seen whole, or not shown). Their sizes are estimates, and the header and markers say "about".
"""

from __future__ import annotations

import collections
from dataclasses import dataclass
from typing import IO, Any, Protocol

from omp.safety.secrets import find_secrets, redact, redaction_marker
from omp.sessions.events import read_message_at
from omp.sessions.excerpt import EXCERPT_MARGIN_CHARS, cut_head_tail, excerpt_tool
from omp.sessions.lines import Clip, about, omission_marker
from omp.sessions.messages import Entry, RawMessage


class Counter(Protocol):
    name: str

    def count(self, text: str) -> int: ...


MIN_KEEP_TOKENS = 24  # below this a message is dropped rather than cut to nothing
SEPARATOR_TOKENS = 2  # the blank line between two messages, with room for boundary effects
HEAD_SHARE = 0.6  # of a cut message's room, the head's share; the tail gets the rest
TEXT_CACHE_CHARS = 64 * 1024  # redacted texts up to this size are kept between passes
# Of a message read by its ends (a line over 8 MiB), the most the packet shows of each end; it
# is redacted through a margin wider than any secret beyond that, and kept between passes.
CLIP_BODY_CHARS = 64 * 1024


def label(origin: str, seq: int) -> str:
    return f"[{origin} #{seq}]"


@dataclass
class Candidate:
    entry: Entry
    text_tokens: int  # its redacted text, counted exactly
    tokens: int  # what its whole block costs: label, text and separator
    allot: int = 0
    priority: bool = False  # a correction or explicit request, or the assistant turn it answers


class Builder:
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

    def measure(self, entry: Entry) -> Candidate | None:
        found = self.body(entry)
        if found is None:
            return None
        text_tokens = self.counter.count(found[0])
        return Candidate(entry, text_tokens, text_tokens + self.label_tokens(entry) + SEPARATOR_TOKENS)

    # Cutting a message to its allotment, head and tail kept.
    def fit(self, candidate: Candidate, text: str) -> str:
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
