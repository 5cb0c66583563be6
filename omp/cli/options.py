"""Option decorators and argument types shared by several commands.

Every number the CLI takes is bounded here (docs/reference/config.md: days ≤ 36500, and counts and item numbers
no person would exceed), so a value such as `--days 100000000000` is a usage error (exit 2,
nothing changed) instead of an overflow deep in the library.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any, Callable

import click

from omp.config import MAX_DAYS
from omp.paths import ProjectPaths

F = Callable[..., Any]

MAX_COUNT = 1_000_000  # a number of notes or sessions (`--keep`, `--limit`)
MAX_INDEX = 1_000_000  # an item's number in a list (`promote-directive N`)
_MAX_NUMBER_TEXT = 40  # longer input is refused before int() or float() sees it


class Bounded(click.ParamType):
    """A whole number (or, with `fraction`, a finite decimal one) from `low` to `high`.

    The error names the accepted range and the unit, so the fix is in the message:
    `--older-than: 10000000000 days is out of range: give a whole number from 0 to 36500`.
    """

    def __init__(self, low: float, high: float, unit: str = "", *, fraction: bool = False,
                 low_open: bool = False) -> None:
        self.low, self.high, self.unit = low, high, unit
        self.fraction, self.low_open = fraction, low_open
        self.name = "number" if fraction else "integer"

    def _accepts(self) -> str:
        kind = "a number" if self.fraction else "a whole number"
        span = f"above {_plain(self.low)}, up to" if self.low_open else f"from {_plain(self.low)} to"
        return f"{kind} {span} {_plain(self.high)}" + (f" ({self.unit})" if self.unit else "")

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            number: float = value
        else:
            text = str(value).strip()
            try:
                if len(text) > _MAX_NUMBER_TEXT:
                    raise ValueError("too long")
                number = float(text) if self.fraction else int(text, 10)
            except ValueError:
                self.fail(f"{value!r} is not a number: give {self._accepts()}", param, ctx)
        too_low = number <= self.low if self.low_open else number < self.low
        if not math.isfinite(number) or too_low or number > self.high:
            self.fail(f"{value} is out of range: give {self._accepts()}", param, ctx)
        return number


def _plain(number: float) -> str:
    return f"{number:g}" if number != int(number) else str(int(number))


def days_type(*, fraction: bool = False) -> Bounded:
    """A number of days: 0 to 36500 (docs/reference/config.md); with `fraction`, more than 0 and may be 0.5."""
    return Bounded(0, MAX_DAYS, "days", fraction=fraction, low_open=fraction)


COUNT = Bounded(0, MAX_COUNT)
POSITIVE_COUNT = Bounded(1, MAX_COUNT)
INDEX = Bounded(1, MAX_INDEX, "an item's number as the list shows it")


def root_option(func: F) -> F:
    return click.option(
        "--root",
        type=click.Path(file_okay=False, path_type=Path),
        default=None,
        help="Project folder (default: the nearest folder above the working directory with .git).",
    )(func)


def json_option(func: F) -> F:
    return click.option("--json", "as_json", is_flag=True, help="Print JSON instead of text.")(func)


def project_paths(root: Path | None) -> ProjectPaths:
    return ProjectPaths.discover(root)
