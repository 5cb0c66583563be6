"""The item kinds are defined once (omp.memory.kinds.KINDS): the validator, the prompt, the
summary and the report read that table, so a changed or added entry reaches all of them, and no
module keeps a parallel table of kinds of its own."""

from __future__ import annotations

import dataclasses

import ast
import json
from dataclasses import dataclass
from pathlib import Path

import pytest

from omp.memory import kinds
from omp.memory.items import ItemResult
from omp.memory.kinds import KINDS, Code, FieldSpec, ItemKind, KindSpec
from omp.review import answer as answer_module
from omp.review.answer import Proposal, validate
from omp.review.schema import answer_schema
from omp.review.outcome import ReviewOutcome, ReviewSummary
from omp.review.prompt import FIXED_PART, render_fixed_part
from omp.review.report import outcome_lines, progress_line

OMP = Path(__file__).resolve().parent.parent / "omp"


@dataclass
class Msg:
    origin: str
    text: str
    seq: int = 0


class _Extra(Code):
    """A kind that does not exist: what a contributor adds to ItemKind next."""

    RECIPE = "recipe"


RECIPE = KindSpec(
    _Extra.RECIPE, "recipes", (FieldSpec("name", "title", 50), FieldSpec("steps", "body", 900, one_line=False)),  # type: ignore[arg-type]
    limit=3, gate="direct", store="notes", subject="title", result_name="recipe",
    prompt="step-by-step recipes the user cooked. Name at most {recipe_name_chars} characters.",
    limit_words="{limit} recipes", evidence_example="the user's words", summary_rank=4,
    written_line="recipe written: {ref} ({text})", progress_label="recipe(s)",
)


def _summary(*items: ItemResult) -> ReviewSummary:
    return ReviewSummary(items=items, explicit=0, proposed_by_model=len(items), secrets_rejected=0,
                         pruned_notes=0, messages=2, cursor_from=0, cursor_to=2)


def test_every_kind_has_exactly_one_consistent_entry() -> None:
    assert set(KINDS) == set(ItemKind) and all(spec.kind is kind for kind, spec in KINDS.items())
    assert len({spec.section for spec in KINDS.values()}) == len(KINDS)
    assert sorted(spec.summary_rank for spec in KINDS.values()) == list(range(len(KINDS)))
    proposal_fields = {f.name for f in dataclasses.fields(Proposal)}
    for spec in KINDS.values():
        assert {f.attr for f in spec.fields} <= proposal_fields, spec.kind
        assert spec.subject in {f.attr for f in spec.fields}, spec.kind
        assert (spec.gate == "pending") == (spec.store == "pending") == (spec.pending_kind is not None), spec.kind
    # the validator's published constants are views of the table
    assert answer_module.LIMITS == {spec.section: spec.limit for spec in KINDS.values()}
    assert list(answer_module.SECTIONS) == [spec.section for spec in KINDS.values()]


def test_a_changed_entry_reaches_the_validator(monkeypatch: pytest.MonkeyPatch) -> None:
    note = KINDS[ItemKind.NOTE]
    title = dataclasses.replace(note.fields[0], max_chars=20)
    facts = dataclasses.replace(note, section="facts", limit=1, fields=(title, *note.fields[1:]))
    monkeypatch.setattr(kinds, "KINDS", {**KINDS, ItemKind.NOTE: facts})
    session = [Msg("user", "the integration tests need the EXAMPLE_FIXTURES variable set first", 1)]
    entry = {"title": "Tests need fixtures", "body": "Set EXAMPLE_FIXTURES.",
             "evidence": "the integration tests need the EXAMPLE_FIXTURES variable"}
    long_title = {**entry, "title": "Integration tests need EXAMPLE_FIXTURES set"}
    result = validate({"schema": "omp.review.v1", "notes": [entry], "facts": [long_title, entry]}, session)
    reasons = [r.reason for r in result.rejected]
    assert [p.title for p in result.proposals] == [], reasons  # "notes" is no section any more
    assert reasons == ["facts[0].title: 43 characters, at most 20", "facts[1]: over the limit of 1 per review"]
    result = validate({"schema": "omp.review.v1", "facts": [entry]}, session)
    assert [p.title for p in result.proposals] == ["Tests need fixtures"] and not result.rejected


