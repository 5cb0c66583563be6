"""Living with Copilot CLI every day (issue 12), black-box: real `omp` and hook processes.

- the sessionStart nudge names pending items, skill drafts and failed reviews, and asks the
  model to pass it on (the user never sees additionalContext);
- every session start brings the instruction file to what the mode demands: an old block goes
  in `hook` mode, a block another tool rewrote comes back in `block` mode;
- global directives stay in the personal file.
"""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

from copilot_support import run_hook
from helpers import run_omp, run_omp_process
from memory_support import END, START, block_of, enable, outside_block, pm

from omp.core.instructions import out_of_step
from omp.hooks.start import MENTION_ONCE
from omp.memory.items import DirectiveProposal, DraftProposal
from omp.memory.store import add_drafts, propose_directives
from omp.paths import ProjectPaths
from omp.review import queue

SID = "0f5c2d7e-2222-4c3b-9a55-3c1f0e6b7a01"


def start(project: Path) -> str:
    result = run_hook("session-start", {"sessionId": SID, "cwd": str(project), "source": "new"})
    assert result.returncode == 0, result.stderr
    return str(result.json().get("additionalContext", ""))


def test_the_nudge_names_pending_items_drafts_and_failed_reviews(project: Path) -> None:
    paths = enable(project)
    propose_directives(paths, [DirectiveProposal("Run the linter before committing", "s1", "e")])
    add_drafts(paths, [DraftProposal("release-steps", "How to cut a release", "1. Tag\n2. Push", "s1", "e")])
    queue.record_failure(paths, "s-failed", "reviewer is not authenticated: Error: No authentication information found.",
                         "run: copilot login", "auth", now=time.time())
    lines = start(project).splitlines()
    assert lines == [
        "[MEMORY REVIEW] 1 proposed directive(s) await your review — run omp project-memory pending",
        "[MEMORY REVIEW] 1 skill draft(s) await promotion — run omp project-memory drafts",
        "[MEMORY REVIEW] 1 review(s) failed: reviewer is not authenticated — run omp doctor "
        "(queued; retried automatically)",
        MENTION_ONCE,
    ]


def test_nothing_to_say_stays_silent(project: Path) -> None:
    enable(project)
    assert start(project) == ""


def test_session_start_in_hook_mode_removes_an_old_block(project: Path) -> None:
    enable(project)
    instructions = project / ".github" / "copilot-instructions.md"
    instructions.parent.mkdir()
    instructions.write_text("Team rules.\n")
    assert pm(project, "add-directive", "Prefer pathlib").returncode == 0
    assert START in instructions.read_text()
    # Switched for every project at once: no project is touched by the command itself...
    assert run_omp(["config", "set", "memory-inject", "hook", "--global"], cwd=project.parent).returncode == 0
    assert START in instructions.read_text()
    # ...and the next session start there takes the block out, and injects the memory instead.
    context = start(project)
    assert instructions.read_text() == "Team rules.\n"
    assert "- Prefer pathlib" in context


def test_session_start_restores_a_block_another_tool_rewrote(project: Path, isolated_home: Path) -> None:
    enable(project)
    instructions = project / ".github" / "copilot-instructions.md"
    assert pm(project, "add-directive", "Prefer pathlib").returncode == 0
    # `/chronicle improve`: the agent rewrites the file, adding its rules and editing omp's block.
    text = instructions.read_text().replace("- Prefer pathlib", "- Prefer os.path")
    instructions.write_text("# Learned from your sessions\n\n- Run make lint first.\n\n" + text)
    outside = outside_block(instructions)

    result = run_hook("session-start", {"sessionId": SID, "cwd": str(project), "source": "new"})
    assert result.returncode == 0
    assert "edited by another tool" in result.stderr  # said, and logged
    assert "edited by another tool" in (isolated_home / ".omp" / "logs" / "hooks.log").read_text()
    assert "- Prefer pathlib" in block_of(instructions) and "os.path" not in block_of(instructions)
    assert outside_block(instructions) == outside
    # Once restored, later session starts find it in step and do nothing.
    again = run_hook("session-start", {"sessionId": SID, "cwd": str(project), "source": "new"})
    assert again.stderr == "" and out_of_step(str(project), "block") is False


