"""`omp memory-review` (docs/behaviour.md#the-review-run): review a session, sweep the project, preview, or undo.

- `omp memory-review [--session ID|latest] [--model M] [--reviewer NAME] [--force] [--json]`
  runs the review (`omp.review.pipeline`);
- `--sweep [--limit N] [--force]` reviews every unreviewed or due queued session;
- `--dry-run` shows the packet a review would send and writes nothing (`omp.review.preview`);
- `omp memory-review undo SESSION` takes back, item by item, what that session's reviews added.
"""

from __future__ import annotations

from pathlib import Path

import click

from omp.cli.options import POSITIVE_COUNT, json_option, project_paths, root_option
from omp.cli.render import echo_json
from omp.copilot_history import forget_reviewer_sessions
from omp.errors import UsageError
from omp.paths import GlobalPaths
from omp.review import backends, report
from omp.review.command import run_review
from omp.review.outcome import ReviewRequest
from omp.review.preview import Preview, preview

# Every review runs this module (a typed `omp memory-review` and the one each session end
# detaches): the sweep and undo are imported by the commands that use them (3.9 and 6.0 ms in a
# fresh process); the preview adds 0.6 ms, and the history clean-up's module the review loads anyway.



@click.group("memory-review", invoke_without_command=True)
@click.option("--session", "session", default="latest", show_default=True,
              help="Session to review: a full id, a unique prefix (7+ characters), or latest.")
@root_option
@click.option("--model", default=None, help="Reviewer model (default: memory-review-model).")
@click.option("--reviewer", type=click.Choice(backends.NAMES), default=None,
              help="Reviewer backend (default: memory-reviewer).")
@click.option("--dry-run", is_flag=True,
              help="Show the redacted, token-budgeted packet the reviewer would get; write nothing.")
@click.option("--force", is_flag=True,
              help="Review again from the start even if reviewed before, and retry a queued session now "
                   "(with --sweep: only retry queued sessions now).")
@click.option("--sweep", is_flag=True,
              help="Review queued sessions, then this project's unreviewed ones since memory mode was turned on.")
@click.option("--limit", type=POSITIVE_COUNT, default=None, metavar="N", help="With --sweep: at most N sessions.")
@click.option("--all", "include_older", is_flag=True,
              help="With --sweep: also sessions that ended before memory mode was turned on.")
@json_option
@click.pass_context
def cli(ctx: click.Context, session: str, root: Path | None, model: str | None, reviewer: str | None,
        dry_run: bool, force: bool, sweep: bool, limit: int | None, include_older: bool,
        as_json: bool) -> int | None:
    """Review a finished Copilot session and keep what is worth remembering.

    Exit status: 0 reviewed or skipped by policy, 1 the review failed (it is queued for retry
    when the reviewer was unavailable), 2 usage error, 3 a bug in omp (see the crash log it names).
    """
    if ctx.invoked_subcommand is not None:
        return None
    if limit is not None and not sweep:
        raise UsageError("--limit only applies to --sweep", "pass --sweep --limit N")
    if include_older and not sweep:
        raise UsageError("--all only applies to --sweep", "pass --sweep --all")
    if not dry_run:
        code = _run(root=root, session=None if sweep else session, model=model, reviewer=reviewer,
                            force=force, as_json=as_json, sweep_all=sweep, limit=limit,
                            include_older=include_older)
        ctx.exit(code)
    if sweep:
        raise UsageError("--dry-run previews one session; it does not combine with --sweep",
                         "pass --session ID|latest instead")
    result = preview(session, project_paths(root), force=force)
    if as_json:
        echo_json(result.to_dict())
    else:
        _render(result)
    return None


def _counts(counter: dict[str, int]) -> str:
    shown = [f"{name} {count}" for name, count in counter.items() if count]
    return ", ".join(shown) if shown else "none"


