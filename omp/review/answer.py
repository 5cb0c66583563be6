"""The reviewer's answer: find it, validate it, verify its evidence (docs/reviewer-answer-schema.md).

The answer is one JSON object with `"schema": "omp.review.v1"`, somewhere in the reviewer's
output. Models wrap it in code fences or prose (sometimes prose with braces of its own), so the
object is found by one pass that pairs the brackets outside strings and decodes, with the
standard decoder, each closed `{…}` that holds a "schema" key: a brace in prose pairs with
nothing or fails to decode, and a truncated object never closes. The output is untrusted, so the
search is bounded in size (`MAX_ANSWER_SCAN`), nesting (`MAX_DEPTH`, refused before any
decoding) and time (linear in the text: see `_scan_objects`).

Each entry is validated on its own: a bad entry is rejected with a path-to-error reason
(`directives[2].evidence: missing`) and the good ones are kept. Evidence is verified
mechanically against the messages the reviewer saw (the packet), after Unicode, quote, case and
whitespace folding, on word boundaries, and only in what was said or shown: omp's own framing
(`(tool output: bash; …)`, `[tool request] bash:`, omission markers, `[user #3]` labels) is not
session text. A quote must hold two content words (stopwords and "ok, go on" prove nothing) and
share one with the item it supports (a note's title or body too). A directive's or forget
request's evidence must come from a **user** message, so a rule cannot be smuggled in from tool
output, a web page, or the assistant's own words.
"""

from __future__ import annotations

import json
import unicodedata
from dataclasses import dataclass, field
from typing import Any, Iterable, Literal, Protocol, Sequence

from omp.intents.messages import requests_anywhere
from omp.intents.spoken import sentences, spoken_lines
from omp.lazyre import lazy
from omp.memory import kinds
from omp.memory.items import ItemKind, RejectionCode
from omp.safety.injection import fold_for_matching, injection_reasons
from omp.safety.secrets import redact
from omp.sessions.lines import repair_lone_surrogates
from omp.sessions.provenance import header_label, is_remote_label

SCHEMA = "omp.review.v1"

# Read from the kind table (omp.memory.kinds): the answer's keys in order, the per-review
# limits by section, and the character caps by "kind.field" (and "evidence").
SECTIONS: dict[str, ItemKind] = {spec.section: kind for kind, spec in kinds.KINDS.items()}
LIMITS: dict[str, int] = {spec.section: spec.limit for spec in kinds.KINDS.values()}
EVIDENCE_CHARS = 1000
MAX_CHARS = {**{spec.max_chars_key(f): f.max_chars for spec in kinds.KINDS.values() for f in spec.fields},
             "evidence": EVIDENCE_CHARS}
MIN_EVIDENCE_CHARS = 8

SLUG_RE = lazy(kinds.KEBAB_CASE)


class MessageLike(Protocol):
    @property
    def origin(self) -> str: ...

    @property
    def text(self) -> str: ...


@dataclass(frozen=True)
class Provenance:
    """Where a model note's evidence was found (`EvidenceIndex`): the note gate's input."""

    origins: tuple[str, ...] = ()  # "user", "tool", WEB, "assistant", PASTED
    source: str = ""  # the network tool's label, when the quote is in its output
    sentences: tuple[str, ...] = ()  # the user's sentences the quote was taken from


@dataclass(frozen=True)
class Proposal:
    """One item a review proposes, from the model or from the explicit pass."""

    kind: ItemKind
    where: str  # "directives[0]", or "explicit (user message #12)"
    source: Literal["model", "explicit"]
    evidence: str
    text: str = ""  # directive text, or what a forget request wants forgotten
    title: str = ""
    body: str = ""
    slug: str = ""
    description: str = ""
    provenance: Provenance | None = None  # a model note's (see `_entry`)

    def __post_init__(self) -> None:
        object.__setattr__(self, "kind", ItemKind(self.kind))  # "note" is ItemKind.NOTE

    def texts(self) -> dict[str, str]:
        """Every non-empty text field, by name (what the safety filter scans)."""
        names = ("text", "title", "body", "slug", "description", "evidence")
        return {name: getattr(self, name) for name in names if getattr(self, name)}

    @property
    def subject(self) -> str:
        return str(getattr(self, self.kind.spec.subject))