def test_a_broken_marker_at_session_start_names_the_line_and_writes_nothing(project: Path) -> None:
    enable(project)
    instructions = project / ".github" / "copilot-instructions.md"
    assert pm(project, "add-directive", "Prefer pathlib").returncode == 0
    broken = instructions.read_text().replace(END, "")  # a lone start marker
    instructions.write_text(broken)
    result = run_hook("session-start", {"sessionId": SID, "cwd": str(project), "source": "new"})
    assert result.returncode == 0 and "start marker on line 1" in result.stderr
    assert instructions.read_text() == broken


def test_global_directives_never_reach_a_project_file(project: Path, isolated_home: Path) -> None:
    enable(project)
    assert pm(project, "add-directive", "Prefer pathlib").returncode == 0
    assert run_omp(["project-memory", "add-directive", "Answer in British English", "--global"],
                   cwd=project.parent).returncode == 0
    assert run_omp(["memory", "sync"], cwd=project).returncode == 0
    assert "British" not in (project / ".github" / "copilot-instructions.md").read_text()
    assert "British" in block_of(isolated_home / ".copilot" / "copilot-instructions.md")


# ---------------------------------------------------------------------------------------------
# `omp -p`: the user sees that a review started, and what awaits them


def test_omp_p_says_a_review_started_and_what_awaits_the_user(project: Path, tmp_path: Path) -> None:
    from copilot_support import fake_copilot, records, wait_for

    paths = enable(project)
    propose_directives(paths, [DirectiveProposal("Run the linter before committing", "s1", "e")])
    binary, record = fake_copilot(tmp_path), tmp_path / "runs.jsonl"
    result = run_omp_process(["-p", "hello"], cwd=project,
                     env={"OMP_COPILOT_BIN": str(binary), "FAKE_COPILOT_RECORD": str(record)})
    assert result.returncode == 0, result.stderr
    (run,) = records(record)
    session_id = run["argv"][1]
    assert result.stdout == "copilot says: hello\n"  # Copilot's stdout stays Copilot's own
    lines = result.stderr.splitlines()
    assert f"omp: review of session {session_id} started in the background" in lines[1]
    assert "omp: 1 proposed directive(s) await your review — run omp project-memory pending" in lines
    wait_for(lambda: (project / ".omp" / "state" / "memory-review.log").exists(), 30, "the review")


def test_omp_p_with_memory_mode_off_adds_nothing(project: Path, tmp_path: Path) -> None:
    from copilot_support import fake_copilot

    binary = fake_copilot(tmp_path)
    result = run_omp_process(["-p", "hello"], cwd=project, env={"OMP_COPILOT_BIN": str(binary)})
    assert result.returncode == 0 and result.stderr == "copilot stderr line\n"


# ---------------------------------------------------------------------------------------------
# --sweep: queued first, only since memory mode was turned on, one line per session as it goes


def _aged(session_id: str, seconds_ago: float) -> None:
    import os

    events = Path(os.environ["COPILOT_HOME"]) / "session-state" / session_id / "events.jsonl"
    when = time.time() - seconds_ago
    os.utime(events, (when, when))


def test_sweep_scope_progress_and_what_it_skipped(project: Path, tmp_path: Path) -> None:
    from review_support import FakeReviewer, conversation, json_reply, omp, standard_answer, write_session

    fake = FakeReviewer(tmp_path / "fake")
    env = {**fake.env(), "OMP_MEMORY_MODE": ""}
    old = write_session(project, conversation("yarn"))
    _aged(old, 3 * 86400)  # from before omp was turned on here
    assert run_omp(["config", "set", "memory-mode", "on"], cwd=project, env=env).returncode == 0
    assert (project / ".omp" / "state" / "memory-on-since").is_file()
    new = write_session(project, conversation("pnpm"))
    waiting = write_session(project, conversation("bun"))
    queue.record_failure(ProjectPaths(project), waiting, "reviewer is not authenticated: x", "run: copilot login", "auth")
    fake.default(json_reply(standard_answer()))

    swept = omp(project, env, "memory-review", "--sweep")
    assert swept.returncode == 0, swept.stderr
    lines = swept.stdout.splitlines()
    assert lines[0].startswith(f"  {new}: reviewed — ")  # printed as it went, before the summary
    assert lines[1].startswith("sweep: 1 reviewed, 0 failed")
    retry_line = next(x for x in lines if "queued, retry at" in x)
    assert retry_line.startswith("  1 queued, retry at ") and retry_line.endswith(" — use --force to retry now")
    assert any(x.startswith("  1 older session(s) ended before memory mode was turned on") and "--all" in x
               for x in lines)
    assert len(fake.calls()) == 1  # the old session cost nothing

    # The fixes it names work: --force retries the queued one now, --all takes the old one.
    forced = omp(project, env, "memory-review", "--sweep", "--force").stdout
    assert forced.splitlines()[0].startswith(f"  {waiting}: reviewed")
    everything = omp(project, env, "memory-review", "--sweep", "--all").stdout
    assert everything.splitlines()[0].startswith(f"  {old}: reviewed")
    assert len(fake.calls()) == 3


