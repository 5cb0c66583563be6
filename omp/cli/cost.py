"""`omp cost [--session ID] [--days N] [--json]` (docs/reference/commands.md#omp-cost)."""

from __future__ import annotations

from pathlib import Path

import click

from omp.cli.options import days_type, json_option, project_paths, root_option
from omp.cli.render import echo_json
from omp.ledger import CostSummary, Totals, cost_summary
from omp.paths import check_session_id


def _line(label: str, totals: Totals) -> str:
    premium = f", {totals.premium_requests:g} premium requests" if totals.premium_requests else ""
    return (
        f"  {label:<24} {totals.calls} call(s), {len(totals.sessions)} session(s), "
        f"{totals.in_tokens} in / {totals.out_tokens} out tokens{premium}"
    )


def _render(summary: CostSummary) -> None:
    scope = []
    if summary.session:
        scope.append(f"session {summary.session}")
    if summary.since:
        scope.append(f"since {summary.since}")
    click.echo("reviewer calls" + (f" ({', '.join(scope)})" if scope else "") + ":")
    click.echo(_line("total", summary.total))
    if not summary.total.calls:
        return
    click.echo("by model:")
    for name, totals in sorted(summary.by_model.items()):
        click.echo(_line(name, totals))
    click.echo("by outcome:")
    for name, totals in sorted(summary.by_outcome.items()):
        click.echo(_line(name, totals))
    if "estimate" in summary.tokenizers:
        click.echo(
            f"note: {summary.tokenizers['estimate']} record(s) counted tokens with a byte-based "
            "estimate (tiktoken's encoding was not available)"
        )


@click.command("cost")
@click.option("--session", "session", default=None, help="Only this session's reviewer calls (full id).")
@click.option("--days", type=days_type(fraction=True), default=None, metavar="DAYS",
              help="Only calls from the last N days.")
@json_option
@root_option
def cli(session: str | None, days: float | None, as_json: bool, root: Path | None) -> None:
    """Sum the reviewer calls in the cost ledger, by model and by outcome."""
    if session is not None:
        check_session_id(session)
    summary = cost_summary(project_paths(root), session=session, days=days)
    if as_json:
        echo_json(summary.to_json())
    else:
        _render(summary)