@dataclass(frozen=True)
class Rejection:
    """An item refused, and why: `code` for the program, `reason` for a person."""

    where: str
    kind: ItemKind
    code: RejectionCode
    reason: str
    source: str = "model"  # "model", "explicit" or "store"

    def to_json(self) -> dict[str, Any]:
        # A store's refusal has always named its kind as the store's result does ("draft").
        kind = self.kind.result_name if self.source == "store" else self.kind.value
        return {"item": self.where, "kind": kind, "reason": self.reason, "source": self.source}


@dataclass(frozen=True)
class FoundAnswer:
    obj: dict[str, Any] | None
    error: str | None


@dataclass
class Validation:
    proposals: list[Proposal] = field(default_factory=list)
    rejected: list[Rejection] = field(default_factory=list)


# ---------------------------------------------------------------------------------------------
# finding the object
#
# Bounded in size, nesting depth and time (docs/behaviour.md#exactly-once-claims-the-retry-queue-and-sweeps): a reviewer's output is untrusted. One
# forward pass pairs the brackets (strings skipped by a regular expression, so a brace inside a
# string is not one); each `{…}` it closes that holds a `"schema"` key is decoded with the
# standard decoder. Outside every object the text is prose: a quote or a `[` there means nothing.
# Nesting deeper than MAX_DEPTH is refused before anything is decoded, so the decoder never
# recurses far; a span that fails to decode makes every span around it fail too, so it is never
# decoded again. Each character is looked at once by the pass and at most MAX_DEPTH times by
# the decoder: linear time, whatever the reviewer wrote.

MAX_DEPTH = 64  # an omp.review.v1 answer nests 3 deep; its prose, a little more
MAX_ANSWER_SCAN = 1_000_000  # characters of reviewer output looked at (an answer is < 100,000)
_OPENING = lazy(r'\{\s*["}]')
# Inside an object: a string (to its closing quote, or to the end when it never closes) or a bracket.
_INNER = lazy(r'(?s)"[^"\\]*(?:\\.[^"\\]*)*"?|[{}\[\]]')
_SCHEMA_KEY = '"schema"'


class AnswerTooDeep(ValueError):
    """The text nests brackets deeper than MAX_DEPTH: refused before any decoding."""


@dataclass
class _Scan:
    answer: dict[str, Any] | None = None
    other_schema: str | None = None
    unclosed: list[int] = field(default_factory=list)  # where the objects left open at the end start


def find_answer(text: str) -> FoundAnswer:
    """The first JSON object in `text` whose `schema` is omp.review.v1, or why there is none."""
    length = len(text)
    text = text[:MAX_ANSWER_SCAN]
    try:
        scan = _scan_objects(text, 0)
        if scan.answer is None and SCHEMA in text:
            # A stray quote in prose inside a brace (`{he said "so}`) flips what the pass takes
            # for a string; the object that holds the first "schema" key, read from its own
            # opening, does not depend on what came before.
            retry = _opening_before(text, text.find(_SCHEMA_KEY))
            if retry is not None:
                again = _scan_objects(text, retry)
                scan.answer = again.answer
    except AnswerTooDeep:
        return FoundAnswer(None, f"answer nests brackets more than {MAX_DEPTH} levels deep: refused")
    if scan.answer is not None:
        # A "\ud800" in the answer would be a text nothing can write or send (omp.sessions.lines).
        return FoundAnswer(repair_lone_surrogates(scan.answer), None)
    last_schema = text.rfind(SCHEMA)
    if last_schema >= 0 and any(start < last_schema and _OPENING.match(text, start) for start in scan.unclosed):
        return FoundAnswer(None, "answer is truncated: the omp.review.v1 object never closes")
    if scan.other_schema is not None:
        return FoundAnswer(None, f"answer has schema {scan.other_schema!r}, expected {SCHEMA!r}")
    if not text.strip():
        return FoundAnswer(None, "answer is empty")
    where = f" (only the first {MAX_ANSWER_SCAN:,} of its {length:,} characters were read)" if length > MAX_ANSWER_SCAN else ""
    return FoundAnswer(None, f"no JSON object with \"schema\": \"{SCHEMA}\" in the answer{where}")


def _opening_before(text: str, at: int) -> int | None:
    """Where the last `{"` (or `{}`) before position `at` opens, or None."""
    if at < 0:
        return None
    start = text.rfind("{", 0, at)
    while start >= 0 and not _OPENING.match(text, start):
        start = text.rfind("{", 0, start)
    return start if start >= 0 else None


