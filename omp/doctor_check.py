"""One line of `omp doctor`'s report: a check's name, status, what it found and its fix."""

from __future__ import annotations

from typing import Literal

from msgspec import Struct

Status = Literal["ok", "info", "warn", "fail"]


class Check(Struct, frozen=True):
    name: str
    status: Status
    detail: str
    fix: str | None = None
