"""`omp eval [--reviewer NAME] [--model M] [--corpus PATH|NAME] [--sample N] [--category C] [--yes] [--json]`
(docs/explicit-requests-and-eval.md#omp-eval--how-good-is-a-reviewer)."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

import click

from omp.cli.options import json_option
from omp.cli.render import echo_json
from omp.errors import UsageError
from omp.evaluate import CaseResult, load_corpus, plan_reviewer, report_lines, reviewer_calls, run_eval, select_cases
from omp.review import backends

if TYPE_CHECKING:
    from click._termui_impl import ProgressBar


@click.command("eval")
@click.option("--reviewer", type=click.Choice(backends.NAMES), default=None,
              help="Reviewer backend to score (default: memory-reviewer).")
@click.option("--model", default=None, help="Reviewer model (default: memory-review-model).")
@click.option("--corpus", default=None, metavar="PATH|NAME",
              help="A .jsonl corpus file, a folder of them, or a corpus omp ships: bundled (the default: "
                   "sessions written for omp), real-dev or real-heldout (real developer conversations, "
                   "labelled by hand; the held-out part is never tuned on).")
@click.option("--sample", type=click.IntRange(min=1), default=None, metavar="N",
              help="Run N cases: a fixed subset stratified by category (every category while N allows, "
                   "the rest in proportion to size), evenly spaced through each; the same N gives the same cases.")
@click.option("--category", default=None, metavar="C", help="Run only the cases of category C.")
@click.option("--yes", "-y", "assume_yes", is_flag=True,
              help="Agree in advance to the reviewer calls of a reviewer that costs money.")
@json_option
def cli(reviewer: str | None, model: str | None, corpus: str | None, sample: int | None, category: str | None,
        assume_yes: bool, as_json: bool) -> int:
    """Score a reviewer on a labelled corpus of sessions, in throwaway folders.

    Every case runs the whole review pipeline (explicit pass, reviewer, validation, safety
    filters, dedupe) in its own temporary project and homes; your project is never touched, and
    a Copilot reviewer's own sessions are removed from your Copilot history. Prints per
    category: requests recalled, rules wrongly proposed, notes written without a human where
    none was expected, secrets and injections stopped, tokens and time spent.

    A reviewer that costs money (copilot; openai at a server that is not on this machine) is
    called only once you agree: eval says how many calls it will make and asks, or needs --yes
    when stdin is not a terminal.
    """
    cases, names = load_corpus(corpus)
    cases = select_cases(cases, category, sample)
    plan = plan_reviewer(reviewer)
    if plan.costs_money and not assume_yes and not _agreed(plan.describe(model), reviewer_calls(cases, plan.backend),
                                                            len(cases)):
        click.echo("omp eval: nothing was run; no reviewer was called.", err=True)
        return 1

    def shown(result: CaseResult | None) -> str | None:
        return result.case.id if result is not None else None

    bar: ProgressBar[CaseResult | None]
    with click.progressbar(length=len(cases), label="omp eval", file=sys.stderr, item_show_func=shown,
                           show_pos=True) as bar:
        report = run_eval(cases, names, reviewer=plan.backend, model=model, on_case=lambda r: bar.update(1, r))
    if as_json:
        echo_json(report.to_json())
    else:
        for line in report_lines(report):
            click.echo(line)
    return 0


def _agreed(reviewer: str, calls: int, cases: int) -> bool:
    """Ask before a reviewer that costs money is called (docs/explicit-requests-and-eval.md#omp-eval--how-good-is-a-reviewer); refuse when nobody can answer."""
    if calls == 0:
        return True  # every case is too short for a model call: nothing to pay for
    what = f"{calls} reviewer call(s) to {reviewer} ({cases} case(s)), which may cost money"
    if not sys.stdin.isatty():
        raise UsageError(f"omp eval would make {what}, and stdin is not a terminal to ask",
                         "agree with --yes, or run fewer with --sample N (or --category C)")
    # The question goes to stderr: with --json, stdout holds the report only.
    return click.confirm(f"omp eval will make {what}. Go on?", default=False, err=True)
