"""`omp project-memory ...`: read and curate project memory (docs/reference/commands.md).

Parses arguments, calls `omp.memory.manage`, renders the result, and refreshes the managed
block after every change. A bad number, unknown id or missing argument exits 2 with the usage
line and changes nothing.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any, Callable

import click

from omp import errors
from omp.cli.options import COUNT, INDEX, days_type, json_option, project_paths, root_option
from omp.cli.render import echo_json, short_session
from omp.memory import block, manage, render
from omp.memory.items import RejectionCode
from omp.memory.batch import Housekeeping
from omp.paths import ProjectPaths


def _usage(func: Callable[..., Any]) -> Callable[..., Any]:
    """Show a library UsageError the way click shows its own: with the command's usage line."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except errors.UsageError as exc:
            message = exc.message + (f" ({exc.hint})" if exc.hint else "")
            raise click.UsageError(message, click.get_current_context()) from exc

    return wrapper


def _refresh(paths: ProjectPaths) -> None:
    result = block.sync_block(paths)
    for line in result.repaired:
        click.echo(f"warning: {line}", err=True)
    for name, state in ((result.project_file, result.project), (result.global_file, result.global_)):
        if state == "written":
            click.echo(f"updated the managed block in {name}", err=True)


def _warn(warnings: list[str]) -> None:
    for warning in warnings:
        click.echo(f"warning: {warning}", err=True)


def _migrate_first(paths: ProjectPaths) -> None:
    """A legacy folder is taken in before anything is shown, and the block shows it at once."""
    done = manage.ensure_migrated(paths)
    if done is not None:
        _report_housekeeping(done)
        if done.changed_active:
            _refresh(paths)


def _report_housekeeping(done: Housekeeping) -> None:
    if done.migrated:
        counts = ", ".join(f"{n} {what}" for what, n in done.migrated.items()) or "nothing new"
        click.echo(f"migrated .oh-my-copilot/ into .omp/: {counts}", err=True)
    for label in done.promoted_ticked:
        click.echo(f"promoted (ticked in pending-directives.md): {label}", err=True)
    for label in done.dismissed_deleted:
        click.echo(f"dismissed (line deleted from pending-directives.md): {label}", err=True)
    for label in done.expired:
        click.echo(f"expired (pending too long): {label}", err=True)
    for label in done.ticked_not_queued:
        click.echo(f"not promoted (ticked in pending-directives.md, but omp never queued it on this machine: "
                   f"a committed or pulled checklist is no approval): {label} — it stays pending; "
                   "read it with omp project-memory pending, then promote it with omp project-memory promote N", err=True)
    for label in done.held_ticked:
        click.echo(f"not promoted (ticked in pending-directives.md, but .omp/project-memory.json is not trusted, "
                   f"so omp will not change it): {label} — it stays pending; review the file, run omp trust, "
                   "then promote it with omp project-memory promote-directive N", err=True)


@click.group("project-memory")
def cli() -> None:
    """Read and curate what omp remembers about this project."""


@cli.command("read")
@click.argument("note_id", required=False)
@json_option
@root_option
@_usage
def read_cmd(note_id: str | None, as_json: bool, root: Path | None) -> None:
    """Show directives, the pending count and the note index; or one note."""
    paths = project_paths(root)
    _migrate_first(paths)
    if note_id is not None:
        note = manage.read_note(paths, note_id)
        held_back = block.note_held_back(note)
        if held_back:
            # What omp stores passed its filters; this one (an older omp's, or a repository's)
            # reads as instruction injection, and a session that reads it would take it in.
            if as_json:
                echo_json({"id": note.id, "held_back": held_back, "path": str(note.path)})
                return
            click.echo(f"note {note.id} is held back: it reads as instruction injection ({held_back}); omp does not "
                       f"show it to Copilot. Read the file yourself, and delete it if it is not yours: {note.path}")
            return
        if as_json:
            echo_json({**note.summary(), "evidence": note.evidence, "body": note.body, "path": str(note.path)})
            return
        click.echo(f"# {note.title}")
        click.echo(f"id: {note.id}  created: {note.created}" + (f"  session: {note.session}" if note.session else ""))
        if note.body:
            click.echo("")
            click.echo(note.body)
        return
    view = manage.overview(paths)
    if as_json:
        echo_json(
            {
                "directives": [{"n": i, **d.to_json()} for i, d in enumerate(view.directives, 1)],
                "global_directives": [{"n": i, **d.to_json()} for i, d in enumerate(view.global_directives, 1)],
                "pending": view.pending,
                "notes": [n.summary() for n in view.notes],
            }
        )
        return
    untrusted = render.untrusted_directives(paths)
    _print_directives("Directives" if untrusted is None else
                      f"Directives (not shown to Copilot: omp did not write {paths.directives.name} on this machine; "
                      "read them, then run omp trust)", view.directives)
    _print_directives("Global directives", view.global_directives)
    if view.pending:
        click.echo(f"Pending: {view.pending} proposed item(s) await review (omp project-memory pending)")
    else:
        click.echo("Pending: none")
    _print_notes(view.notes)