def _scan_objects(text: str, pos: int) -> _Scan:
    """One pass from `pos`: decode each closed `{…}` holding a "schema" key, inner first, until one
    is the answer. Raises AnswerTooDeep past MAX_DEPTH open brackets."""
    found = _Scan()
    # The open brackets: (position, is it an object, did something inside fail to decode).
    stack: list[list[Any]] = []
    search = _INNER.search
    while True:
        if not stack:  # prose: only an object's `{` starts anything
            pos = text.find("{", pos)
            if pos < 0:
                return found
            stack.append([pos, True, False])
            pos += 1
            continue
        match = search(text, pos)
        if match is None:
            found.unclosed = [frame[0] for frame in stack if frame[1]]
            return found
        token, pos = match.group(), match.end()
        if token[0] == '"':
            continue
        if token in "{[":
            if len(stack) >= MAX_DEPTH:
                raise AnswerTooDeep(match.start())
            stack.append([match.start(), token == "{", False])
            continue
        start, is_object, broken = stack.pop()
        # A bracket closed by the wrong kind (`[ … }`) is broken JSON, as is what holds it.
        broken = broken or is_object != (token == "}")
        if not broken and is_object and text.find(_SCHEMA_KEY, start, pos) >= 0:
            broken = not _decoded(text[start:pos], found)
            if found.answer is not None:
                return found
        if broken and stack:
            stack[-1][2] = True


def _decoded(span: str, found: _Scan) -> bool:
    """Decode one balanced span (nesting already bounded); note the answer or a foreign schema."""
    try:
        value = json.loads(span)
    except (ValueError, RecursionError):
        return False
    if isinstance(value, dict):
        schema = value.get("schema")
        if schema == SCHEMA:
            found.answer = value
        elif schema is not None and found.other_schema is None:
            found.other_schema = str(schema)[:40]
    return True


def answer_complete(text: str) -> bool:
    """Does `text` already hold a complete answer object? (Watched while the reviewer runs.)"""
    return SCHEMA in text and find_answer(text).obj is not None


# ---------------------------------------------------------------------------------------------
# folding and evidence

_QUOTES = str.maketrans({
    "\u2018": "'", "\u2019": "'", "\u201a": "'", "\u201b": "'",
    "\u201c": '"', "\u201d": '"', "\u201e": '"', "\u201f": '"',
    "\u2013": "-", "\u2014": "-", "\u2212": "-", "\u00a0": " ",
})
_SPACE = lazy(r"\s+")


def fold_for_evidence(text: str) -> str:
    """Unicode (NFKC), typographic quotes, case and whitespace folded away: how a quote is
    compared with what was said (docs/reviewer-answer-schema.md), and explicit requests and eval labels with text."""
    text = unicodedata.normalize("NFKC", text).translate(_QUOTES).casefold()
    return _SPACE.sub(" ", text).strip()


def one_line(text: str) -> str:
    return _SPACE.sub(" ", text).strip()


_WORD = lazy(r"[a-z0-9][a-z0-9_.+#/-]*")
_STOPWORDS = frozenset(
    "the and for are but not you your with this that from have has had was were will would "
    "should could can our ours use uses using always never please remember from now forget "
    "about into onto then than them they their there here what when where which who why how "
    "all any also just like make sure want need must".split()
)


def significant_words(text: str) -> set[str]:
    """Content words, cut to a 5-letter stem so 'commit' and 'committing' meet."""
    words = _WORD.findall(fold_for_evidence(text))
    return {w.strip(".-/")[:5] for w in words if len(w) >= 3 and w not in _STOPWORDS}