# ---------------------------------------------------------------------------------------------
# the plugin's hook script: a checkout's venv is found without activating it; no Python, no silence


def _checkout_plugin(tmp_path: Path) -> Path:
    """A checkout as the repository-as-marketplace install runs it: hooks in omp/plugin/hooks/."""
    import shutil

    repo = Path(__file__).resolve().parent.parent
    checkout = tmp_path / "checkout"
    for relative in ("plugin.json", "hooks/hooks.json", "hooks/run"):
        target = checkout / "omp" / "plugin" / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(repo / "omp" / "plugin" / relative, target)
    return checkout


def _run_plugin_hook(checkout: Path, project: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    import json
    import os

    from review_support import conversation, write_session

    write_session(project, conversation(), SID)  # sessionEnd starts a review only for a recorded session
    full = {k: v for k, v in os.environ.items() if k != "OMP_PYTHON"}
    full.update({"OMP_MEMORY_MODE": "on", "PATH": "/usr/bin:/bin", **env})
    return subprocess.run(["sh", str(checkout / "omp" / "plugin" / "hooks" / "run"), "session-end"],
                          input=json.dumps({"sessionId": SID, "cwd": str(project)}), text=True,
                          capture_output=True, env=full, cwd=checkout / "omp" / "plugin", timeout=60)


def test_hooks_in_a_checkout_use_its_venv_without_activation(tmp_path: Path, project: Path) -> None:
    import sys

    from copilot_support import finish_detached, run_logs

    checkout = _checkout_plugin(tmp_path)
    venv_python = checkout / ".venv" / "bin" / "python"
    venv_python.parent.mkdir(parents=True)
    venv_python.write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n')
    venv_python.chmod(0o755)
    result = _run_plugin_hook(checkout, project, {})
    assert (result.returncode, result.stdout, result.stderr) == (0, "{}\n", "")
    assert len(run_logs(project, f"review-{SID}-")) == 1
    finish_detached(project)  # the review it started runs to its end, nothing left behind


def test_hooks_without_any_omp_python_say_so_and_log_it(tmp_path: Path, project: Path, isolated_home: Path) -> None:
    checkout = _checkout_plugin(tmp_path)
    bare = tmp_path / "bare-bin"  # a python3 that cannot import omp
    bare.mkdir()
    (bare / "python3").write_text("#!/bin/sh\nexit 1\n")
    (bare / "python3").chmod(0o755)
    result = _run_plugin_hook(checkout, project, {"PATH": f"{bare}:/usr/bin:/bin"})
    assert result.returncode == 0 and result.stdout == "{}\n"
    assert "no Python with omp installed" in result.stderr and "pip install omp" in result.stderr
    log = (isolated_home / ".omp" / "logs" / "hooks.log").read_text()
    assert "no Python with omp installed" in log


# ---------------------------------------------------------------------------------------------
# polish (issue 12, item 9)


def test_help_lists_every_summary_whole() -> None:
    import re

    for args in ([], ["project-memory"], ["memory-review"], ["config"]):
        out = run_omp([*args, "--help"]).stdout
        commands = out.split("Commands:", 1)[1] if "Commands:" in out else ""
        assert "..." not in commands and "…" not in commands, out
    top = run_omp(["--help"]).stdout
    assert re.search(r"config\s+Read and change settings \(environment › project › global ›\s+defaults\)\.", top), top


def test_one_error_style_for_click_and_omp_errors(project: Path) -> None:
    for args in (["cost", "--days", "x"], ["project-memory", "promote-directive", "9"], ["frob"],
                 ["memory-review", "--limit", "3"]):
        result = run_omp(args, cwd=project)
        assert result.returncode == 2, (args, result.stderr)
        assert result.stderr.startswith("omp: error: "), (args, result.stderr)
        assert "Error:" not in result.stderr and "Try '" not in result.stderr, (args, result.stderr)


def test_an_unknown_command_suggests_every_near_one(project: Path) -> None:
    # `promote` itself is the short form of promote-directive now (docs/reference/commands.md): a typo of it.
    result = run_omp(["project-memory", "promot", "1"], cwd=project)
    assert result.returncode == 2
    first = result.stderr.splitlines()[0]
    assert "omp project-memory promote" in first.split(" or ")[0]  # the likely one first
    assert "promote-skill" in first  # and the others, never one alone


def test_undo_takes_the_id_prefix_lists_show(project: Path, tmp_path: Path) -> None:
    from review_support import FakeReviewer, conversation, json_reply, omp, standard_answer, write_session

    fake = FakeReviewer(tmp_path / "fake")
    session = write_session(project, conversation())
    fake.queue(json_reply(standard_answer()))
    assert omp(project, fake.env(), "memory-review", "--session", session).returncode == 0
    listed = run_omp(["project-memory", "pending"], cwd=project).stdout
    shown = session.split("-")[0]
    assert f"session {shown}]" in listed  # the whole first group, never cut inside one
    undone = omp(project, fake.env(), "memory-review", "undo", shown)
    assert undone.returncode == 0, undone.stderr
    assert f"undid the review of {session}" in undone.stdout


def test_demo_try_next_is_in_setup_order() -> None:
    out = run_omp(["demo"], timeout=120).stdout
    steps = out.split("Try next:", 1)[1].splitlines()
    order = [i for i, line in enumerate(steps) for key in ("omp install", "memory-mode on", "omp doctor") if key in line]
    assert len(order) == 3 and order == sorted(order)


def test_the_e2e_override_named_in_the_skip_reason_works(tmp_path: Path) -> None:
    """OMP_E2E_COPILOT_BIN must survive the isolated_home fixture, which clears OMP_* variables."""
    import os
    import sys

    binary = tmp_path / "copilot"
    binary.write_text("#!/bin/sh\nexit 0\n")
    binary.chmod(0o755)
    tests = Path(__file__).resolve().parent
    script = ("import os, sys; sys.path.insert(0, sys.argv[1]); import copilot_support as c; "
              "os.environ.pop('OMP_E2E_COPILOT_BIN'); print(c.copilot_binary())")
    env = dict(os.environ, OMP_E2E_COPILOT_BIN=str(binary), OMP_E2E_CACHE=str(tmp_path / "no-cache"))
    out = subprocess.run([sys.executable, "-c", script, str(tests)], env=env, capture_output=True, text=True,
                         check=True).stdout.strip()
    assert out == str(binary.resolve())


# ---------------------------------------------------------------------------------------------
# doctor: Copilot's own memory features beside omp's (issue 12, item 10)


def test_doctor_reports_copilot_memory_and_chronicle_edits(project: Path, isolated_home: Path, tmp_path: Path) -> None:
    import json

    from copilot_support import fake_copilot

    env = {"OMP_COPILOT_BIN": str(fake_copilot(tmp_path)), "OMP_TOKENIZER": "estimate"}
    enable(project)
    assert pm(project, "add-directive", "Prefer pathlib").returncode == 0

    def checks() -> dict[str, dict[str, str]]:
        report = run_omp(["doctor", "--json"], cwd=project, env=env).json()
        return {c["name"]: c for c in report["checks"]}

    found = checks()
    assert "Copilot Memory" in found["copilot memory"]["detail"] and "default: on" in found["copilot memory"]["detail"]
    assert found["chronicle"]["status"] == "ok"

    (isolated_home / ".copilot").mkdir(exist_ok=True)
    (isolated_home / ".copilot" / "settings.json").write_text(json.dumps({"memoryEnabled": False}))
    instructions = project / ".github" / "copilot-instructions.md"
    instructions.write_text(instructions.read_text().replace("Prefer pathlib", "Prefer os.path"))  # /chronicle improve
    found = checks()
    assert "memoryEnabled=False" in found["copilot memory"]["detail"]
    assert found["chronicle"]["status"] == "warn" and "/chronicle improve" in found["chronicle"]["detail"]
    # The fix line is the command that fixes it.
    assert run_omp(found["chronicle"]["fix"].split()[1:], cwd=project, env=env).returncode == 0
    assert checks()["chronicle"]["status"] == "ok"
    assert "- Prefer pathlib" in block_of(instructions)
