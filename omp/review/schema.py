"""omp.review.v1's JSON Schema, written from the kind table (omp.memory.kinds).

omp/data/omp.review.v1.schema.json is `answer_schema()` written out (docs/reviewer-answer-schema.md
has the command; tests/test_item_kinds.py keeps the two equal). The `openai` backend sends the
shipped file; omp's own validator (omp.review.answer) checks every answer either way.
"""

from __future__ import annotations

from typing import Any

from omp.memory import kinds
from omp.review.answer import EVIDENCE, MIN_EVIDENCE_CHARS, SCHEMA

_SCHEMA_DESCRIPTION = ("The answer of omp's reviewer: what one finished Copilot session leaves for future sessions. "
                       "omp re-checks every limit here and verifies each evidence quote against the session.")


def _schema_field(fld: kinds.FieldSpec, minimum: int, description: str) -> dict[str, Any]:
    value: dict[str, Any] = {"type": "string", "minLength": minimum, "maxLength": fld.max_chars,
                             "description": description}
    return value | ({"pattern": kinds.KEBAB_CASE} if fld.kebab else {})


def answer_schema() -> dict[str, Any]:
    """omp.review.v1's JSON Schema, from the kind table: what the shipped file holds
    (tests/test_item_kinds.py compares them)."""
    sections: dict[str, Any] = {}
    for spec in kinds.KINDS.values():
        quote = ("Words copied exactly from a user message." if spec.gate == "pending" else
                 "Words copied exactly from one message of the transcript (no [user #N] label).")
        fields = {f.key: _schema_field(f, 1, f.description) for f in spec.fields}
        fields["evidence"] = _schema_field(EVIDENCE, MIN_EVIDENCE_CHARS, quote)
        sections[spec.section] = {
            "type": "array", "maxItems": spec.limit, "description": spec.schema_description,
            "items": {"type": "object", "additionalProperties": False, "required": list(fields), "properties": fields},
        }
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema", "title": SCHEMA, "description": _SCHEMA_DESCRIPTION,
        "type": "object", "additionalProperties": False, "required": ["schema", *sections],
        "properties": {"schema": {"type": "string", "enum": [SCHEMA]}, **sections},
    }