# Function words and conversational filler: a quote made only of these ("this is the",
# "ok, go on", "yes please do that") proves nothing about any item.
# (`make` is a build tool far more often than filler.)
_FILLER = (_STOPWORDS - {"make"}) | frozenset(
    "sure its it's is are was were be been being do does did done doing get got let lets let's yes yeah yep "
    "nope okay sure thanks thank fine good great nice cool perfect right correct exactly agree agreed "
    "sounds sound continue proceed keep going go ahead now then too very much more most some such "
    "only own same other each every both few many may might shall one two off out over under again "
    "further once because until while after before above below between through during without within "
    "what's that's there's here's i'm i've i'll you're we're we've don't doesn't didn't can't won't "
    "isn't aren't wasn't weren't hasn't haven't hadn't wouldn't shouldn't couldn't".split()
)
_CJK = lazy(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")
_TOKEN = lazy(r"\w+(?:['.+#/-]\w+)*")


def content_words(text: str) -> set[str]:
    """The words of `text` that carry meaning, stemmed to 5 letters ('commit' meets 'committing').

    Chinese and Japanese runs, written without spaces, count as their character pairs.
    """
    words: set[str] = set()
    for token in _TOKEN.findall(fold_for_evidence(text)):
        runs = _CJK.findall(token)
        if runs:
            for run in runs:
                words.update(run[i : i + 2] for i in range(max(1, len(run) - 1)))
            token = _CJK.sub(" ", token).strip()
            if not token:
                continue
        token = token.strip("'.-/")
        if len(token) >= 3 and token not in _FILLER and not token.isdigit():
            words.add(token[:5])
    return words


# omp's own framing inside a packet message: the tool excerpt's header line, the prefix of a
# tool request summary and the separators between its parts, the omission marker of a cut.
# None of it is session text, so none of it can serve as evidence.
_TOOL_HEADER = lazy(r"^\(tool output[^\n]*\)$")
_OMISSION = lazy(r"^\[… (?:about )?[\d,]+ characters omitted …\]$")  # omp.sessions.lines.omission_marker
_TOOL_REQUEST = "[tool request] "


def session_segments(origin: str, text: str) -> list[str]:
    """The pieces of a packet message that are what was said or shown, without omp's labels."""
    segments: list[str] = []
    current: list[str] = []
    for line in text.split("\n"):
        stripped = line.strip()
        if _TOOL_HEADER.match(stripped) or _OMISSION.match(stripped) or stripped.startswith(_TOOL_REQUEST):
            if current:
                segments.append("\n".join(current))
                current = []
            if stripped.startswith(_TOOL_REQUEST):
                _name, _sep, rest = stripped[len(_TOOL_REQUEST):].partition(": ")
                segments.extend(part for part in rest.split(" | ") if part)
            continue
        current.append(line)
    if current:
        segments.append("\n".join(current))
    return [segment for segment in segments if segment.strip()]


def _on_word_boundaries(quote: str, text: str) -> bool:
    if not quote:  # an empty quote (a user sentence of punctuation only) proves nothing
        return False
    at = text.find(quote)
    while at >= 0:
        end = at + len(quote)
        starts = at == 0 or not (text[at - 1].isalnum() and quote[0].isalnum())
        ends = end == len(text) or not (text[end].isalnum() and quote[-1].isalnum())
        if starts and ends:
            return True
        at = text.find(quote, at + 1)
    return False


# Where a quote can come from. A user message holds two: what the user said ("user") and what
# they pasted into it ("paste": code blocks, quoted lines, a pasted file, log or page; what the
# explicit pass reads as not theirs, `omp.intents.spoken_lines`). A rule quoting only the paste
# is a page's rule, not the user's (docs/reviewer-answer-schema.md).
PASTED = "paste"


# The output of a tool that read the network (a fetched page, `curl …`'s output: its excerpt
# header says so, `omp.sessions.provenance`) is somebody else's text, not the repository's.
WEB = "web"


class EvidenceIndex:
    """The folded session text of the messages the reviewer saw, by origin (labels left out).

    Besides "user", "assistant", "tool" and PASTED, a tool output whose header says it came from
    the network is indexed as WEB, with its label (`source_of`); the user's own sentences are
    kept whole, so that the sentence a quote was taken from can be judged (`sentences_of`).
    """

    def __init__(self, messages: Iterable[MessageLike]) -> None:
        self.by_origin: dict[str, list[str]] = {}
        self.web_labels: list[str] = []  # beside by_origin[WEB], one per text
        self.user_sentences: list[tuple[str, str]] = []  # (folded, as said)
        for message in messages:
            origin = message.origin
            segments = session_segments(origin, message.text)
            label = header_label(message.text.split("\n", 1)[0]) if origin == "tool" else None
            if label is not None and is_remote_label(label):
                origin = WEB
                self.web_labels.extend(label for _ in segments)
            texts = self.by_origin.setdefault(origin, [])
            if origin != "user":
                texts.extend(fold_for_evidence(segment) for segment in segments)
                continue
            # The whole message is what was pasted too: a quote found there and not in the
            # user's own lines is the paste's.
            self.by_origin.setdefault(PASTED, []).extend(fold_for_evidence(segment) for segment in segments)
            for segment in segments:
                said = spoken_lines(segment)
                texts.append(fold_for_evidence("\n".join(said)))
                self.user_sentences.extend((fold_for_evidence(s), s) for line in said for s in sentences(line))

    def origins_of(self, quote: str) -> set[str]:
        folded = fold_for_evidence(quote)
        if not folded:
            return set()
        return {origin for origin, texts in self.by_origin.items() if any(_on_word_boundaries(folded, t) for t in texts)}

    def source_of(self, quote: str) -> str | None:
        """The label of the first network tool output that holds the quote (`web_fetch (https://…)`)."""
        folded = fold_for_evidence(quote)
        texts = self.by_origin.get(WEB, [])
        return next((label for text, label in zip(texts, self.web_labels) if _on_word_boundaries(folded, text)), None)

    def sentences_of(self, quote: str) -> tuple[str, ...]:
        """The user's sentences the quote was taken from: each sentence of the quote, found in
        (or holding) one the user said, as the user said it."""
        found: list[str] = []
        pieces = [fold_for_evidence(piece) for piece in sentences(one_line(quote))] or [fold_for_evidence(quote)]
        for piece in pieces:
            bare = piece.strip(" .!?;:,。！？")
            if not bare:
                continue
            for folded, said in self.user_sentences:
                if (_on_word_boundaries(bare, folded) or _on_word_boundaries(folded.strip(" .!?;:,。！？"), bare)) \
                        and said not in found:
                    found.append(said)
        return tuple(found)


_ORIGIN_NAMES = {"assistant": "the assistant's own words", "tool": "tool output",
                 PASTED: "text pasted into a user message", WEB: "a web page or a network command's output"}
MIN_CONTENT_WORDS = 2


def check_evidence(kind: ItemKind, text: str, evidence: str,
                   index: EvidenceIndex) -> tuple[RejectionCode, str] | None:
    """Why the evidence does not hold up (code and sentence), or None when it does.

    `text` is everything the item says (a note's title and body, a draft's slug, description
    and body): the quote must share a content word with it.
    """
    folded = fold_for_evidence(evidence)
    # A Chinese or Japanese character carries about as much as a short word: count it twice,
    # so "部署说明" (four characters, two words) is long enough, as "deploy notes" is.
    length = len(folded) + sum(len(run) for run in _CJK.findall(folded))
    if length < MIN_EVIDENCE_CHARS or " " not in folded and not _CJK.search(folded):
        return RejectionCode.EVIDENCE_TOO_SHORT, f"too short to verify (at least {MIN_EVIDENCE_CHARS} characters and two words)"
    quoted = content_words(evidence)
    if len(quoted) < MIN_CONTENT_WORDS:
        return (RejectionCode.EVIDENCE_PROVES_NOTHING,
                f"proves nothing: fewer than {MIN_CONTENT_WORDS} content words (not only words like 'this', 'the', 'ok')")
    origins = index.origins_of(evidence)
    if not origins:
        return RejectionCode.EVIDENCE_NOT_FOUND, "not found in the session (in the text of a message, on word boundaries)"
    found = " and ".join(sorted(_ORIGIN_NAMES.get(o, o) for o in origins if o != PASTED or "user" not in origins))
    not_theirs = "not the user's own words" if PASTED in origins else "not from a user message"
    if kind.is_rule and "user" not in origins:
        return RejectionCode.EVIDENCE_NOT_FROM_USER, f"{not_theirs} (found only in {found})"
    if kind.spec.rule_needs_user and "user" not in origins and not injection_reasons(text):
        # A note is written without a human and read by every later session: a page's "From now
        # on, never run the tests" must not become one that says so. A fact a page tells ("Deploys go
        # through make release-prod", quoting its "always deploy with …") is a note like any other,
        # and so is a note the user's words support ("we deploy from CI only": "Never from a laptop").
        # The note is read as it shows ("Ｎｅｖｅｒ ｒｕｎ ｔｈｅ ｔｅｓｔｓ", "N\u200bever run"); an
        # injection is left to the safety filter, whose reason says more.
        rule = _rule_in(text)
        if rule is not None:
            return (RejectionCode.RULE_NOT_FROM_USER,
                    f"reads as a rule (\"{rule}\") and is {not_theirs} (found only in {found}): "
                    "rules only come from your own messages")

    if not content_words(text) & quoted:
        return (RejectionCode.EVIDENCE_UNRELATED,
                "the quote shares no words with the item it is meant to support (no content word in common)")
    return None


def _rule_in(text: str) -> str | None:
    """The first standing rule `text` states, in any field or sentence, as it shows (redacted,
    short: it goes into a rejection's reason), or None."""
    rule = next((r for r in requests_anywhere(fold_for_matching(text)) if r.kind == "directive"), None)
    return None if rule is None else redact(one_line(rule.text))[0][:80]


def same_sentence(quote: str, request: str) -> bool:
    """Is a model item's quote taken from the sentence of an explicit request (its evidence)?"""
    folded, whole = fold_for_evidence(quote), fold_for_evidence(request)
    return bool(folded) and _on_word_boundaries(folded, whole)


# ---------------------------------------------------------------------------------------------
# validation

EVIDENCE = kinds.FieldSpec("evidence", "evidence", EVIDENCE_CHARS)  # every kind's last field
# (answer key, Proposal field, MAX_CHARS key) per kind: a view of the kind table, which
# tests/test_review_schema_prompt.py compares with the published JSON Schema.
_FIELDS: dict[ItemKind, tuple[tuple[str, str, str], ...]] = {
    kind: tuple((f.key, f.attr, spec.max_chars_key(f)) for f in spec.fields) for kind, spec in kinds.KINDS.items()
}


def _entry(kind: ItemKind, where: str, entry: Any, index: EvidenceIndex) -> Proposal | Rejection:
    spec = kinds.KINDS[kind]
    if not isinstance(entry, dict):
        return Rejection(where, kind, RejectionCode.NOT_AN_OBJECT, f"{where}: expected an object, got {type(entry).__name__}")
    values: dict[str, str] = {}
    for fld in (*spec.fields, EVIDENCE):
        key, attr, max_chars = fld.key, fld.attr, fld.max_chars
        raw = entry.get(key)
        if raw is None:
            return Rejection(where, kind, RejectionCode.FIELD_MISSING, f"{where}.{key}: missing")
        if not isinstance(raw, str):
            return Rejection(where, kind, RejectionCode.NOT_A_STRING,
                             f"{where}.{key}: expected a string, got {type(raw).__name__}")
        value = one_line(raw) if fld.one_line else raw.strip()
        if not value:
            return Rejection(where, kind, RejectionCode.EMPTY, f"{where}.{key}: empty")
        if len(value) > max_chars:
            return Rejection(where, kind, RejectionCode.TOO_LONG,
                             f"{where}.{key}: {len(value)} characters, at most {max_chars}")
        values[attr] = value
    for fld in spec.fields:
        if fld.kebab and not SLUG_RE.match(values[fld.attr]):
            return Rejection(where, kind, RejectionCode.BAD_SLUG,
                             f"{where}.{fld.key}: {values[fld.attr]!r} is not kebab-case (a-z, 0-9, single dashes)")
    # One field per line: each is read on its own for a rule in a note (`check_evidence`).
    claimed = "\n".join(values[name] for name in ("text", "title", "body", "slug", "description") if name in values)
    # A kebab-case field's words are separated by dashes (the evidence check reads words).
    claimed = claimed.replace("-", " ") if any(fld.kebab for fld in spec.fields) else claimed
    problem = check_evidence(kind, claimed, values["evidence"], index)
    if problem:
        code, reason = problem
        return Rejection(where, kind, code, f"{where}.evidence: {reason}")
    provenance = None
    if spec.keeps_provenance:
        quote = values["evidence"]
        origins = index.origins_of(quote)
        provenance = Provenance(tuple(sorted(origins)), index.source_of(quote) or "" if WEB in origins else "",
                                index.sentences_of(quote) if "user" in origins else ())
    return Proposal(kind=kind, where=where, source="model", provenance=provenance, **values)


def validate(answer: dict[str, Any], messages: Sequence[MessageLike]) -> Validation:
    """Check every entry of an omp.review.v1 object on its own against the reviewed messages."""
    result = Validation()
    index = EvidenceIndex(messages)
    for kind, spec in kinds.KINDS.items():
        section = spec.section
        entries = answer.get(section, [])
        if entries is None:
            continue
        if not isinstance(entries, list):
            result.rejected.append(Rejection(section, kind, RejectionCode.NOT_A_LIST,
                                             f"{section}: expected a list, got {type(entries).__name__}"))
            continue
        limit = spec.limit
        for position, entry in enumerate(entries):
            where = f"{section}[{position}]"
            if position >= limit:
                result.rejected.append(Rejection(where, kind, RejectionCode.OVER_LIMIT,
                                                 f"{where}: over the limit of {limit} per review"))
                continue
            checked = _entry(kind, where, entry, index)
            if isinstance(checked, Proposal):
                result.proposals.append(checked)
            else:
                result.rejected.append(checked)
    return result