def _print_directives(title: str, items: list[Any]) -> None:
    if not items:
        click.echo(f"{title}: none")
        return
    click.echo(f"{title} ({len(items)}):")
    for i, directive in enumerate(items, 1):
        click.echo(f"  {i}. {directive.text}")


def _print_notes(notes: list[Any]) -> None:
    if not notes:
        click.echo("Notes: none")
        return
    click.echo(f"Notes ({len(notes)}, newest first; read one with: omp project-memory read <id>):")
    width = max(len(n.id) for n in notes)
    for note in notes:
        title = "(held back: it reads as instruction injection)" if block.note_held_back(note) else note.title
        click.echo(f"  {note.id:<{width}}  {note.created[:10]}  {title}")


@cli.command("index")
@json_option
@root_option
@_usage
def index_cmd(as_json: bool, root: Path | None) -> None:
    """List every note, newest first."""
    paths = project_paths(root)
    _migrate_first(paths)
    notes = manage.note_index(paths)
    if as_json:
        echo_json({"notes": [n.summary() for n in notes]})
    else:
        _print_notes(notes)


@cli.command("add-note")
@click.argument("title")
@click.option("--body", default="", help="The note's text (Markdown).")
@root_option
@_usage
def add_note_cmd(title: str, body: str, root: Path | None) -> None:
    """Write a note now (notes need no approval)."""
    paths = project_paths(root)
    change = manage.add_note(paths, title, body)
    _report_housekeeping(change.housekeeping)
    result = change.results[0]
    if result.status == "rejected":
        raise errors.OmpError(f"note not added: {result.reason}", _fix_hint(result.code))
    if result.status == "written":
        click.echo(f"added note {result.ref}: {result.text}")
    else:
        click.echo(f"not added: {result.reason}")
    if result.written or change.housekeeping.changed_active:
        _refresh(paths)
    _warn(change.warnings)


def _fix_hint(code: RejectionCode | None) -> str:
    if code is RejectionCode.SECRET:
        return "remove the secret from the text and try again (omp never stores one)"
    return "fix the text and try again"


@cli.command("add-directive")
@click.argument("text")
@click.option("--global", "scope_global", is_flag=True, help="Add to your global directives (every project).")
@root_option
@_usage
def add_directive_cmd(text: str, scope_global: bool, root: Path | None) -> None:
    """Add an active directive yourself (no approval step: you are the human)."""
    paths: ProjectPaths | None
    try:
        paths = project_paths(root)
    except errors.UsageError:
        if not scope_global or root is not None:
            raise
        paths = None  # a global directive can be added from anywhere
    change = manage.add_directive(paths, text, "global" if scope_global else "project")
    _report_housekeeping(change.housekeeping)
    result = change.results[0]
    where = "global " if scope_global else ""
    if result.status == "rejected":
        raise errors.OmpError(f"directive not added: {result.reason}", _fix_hint(result.code))
    if result.status == "duplicate":
        click.echo(f"not added: {result.reason}")
    else:
        click.echo(f"added {where}directive: {result.text}")
    if paths is None:
        block.sync_global_block()
    elif result.written or change.housekeeping.changed_active:
        _refresh(paths)
    _warn(change.warnings)


@cli.command("pending")
@json_option
@root_option
@_usage
def pending_cmd(as_json: bool, root: Path | None) -> None:
    """List proposed directives, removal proposals and proposed notes awaiting review."""
    paths = project_paths(root)
    items, done = manage.list_pending(paths)
    _report_housekeeping(done)
    if done.changed_active:
        _refresh(paths)
    if as_json:
        echo_json({"pending": [{"n": i, "label": item.label, **item.to_json()} for i, item in enumerate(items, 1)]})
        return
    if not items:
        click.echo("No pending items.")
        return
    click.echo(f"{len(items)} pending item(s) ({paths.pending_md}):")
    for i, item in enumerate(items, 1):
        origin = [item.source] if item.source else []
        origin += [f"proposed {item.proposed_at[:10]}"] if item.proposed_at else []
        origin += [f"session {short_session(item.session)}"] if item.session else []
        click.echo(f"  {i}. {item.label}" + (f"  [{', '.join(origin)}]" if origin else ""))
    click.echo("Approve: omp project-memory promote-directive N|--all   Dismiss: omp project-memory dismiss-directive N|--all")


