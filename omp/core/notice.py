"""The rules of the "not reviewing this project" notice, shared by sessionStart and `omp -p`.

After `omp install`, a project where nobody ever set `memory-mode` is reviewed by nobody: the
default is `off`, and "remember that we use yarn" would be lost without a word. So the first
sessionStart in such a git project (or the first `omp -p` / `omp launch` run there) says that omp
is not reviewing it and how to turn it on, then never again there (docs/behaviour.md#copilot-integration, docs/reviewers.md#headless-runs-and-hooks-only):

- only when no layer sets `memory-mode` (hook_settings' DEFAULTED): an environment, project or
  global config that says `off` chose it, and hears nothing;
- "once" is a record in G, `G/state/notices/not-reviewing/<sha256 of the project's real path>.json`,
  created exclusively (omp.hooks.notice.claim, with omp.fsio): of two sessions starting at the
  same moment exactly one says it, a symlinked checkout and its target are one project, and the
  check on every later session is one stat;
- `omp config set memory-mode on` refuses to edit a project config that is not trusted
  (omp.trust), so when this project's config is ignored the notice names `omp trust` first: each
  command it prints works, as printed, in that project.

Here: the record's name, the check, and the words (standard library only, like all of omp.core).
"""

from __future__ import annotations

import os

from omp.core import layout, settings as core_settings

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations only: importing typing costs start-up time
    from typing import Any, Mapping

RECORDS = os.path.join(layout.STATE_SUBDIR, "notices", "not-reviewing")  # under G
TURN_ON = "{omp} config set memory-mode on"
TRUST = "{omp} trust"

NOT_REVIEWING = ("omp is installed but not reviewing this project: memory-mode was never set here, so nothing "
                 "from these sessions is remembered — to turn it on, run `{turn_on}` in this project")
NOT_REVIEWING_UNTRUSTED = ("omp is installed but not reviewing this project: memory-mode is set by no setting omp "
                           "uses here, since this project's .omp/config.json is ignored (not trusted) — to turn it on, "
                           "review that file, run `{trust}`, then run `{turn_on}` in this project")
# sessionStart's additionalContext reaches only the model (COPILOT.md §3), and an agent that
# "helpfully" ran the command would decide for the user: it is asked to relay, not to act.
RELAY = ("(omp, the user's memory plugin, wrote this for the user, who cannot see it: tell them once, at the start "
         "of your first reply, with the command exactly as written; do not run it yourself — whether omp remembers "
         "this project is the user's choice.)")


def record_path(root: str) -> str:
    """The project's record in G, keyed by its real path (hashed: any path makes a file name)."""
    key = core_settings.project_key(root).encode("utf-8", "surrogateescape")
    return os.path.join(layout.global_home(), RECORDS, core_settings.sha256_hex(key)[:40] + ".json")


def was_told(root: str) -> bool:
    """One stat: has this project heard the notice already?"""
    return os.path.lexists(record_path(root))


def is_left_to_default(settings: Mapping[str, Any]) -> bool:
    """Does no layer set memory-mode (the environment, the trusted project config, G's)?"""
    return settings.get("memory-mode") == "off" and "memory-mode" in settings.get(core_settings.DEFAULTED, ())


def notice_line(settings: Mapping[str, Any], root_option: str = "", program: str = "omp") -> str:
    """The notice for this project: with `omp trust` first when its config is ignored.
    `root_option` (` --root DIR`) when the commands would run from outside the project;
    `program`: how the user runs this omp (`omp`, or `/path/to/python -m omp` when no `omp`
    is on PATH — a venv that is not activated)."""
    turn_on = TURN_ON.format(omp=program) + root_option
    if settings.get(core_settings.IGNORED):
        return NOT_REVIEWING_UNTRUSTED.format(trust=TRUST.format(omp=program) + root_option, turn_on=turn_on)
    return NOT_REVIEWING.format(turn_on=turn_on)