def test_a_new_kind_reaches_the_prompt() -> None:
    text = render_fixed_part({**KINDS, _Extra.RECIPE: RECIPE})  # type: ignore[dict-item]
    assert "Propose five kinds of item" in text and "Propose four kinds of item" in FIXED_PART
    assert '- "recipes": step-by-step recipes the user cooked. Name at most 50 characters.' in text
    assert "at most 5 directives, 8 notes, 2 skill drafts, 5 forget requests, 3 recipes." in text
    assert ' "recipes":      [{"name": "...", "steps": "...", "evidence": "the user\'s words"}]}' in text
    assert text.replace(',\n "recipes"', "").count('"recipes"') == 1  # the other kinds are unchanged
    assert text.split("Propose five")[0] == FIXED_PART.split("Propose four")[0]


def test_a_new_kind_reaches_the_summary_and_the_report(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(kinds, "KINDS", {**KINDS, _Extra.RECIPE: RECIPE})
    summary = _summary(ItemResult(_Extra.RECIPE, "Pasta al limone", "written", ref="pasta"),  # type: ignore[arg-type]
                       ItemResult(ItemKind.NOTE, "Tests need fixtures", "written", ref="n1"))
    counts = summary.to_json(items=False)
    assert list(counts)[:5] == ["notes", "directives", "forget", "skill_drafts", "recipes"]
    assert counts["recipes"] == 1 and counts["notes"] == 1
    outcome = ReviewOutcome(ran=True, reason=None, session="s1", summary=summary)
    lines = outcome_lines(outcome)
    assert lines.index("  note written: n1 — Tests need fixtures") < lines.index("  recipe written: pasta (Pasta al limone)")
    assert progress_line(outcome) == "  s1: reviewed — 1 note(s), 1 recipe(s)"


def test_the_shipped_json_schema_is_the_tables() -> None:
    """omp/data/omp.review.v1.schema.json is written from the table (the command is in
    docs/reviewer-answer-schema.md, "Adding an item kind"); a kind changed in one and not the
    other fails here."""
    shipped = (OMP / "data" / "omp.review.v1.schema.json").read_text(encoding="utf-8")
    assert shipped == json.dumps(answer_schema(), indent=2, ensure_ascii=False) + "\n"


def test_a_new_kind_reaches_the_json_schema(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(kinds, "KINDS", {**KINDS, _Extra.RECIPE: RECIPE})
    schema = answer_schema()
    assert schema["required"][-1] == "recipes"
    recipes = schema["properties"]["recipes"]
    assert recipes["maxItems"] == 3 and recipes["items"]["required"] == ["name", "steps", "evidence"]
    assert recipes["items"]["properties"]["name"]["maxLength"] == 50


# ---------------------------------------------------------------------------------------------
# the contract: nothing outside the table keeps a table of kinds

# The places that must read the table and name no kind of their own.
_READERS = ("review/answer.py", "review/prompt.py", "review/report.py", "review/outcome.py",
            "review/note_gate.py", "review/pipeline.py")


def _members(node: ast.AST) -> list[str]:
    return [f"ItemKind.{n.attr}" for n in ast.walk(node)
            if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == "ItemKind"
            and n.attr.isupper()]


def _parallel_tables(tree: ast.AST) -> list[str]:
    """Dict literals keyed by kinds, and literal sequences of two or more kinds."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Dict):
            keys = [k for k in node.keys if k is not None and _members(k)]
            if keys:
                found.append(f"line {node.lineno}: a dict keyed by {_members(keys[0])[0]}")
        elif isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            members = [m for element in node.elts for m in _members(element)]
            if len(members) >= 2:
                found.append(f"line {node.lineno}: a sequence of kinds {members}")
    return found


def test_no_module_keeps_a_parallel_table_of_kinds() -> None:
    problems = []
    for path in sorted(OMP.rglob("*.py")):
        if path == OMP / "memory" / "kinds.py":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        problems += [f"{path.relative_to(OMP)} {p}" for p in _parallel_tables(tree)]
        if str(path.relative_to(OMP)) in _READERS:
            problems += [f"{path.relative_to(OMP)} names {m}" for m in sorted(set(_members(tree)))]
    assert not problems, "read omp.memory.kinds.KINDS instead:\n" + "\n".join(problems)


def test_the_contract_check_sees_a_parallel_table() -> None:
    table = ast.parse('LABELS = {ItemKind.NOTE: "note(s)"}\nORDER = (ItemKind.NOTE, ItemKind.FORGET)\n')
    assert len(_parallel_tables(table)) == 2
