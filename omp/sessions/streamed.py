"""A message of a review's one pass whose text is made only when it is read (`StreamedMessage`)."""

from __future__ import annotations

import functools
from typing import Any

from omp.sessions.excerpt import (
    EXCERPT_MARGIN_CHARS,
    TOOL_HEAD_CHARS,
    TOOL_TAIL_CHARS,
    clip_ends,
    cut_on_the_ends,
    message_text,
)
from omp.sessions.lines import Clip
from omp.sessions.messages import Origin, RawMessage
from omp.sessions.parse import assistant_text, reply_pieces
from omp.substrings import SubstringSet, substring_set

# A tool output decoded whole up to this size is looked through for `may_hold`; a longer one
# (another producer's layout) has its excerpt made instead.
_LOOKED_THROUGH_CHARS = TOOL_HEAD_CHARS + TOOL_TAIL_CHARS + 2 * EXCERPT_MARGIN_CHARS


class StreamedMessage:
    """A message of a review's one pass (`SessionReader.iter_streamed`), whose text is made only
    when it is read (`text`), as `Message.text` would be.

    The explicit pass reads every user message whole, but of tool output and assistant text
    only what might hold a rule planted in it (`may_hold`). Making every tool output's excerpt
    and redacting every tool request's parts (the assistant's summary lines) cost more than
    reading their lines, for text nobody else reads in the pass.
    """

    __slots__ = ("origin", "seq", "_text", "_raw", "_reply")

    def __init__(self, origin: Origin, seq: int, text: str | None = None, raw: RawMessage | None = None,
                 reply: dict[str, Any] | None = None) -> None:
        self.origin = origin
        self.seq = seq
        self._text = text
        self._raw = raw  # a tool output, until its excerpt is made
        self._reply = reply  # an assistant.message's data, until its text is made

    @property
    def text(self) -> str:
        if self._text is None:
            if self._reply is not None:
                reply = assistant_text(self._reply)
                self._text = reply.marked() if isinstance(reply, Clip) else reply
            else:
                assert self._raw is not None
                self._text = message_text(self._raw)
            self._raw = self._reply = None
        return self._text

    def may_hold(self, stems: tuple[str, ...]) -> bool:
        """False only if `text.lower()` holds none of `stems` (lower-case, each without
        whitespace at its ends or in a row, and without "\x00", "[" or "]"), decided from
        what the text is made of, before it is made:

        - an excerpt is its header (the tool's name and fixed words no stem is in) and pieces
          of the output, each line kept whole or cut: a stem it holds is in the name or the output,
          and of an output read by its ends, in what the excerpt shows of them (`cut_on_the_ends`);
        - an assistant text is its content and, per tool request, its name and parts, each
          redacted (a secret becomes "[REDACTED:kind]", and no stem is in a marker nor crosses
          its brackets), with its whitespace runs made single spaces (a stem whose spaces are
          single stays whole), and cut: a stem it holds is in a piece with its whitespace
          folded the same way.

        The pieces are joined with "\x00", which no stem holds, so none is found across two."""
        if self._text is not None:
            return _holds_any(self._text.lower(), stems)
        if self._reply is not None:
            pieces = reply_pieces(self._reply)
            return pieces is None or _holds_any_folded("\x00".join(pieces).lower(), stems)
        raw = self._raw
        assert raw is not None
        if raw.clip is not None:
            head, tail, _ = clip_ends(raw.clip)
            if cut_on_the_ends(head, tail):  # what the excerpt shows of them
                head, tail = head[:TOOL_HEAD_CHARS], tail[len(tail) - TOOL_TAIL_CHARS:]
            pieces = [raw.tool_name or "", head, tail]
        elif len(raw.text) <= _LOOKED_THROUGH_CHARS:
            pieces = [raw.tool_name or "", raw.text]
        else:
            return True
        return _holds_any("\x00".join(pieces).lower(), stems)


def _holds_any(lowered: str, stems: tuple[str, ...]) -> bool:
    return substring_set(stems).any_in(lowered)


def _holds_any_folded(lowered: str, stems: tuple[str, ...]) -> bool:
    """`_holds_any(" ".join(lowered.split()), stems)`, folding the whitespace only when a stem
    with a space in it might be there: a stem without whitespace is in the folded text if and
    only if it is in `lowered` (folding changes whitespace only), and a stem with a space holds
    each of its words, which are then in `lowered` too."""
    whole, spaced = _by_spacing(stems)
    if whole.any_in(lowered):
        return True
    candidates = [stem for stem, word in spaced if word in lowered]
    return bool(candidates) and any(map(" ".join(lowered.split()).__contains__, candidates))


@functools.lru_cache(maxsize=8)
def _by_spacing(stems: tuple[str, ...]) -> tuple[SubstringSet, tuple[tuple[str, str], ...]]:
    """The stems without a space, and each stem with one paired with its longest word."""
    whole = SubstringSet(stem for stem in stems if " " not in stem)
    spaced = tuple((stem, max(stem.split(), key=len)) for stem in stems if " " in stem)
    return whole, spaced
