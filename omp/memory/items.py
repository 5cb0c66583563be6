"""What a review proposes and the stores answer: one vocabulary from the parsed answer to the
summary (STYLE.md, "Outcomes are data").

- `ItemKind`: the four kinds of item (defined with their spec table in omp.memory.kinds),
  from the answer's sections to the stores' results, the summary's counts and the journal. Its value is the word `--json` and the review log write.
- `RejectionCode`: why an item was refused, as a stable code (pipx's error codes are the
  model). The sentence that goes with it is for people; control flow reads the code.
- The proposal types a store accepts (`NoteProposal`, `DirectiveProposal`, `DraftProposal`),
  the `ItemResult` it returns for each, and `KnownItems`, what memory already holds.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

# Re-exported: callers import them from here.
from omp.memory.kinds import Code as Code
from omp.memory.kinds import ItemKind as ItemKind

Status = Literal["written", "proposed", "duplicate", "rejected"]  # "proposed": a note queued for a human


class RejectionCode(Code):
    """Why an item was refused. Stable: tests pin the set (tests/test_outcome_codes.py)."""

    # the answer's shape (docs/reviewer-answer-schema.md)
    NOT_A_LIST = "not-a-list"
    NOT_AN_OBJECT = "not-an-object"
    FIELD_MISSING = "field-missing"
    NOT_A_STRING = "not-a-string"
    EMPTY = "empty"
    TOO_LONG = "too-long"
    BAD_SLUG = "bad-slug"
    OVER_LIMIT = "over-limit"
    # the evidence (docs/reviewer-answer-schema.md)
    EVIDENCE_TOO_SHORT = "evidence-too-short"
    EVIDENCE_PROVES_NOTHING = "evidence-proves-nothing"
    EVIDENCE_NOT_FOUND = "evidence-not-found"
    EVIDENCE_NOT_FROM_USER = "evidence-not-from-user"
    EVIDENCE_UNRELATED = "evidence-unrelated"
    # the explicit pass
    RULE_NOT_FROM_USER = "rule-not-from-user"
    EXPLICIT_WINS = "explicit-wins"
    NOT_STANDING = "not-standing"  # an uncertain explicit request the model reviewer judged no standing rule
    # safety (docs/safety.md)
    SECRET = "secret"
    INJECTION = "injection"
    # the note gate: a note applied without a human is an inert fact (docs/behaviour.md#what-gets-written)
    NOTE_READS_AS_RULE = "note-reads-as-rule"
    NOTE_HOLDS_COMMAND = "note-holds-command"
    NOTE_EVIDENCE_NOT_A_STATEMENT = "note-evidence-not-a-statement"


# ---------------------------------------------------------------------------------------------
# what a store accepts, and what it answers


@dataclass(frozen=True)
class NoteProposal:
    title: str
    body: str = ""
    session: str | None = None
    evidence: str | None = None
    source: str | None = None  # where a proposed (not applied) note came from: "from a web page (…)"


@dataclass(frozen=True)
class DirectiveProposal:
    text: str  # for ItemKind.FORGET: what to forget
    session: str | None = None
    evidence: str | None = None
    kind: ItemKind = ItemKind.DIRECTIVE  # DIRECTIVE or FORGET

    def __post_init__(self) -> None:
        if ItemKind(self.kind).spec.store != "pending":  # what the pending queue takes
            raise ValueError(f"a directive proposal is a directive or a forget request, not {self.kind!r}")
        object.__setattr__(self, "kind", ItemKind(self.kind))  # a frozen dataclass coerces in __post_init__ so


@dataclass(frozen=True)
class DraftProposal:
    slug: str
    description: str
    body: str
    session: str | None = None
    evidence: str | None = None


@dataclass(frozen=True)
class ItemResult:
    kind: ItemKind
    text: str  # the text as stored (or as it would have been stored)
    status: Status
    reason: str | None = None  # why it was rejected, or what it duplicates
    ref: str | None = None  # note id, draft slug
    path: str | None = None  # the file written, relative to the project root
    code: RejectionCode | None = None  # why it was rejected, as a code

    @property
    def written(self) -> bool:
        return self.status == "written"

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"kind": self.kind.result_name, "text": self.text, "status": self.status}
        for name in ("reason", "ref", "path"):
            value = getattr(self, name)
            if value is not None:
                data[name] = value
        return data


@dataclass(frozen=True)
class KnownItems:
    """What memory already holds: for dedupe, and to list in the review prompt."""

    directives: tuple[str, ...]
    global_directives: tuple[str, ...]
    pending: tuple[str, ...]  # checklist labels ("FORGET: x" for removal proposals)
    notes: tuple[tuple[str, str], ...]  # (id, title), newest first
    drafts: tuple[str, ...]  # slugs
    tombstones: tuple[str, ...]  # dismissed / expired texts ("FORGET: x" for removal proposals)