@cli.command("promote-directive")
@click.argument("numbers", metavar="[N]...", nargs=-1, type=INDEX)
@click.option("--all", "all_items", is_flag=True, help="Promote every pending item.")
@click.option("--global", "scope_global", is_flag=True, help="Make them global directives (every project).")
@root_option
@_usage
def promote_cmd(numbers: tuple[int, ...], all_items: bool, scope_global: bool, root: Path | None) -> None:
    """Approve pending item(s) N: directives become active, FORGET items remove what they name, NOTE items become notes."""
    paths = project_paths(root)
    change = manage.promote(paths, list(numbers), all_items, "global" if scope_global else "project")
    _report_housekeeping(change.housekeeping)
    where = "global " if scope_global else ""
    for outcome in change.outcomes:
        label = outcome.item.label
        if outcome.outcome == "promoted":
            click.echo(f"promoted to {where}directives: {label}")
        elif outcome.outcome == "already-active":
            click.echo(f"skipped, already a note: {label}" if outcome.item.kind == "note"
                       else f"skipped, already an active {where}directive: {label}")
        elif outcome.outcome == "noted":
            click.echo(f"{label} -> written as {outcome.removed[0]}")
        elif outcome.outcome == "refused":
            click.echo(f"{label} -> refused by the note store: {outcome.removed[0]}")
        elif outcome.outcome == "forgotten":
            click.echo(f"{label} -> removed: " + "; ".join(outcome.removed))
        else:
            click.echo(f"{label} -> nothing matched it; closed without changes")
    if not change.outcomes:
        click.echo("No pending items.")
    _refresh(paths)
    _warn(change.warnings)


@cli.command("dismiss-directive")
@click.argument("numbers", metavar="[N]...", nargs=-1, type=INDEX)
@click.option("--all", "all_items", is_flag=True, help="Dismiss every pending item.")
@click.option("--reason", default=None, help="Why (kept in decisions.jsonl).")
@root_option
@_usage
def dismiss_cmd(numbers: tuple[int, ...], all_items: bool, reason: str | None, root: Path | None) -> None:
    """Refuse pending item(s) N; they are never proposed again."""
    paths = project_paths(root)
    change = manage.dismiss(paths, list(numbers), all_items, reason)
    _report_housekeeping(change.housekeeping)
    for item in change.dismissed:
        click.echo(f"dismissed: {item.label}")
    if not change.dismissed:
        click.echo("No pending items.")
    _refresh(paths)


# The short forms docs/reference/commands.md names: the same commands, since a pending item is a directive, a
# removal proposal or a proposed note alike.
cli.add_command(promote_cmd, "promote")
cli.add_command(dismiss_cmd, "dismiss")


@cli.command("remove-directive")
@click.argument("number", metavar="N", type=INDEX)
@click.option("--global", "scope_global", is_flag=True, help="Remove global directive N instead.")
@root_option
@_usage
def remove_cmd(number: int, scope_global: bool, root: Path | None) -> None:
    """Remove active directive N (numbered as `read` lists them)."""
    paths = project_paths(root)
    change = manage.remove_directive(paths, number, "global" if scope_global else "project")
    _report_housekeeping(change.housekeeping)
    for text in change.removed:
        click.echo(f"removed {'global ' if scope_global else ''}directive: {text}")
    _refresh(paths)


@cli.command("prune-notes")
@click.option("--keep", type=COUNT, default=None, metavar="N", help="Keep only the newest N notes.")
@click.option("--older-than", "older_than", type=days_type(), default=None, metavar="DAYS", help="Delete notes older than DAYS.")
@root_option
@_usage
def prune_cmd(keep: int | None, older_than: int | None, root: Path | None) -> None:
    """Delete old notes: all but the newest N, or those older than DAYS."""
    paths = project_paths(root)
    removed = manage.prune_notes(paths, keep, older_than)
    for note in removed:
        click.echo(f"deleted note {note.id}: {note.title}")
    click.echo(f"{len(removed)} note(s) deleted")
    if removed:
        _refresh(paths)


@cli.command("drafts")
@json_option
@root_option
@_usage
def drafts_cmd(as_json: bool, root: Path | None) -> None:
    """List skill drafts awaiting promotion."""
    paths = project_paths(root)
    _migrate_first(paths)
    drafts = manage.list_drafts(paths)
    if as_json:
        echo_json({"drafts": [d.summary() for d in drafts]})
        return
    if not drafts:
        click.echo("No skill drafts.")
        return
    for draft in drafts:
        click.echo(f"  {draft.slug}  {draft.description}")
    click.echo("Promote one with: omp project-memory promote-skill SLUG")


@cli.command("promote-skill")
@click.argument("slug")
@root_option
@_usage
def promote_skill_cmd(slug: str, root: Path | None) -> None:
    """Move draft SLUG to .github/skills/SLUG/SKILL.md, where Copilot loads it."""
    paths = project_paths(root)
    target = manage.promote_skill(paths, slug)
    click.echo(f"promoted skill {slug}: {target}")