def _render(result: Preview) -> None:
    packet, stats = result.packet, result.packet.stats
    data = stats.to_dict()
    click.echo("dry run: nothing was written and no reviewer was called")
    click.echo(f"session:    {result.session.id}" + ("  (a reviewer's own session)" if result.session.is_reviewer else ""))
    where = " (where the last review stopped)" if result.resumed else ""
    click.echo(f"read:       {result.session.events} from byte {packet.cursor:,}{where} to {packet.end_offset:,}")
    click.echo(
        f"tokens:     {packet.tokens:,} of {packet.budget:,} for the transcript (tokenizer: {packet.tokenizer}); "
        f"memory-review-max-input-tokens {result.max_input_tokens:,}, {result.prompt_reserve:,} kept for the prompt"
    )
    kept = ", ".join(f"{origin} {data['kept'][origin]}/{data['seen'][origin]}" for origin in data["seen"])
    click.echo(f"messages:   kept {kept}")
    click.echo(f"trimmed:    {_counts(data['trimmed'])} (long messages keep their head and tail)")
    click.echo(f"dropped:    {_counts(data['dropped'])} (over budget: user › assistant › tool, newest first)")
    redacted = ", ".join(f"{kind} ×{count}" for kind, count in data["redactions"].items())
    click.echo(f"redacted:   {redacted or 'nothing'}")
    extra = ", last line incomplete (left for later)" if data["partial_tail"] else ""
    click.echo(f"skipped:    {data['skipped_events']:,} events without conversation, {data['bad_lines']:,} bad lines{extra}")
    for kind, text, _evidence in result.explicit:
        click.echo(f"explicit:   {'FORGET: ' if kind == 'forget' else ''}{text} (the user's own request; proposed without a model)")
    if result.model_skipped:
        click.echo(f"model:      {result.model_skipped}")
    click.echo("----- packet -----")
    click.echo(packet.text if packet.text else "(empty: no messages after the cursor)")
    click.echo("----- end of packet -----")


@cli.command("undo")
@click.argument("session_id", metavar="SESSION")
@click.option("--force", is_flag=True,
              help="Also remove notes and drafts of that review edited by hand since (never other items).")
@root_option
@json_option
def undo_cmd(session_id: str, force: bool, root: Path | None, as_json: bool) -> None:
    """Take back, item by item, what the review(s) of SESSION added (a full id or 7+ characters).

    Other reviews' items and human decisions are kept: a dismissed item stays dismissed, a
    promoted one is reported and left alone.
    """
    _undo(root=root, session=session_id, force=force, as_json=as_json)


@cli.command("clean-history")
@json_option
def clean_history_cmd(as_json: bool) -> None:
    """Remove reviewer sessions an earlier omp left in Copilot's history (--continue, /resume)."""
    where = GlobalPaths.current()
    removed = forget_reviewer_sessions(where.copilot, where.home)
    if as_json:
        echo_json({"removed": [f.session for f in removed if f.store_error is None],
                   "errors": {f.session: f.store_error for f in removed if f.store_error}})
        return
    ok = [f for f in removed if f.store_error is None]
    click.echo(f"removed {len(ok)} reviewer session(s) from {where.copilot}")
    for failed in (f for f in removed if f.store_error):
        click.echo(f"omp: warning: {failed.session}: {failed.store_error} (retried by the next review)", err=True)


# ---------------------------------------------------------------------------------------------
# running and printing (the library returns outcomes; words are made here)



def _run(*, root: Path | None, session: str | None, model: str | None = None, reviewer: str | None = None,
         force: bool = False, as_json: bool = False, sweep_all: bool = False, limit: int | None = None,
         include_older: bool = False) -> int:
    """Run one review (or a sweep), print the result, return the exit code."""
    return run_review(project_paths(root), ReviewRequest(session or "latest", model, reviewer, force),
                      lambda text, err: click.echo(text, err=err), as_json=as_json, sweep_all=sweep_all,
                      limit=limit, include_older=include_older)


def _undo(*, root: Path | None, session: str, force: bool = False, as_json: bool = False) -> int:
    from omp.review.undo import undo_session  # only undo needs it (see the note at the top)

    outcome = undo_session(project_paths(root), session, force=force)
    if as_json:
        echo_json(outcome.to_json())
    else:
        for line in report.undo_lines(outcome):
            click.echo(line)
    return 0
