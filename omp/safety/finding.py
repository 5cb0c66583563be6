"""A secret found in a text: its kind and its span (`omp.safety.secrets` finds them)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class SecretFinding:
    kind: str  # short label used in markers: "github-token", "aws-access-key", "private-key", …
    start: int  # offsets into the scanned text
    end: int
