"""`omp eval [--reviewer NAME] [--model M] [--corpus PATH] [--json]` (SPEC §14)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from omp.cli.options import json_option
from omp.cli.render import echo_json

from omp.evaluate import CaseResult, load_corpus, report_lines, run_eval
from omp.review import backends

if TYPE_CHECKING:
    from click._termui_impl import ProgressBar


@click.command("eval")
@click.option("--reviewer", type=click.Choice(backends.NAMES), default=None,
              help="Reviewer backend to score (default: memory-reviewer).")
@click.option("--model", default=None, help="Reviewer model (default: memory-review-model).")
@click.option("--corpus", type=click.Path(exists=True, path_type=Path), default=None,
              help="A .jsonl corpus file or a folder of them (default: the bundled corpus).")
@json_option
def cli(reviewer: str | None, model: str | None, corpus: Path | None, as_json: bool) -> int:
    """Score a reviewer on a labelled corpus of sessions, in throwaway folders.

    Every case runs the whole review pipeline (explicit pass, reviewer, validation, safety
    filters, dedupe) in its own temporary project and homes; your project and homes are never
    touched. Prints per category: requests recalled, rules wrongly proposed, notes written
    without a human where none was expected, secrets and injections stopped, tokens and time spent.
    """
    cases, names = load_corpus(corpus)

    def shown(result: CaseResult | None) -> str | None:
        return result.case.id if result is not None else None

    bar: ProgressBar[CaseResult | None]
    with click.progressbar(length=len(cases), label="omp eval", file=sys.stderr, item_show_func=shown) as bar:
        report = run_eval(cases, names, reviewer=reviewer, model=model, on_case=lambda r: bar.update(1, r))
    if as_json:
        echo_json(report.to_json())
    else:
        for line in report_lines(report):
            click.echo(line)
    return 0
