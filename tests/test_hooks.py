"""The sessionStart / sessionEnd hooks (docs/trust.md#hooks-create-nothing-outside-a-git-project, docs/behaviour.md#copilot-integration), run as Copilot runs them: a real
`python -m omp.hooks EVENT` process with the hook's JSON on stdin."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from copilot_support import kill_quietly, pid_alive, run_hook, run_logs, wait_for
from memory_support import enable

from omp import config, trust
from omp.core import jsonlite, layout
from omp.core.pending import count_open
from omp.detach import prune_run_logs
from omp.memory.render import refresh_hook_context
from omp.process import read_env_file, review_environment, spawn_detached
from omp.memory.items import DirectiveProposal, NoteProposal
from omp.memory.store import add_notes, propose_directives
from omp.memory.manage import add_directive
from omp.core.settings import IGNORED
from omp.hooks.project import settings_for
from omp.hooks.start import MENTION_ONCE
from omp.paths import ProjectPaths, is_valid_session_id
from omp.review import queue

# These tests start omp's detached reviews (sessionEnd hooks, the wrapper) without waiting for
# their outcome: each one ends them when it ends (conftest.py; anything else left running fails).
pytestmark = pytest.mark.usefixtures("ends_detached_runs")

REPO = Path(__file__).resolve().parent.parent
SID = "0f5c2d7e-1111-4c3b-9a55-3c1f0e6b7a01"


def with_events(session_id: str, project: Path) -> Path:
    """The session's `events.jsonl` (a hook reviews only a session Copilot recorded)."""
    events = Path(os.environ["COPILOT_HOME"]) / "session-state" / session_id / "events.jsonl"
    if not events.exists() and is_valid_session_id(session_id):
        events.parent.mkdir(parents=True, exist_ok=True)
        start = {"type": "session.start", "data": {"sessionId": session_id, "context": {"cwd": str(project)}}}
        events.write_text(json.dumps(start) + "\n")
    return events


def end_payload(project: Path, session_id: str = SID, snake: bool = False) -> dict[str, str]:
    with_events(session_id, project)
    if snake:
        return {"session_id": session_id, "cwd": str(project), "hook_event_name": "SessionEnd"}
    return {"sessionId": session_id, "timestamp": 1795982097017, "cwd": str(project), "reason": "complete"}


def start_payload(project: Path) -> dict[str, str]:
    return {"sessionId": SID, "timestamp": 1795982096462, "cwd": str(project), "source": "new",
            "initialPrompt": "hello"}


def assert_quiet_empty(result) -> None:
    assert result.returncode == 0
    assert result.stdout == "{}\n"
    assert "Traceback" not in result.stdout + result.stderr


# ---------------------------------------------------------------------------------------------
# every path prints one JSON object and exits 0


@pytest.mark.parametrize("event", ["session-start", "session-end"])
@pytest.mark.parametrize(
    "payload",
    ["", "   \n", "garbage{", "[1, 2]", '"text"', "null", '{"sessionId": 5}', '{"sessionId": "../../etc", "cwd": "/"}',
     '{"sessionId": "ok-id", "cwd": 17}', b"\xff\xfe not utf8 \x00", b'{"sessionId": "a\xff", "cwd": "/"}'],
)
def test_bad_input_prints_empty_object(project: Path, event: str, payload: str | bytes) -> None:
    enable(project)
    result = run_hook(event, payload)
    assert_quiet_empty(result)
    assert run_logs(project) == []


def test_unknown_event_prints_empty_object() -> None:
    result = run_hook("user-prompt", {"sessionId": SID})
    assert result.returncode == 0
    assert result.stdout == "{}\n"
    assert "unknown hook event" in result.stderr


def test_invalid_session_id_starts_nothing(project: Path) -> None:
    enable(project)
    for bad in ("../../etc/passwd", "a/b", ".hidden", "x" * 129, "a..b"):
        assert_quiet_empty(run_hook("session-end", end_payload(project, bad)))
    assert run_logs(project) == []


# ---------------------------------------------------------------------------------------------
# sessionEnd


@pytest.mark.parametrize("snake", [False, True], ids=["camelCase", "snake_case"])
def test_session_end_detaches_a_review(project: Path, snake: bool) -> None:
    enable(project)
    sub = project / "src" / "deep"
    sub.mkdir(parents=True)
    result = run_hook("session-end", end_payload(sub, snake=snake))
    assert_quiet_empty(result)
    logs = run_logs(project, f"review-{SID}-")
    assert len(logs) == 1
    header = logs[0].read_text().splitlines()[0]
    assert f"omp memory-review --session {SID} --root {project.resolve()} " in header


def test_session_end_with_memory_mode_off_touches_nothing(project: Path) -> None:
    result = run_hook("session-end", end_payload(project))
    assert_quiet_empty(result)
    assert not (project / ".omp").exists()
    assert not (project / ".gitignore").exists()


def test_first_review_adds_the_gitignore_block(project: Path) -> None:
    result = run_hook("session-end", end_payload(project), env={"OMP_MEMORY_MODE": "on"})
    assert_quiet_empty(result)
    assert ".omp/" in (project / ".gitignore").read_text()
    assert len(run_logs(project, "review-")) == 1


def test_cwd_falls_back_to_copilot_project_dir(project: Path) -> None:
    enable(project)
    with_events(SID, project)
    result = run_hook("session-end", {"sessionId": SID}, env={"COPILOT_PROJECT_DIR": str(project)})
    assert_quiet_empty(result)
    assert len(run_logs(project, "review-")) == 1


@pytest.mark.parametrize("env", [{"OMP_REVIEWER": "1"}, {"OMP_MEMORY_MODE": "off"}], ids=["OMP_REVIEWER", "mode-off-env"])
def test_reviewer_session_gets_no_review_and_no_context(project: Path, env: dict[str, str]) -> None:
    paths = enable(project, memory_inject="hook")
    add_directive(paths, "Use pnpm, not npm")
    propose_directives(paths, [DirectiveProposal("Run the linter before committing", "s1", "e")])
    assert_quiet_empty(run_hook("session-end", end_payload(project), env=env))
    assert_quiet_empty(run_hook("session-start", start_payload(project), env=env))
    assert run_logs(project) == []


def test_home_folder_is_never_a_project(isolated_home: Path) -> None:
    subprocess.run(["git", "init", "-q", str(isolated_home)], check=True)
    env = {"OMP_MEMORY_MODE": "on"}
    assert_quiet_empty(run_hook("session-end", end_payload(isolated_home), env=env))
    assert_quiet_empty(run_hook("session-start", start_payload(isolated_home), env=env))
    assert not (isolated_home / ".omp").exists()


def test_unreadable_config_is_one_line_on_stderr(project: Path, isolated_home: Path) -> None:
    # The global config: an unreadable *project* config is untrusted, so never even parsed.
    (isolated_home / ".omp").mkdir()
    (isolated_home / ".omp" / "config.json").write_text('{"memory-mode": "on",\n')
    for event, payload in (("session-end", end_payload(project)), ("session-start", start_payload(project))):
        result = run_hook(event, payload)
        assert_quiet_empty(result)
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and "config.json" in lines[0]
    assert "config.json" in (isolated_home / ".omp" / "logs" / "hooks.log").read_text()
    assert run_logs(project) == []


# ---------------------------------------------------------------------------------------------
# sessionStart


def test_session_start_says_nothing_without_pending_items(project: Path) -> None:
    enable(project)
    assert_quiet_empty(run_hook("session-start", start_payload(project)))


def test_session_start_nudges_about_open_pending_items(project: Path) -> None:
    paths = enable(project)
    add_directive(paths, "Use pnpm, not npm")
    propose_directives(paths, [
        DirectiveProposal("Run the linter before committing", "s1", "e"),
        DirectiveProposal("Write tests first", "s1", "e"),
        DirectiveProposal("Use pnpm, not npm", "s1", "e", kind="forget"),
    ])
    result = run_hook("session-start", start_payload(project))
    assert result.returncode == 0
    context = result.json()["additionalContext"]
    # memory-inject=block: the block is in the instruction file already; only the nudge is new.
    assert context.splitlines() == [
        "[MEMORY REVIEW] 3 proposed directive(s) await your review — run omp project-memory pending",
        MENTION_ONCE,  # the user never sees additionalContext: the model is asked to say it
    ]


def test_hook_mode_injects_the_block_and_follows_changes(project: Path) -> None:
    paths = enable(project, memory_inject="hook")
    add_directive(paths, "Use pnpm, not npm")
    add_notes(paths, [NoteProposal("Releases are cut from main", "Tag, then push.", "s1", "e")])
    first = run_hook("session-start", start_payload(project)).json()["additionalContext"]
    assert "Use pnpm, not npm" in first
    assert "Releases are cut from main" in first
    assert "[MEMORY REVIEW]" not in first
    assert not (project / ".github" / "copilot-instructions.md").exists()

    # A new note, a new pending item and a smaller cap all show at the next session start.
    add_notes(paths, [NoteProposal("CI runs on every push", "", "s2", "e")])
    propose_directives(paths, [DirectiveProposal("Write tests first", "s2", "e")])
    second = run_hook("session-start", start_payload(project)).json()["additionalContext"]
    assert "CI runs on every push" in second
    assert second.endswith("[MEMORY REVIEW] 1 proposed directive(s) await your review — run omp project-memory pending\n"
                           + MENTION_ONCE)
    config.set_value("memory-note-cap", "1", "project", paths)
    third = run_hook("session-start", start_payload(project)).json()["additionalContext"]
    assert "+1 more note(s)" in third


def test_hook_mode_context_matches_the_block_renderer(project: Path) -> None:
    paths = enable(project, memory_inject="hook")
    add_directive(paths, "Prefer small commits")
    add_notes(paths, [NoteProposal(f"Fact number {i}", "", "s1", "e") for i in range(15)])
    from omp.memory.render import hook_context

    for _ in range(2):  # rendered once, then served from the cache: the same text both times
        context = run_hook("session-start", start_payload(project)).json()["additionalContext"]
        assert context == hook_context(paths)


def test_session_start_sweeps_a_due_retry_queue(project: Path) -> None:
    paths = enable(project)
    later = queue.record_failure(paths, "waiting-session", "network down", None, "network")
    assert later.next_try_at > time.time()
    said = run_hook("session-start", start_payload(project)).json()["additionalContext"]
    assert "[MEMORY REVIEW] 1 review(s) failed: network down — run omp doctor" in said  # the user hears of it
    assert run_logs(project, "sweep-") == []  # still backing off: no process for nothing

    queue.record_failure(paths, "due-session", "network down", None, "network", now=time.time() - 86400)
    assert "2 review(s) failed" in run_hook("session-start", start_payload(project)).json()["additionalContext"]
    logs = run_logs(project, "sweep-")
    assert len(logs) == 1
    assert f"memory-review --sweep --limit 5 --root {project.resolve()}" in logs[0].read_text().splitlines()[0]


# ---------------------------------------------------------------------------------------------
# the fast path stays light


def test_hooks_import_nothing_but_omp(project: Path) -> None:
    paths = enable(project)
    with_events(SID, project)
    propose_directives(paths, [DirectiveProposal("Write tests first", "s1", "e")])
    script = textwrap.dedent(
        f"""
        import sys
        before = set(sys.modules)
        import io, os
        from omp import hooks
        results = []
        for event in ("session-end", "session-start"):
            payload = '{{"sessionId": "{SID}", "cwd": "{project}"}}'
            results.append(hooks.run(event, io.StringIO(payload), os.environ).action)
        new = sorted(set(sys.modules) - before - {{"io", "os"}})
        sys.stdout.write(repr({{"actions": results, "new": new}}))
        """
    )
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    report = eval(proc.stdout)  # a repr of str lists, from our own script
    assert report["actions"] == ["review started", "context"]
    # Standard library modules the interpreter had not already loaded cost start-up time: the
    # hooks load none (no json, re, subprocess, pathlib, dataclasses, typing), and nothing heavy.
    # Hashing a project's config to check trust (docs/trust.md#a-repository-never-chooses-what-runs) is the one allowed extra: the small
    # builtin sha256 module, where the interpreter has one.
    hashing = {"_sha256", "_sha2", "hashlib", "_hashlib", "_blake2"}
    assert [m for m in report["new"] if not m.startswith("omp") and m not in sys.builtin_module_names
            and m not in hashing] == []
    # Of omp: the hooks and the core they share with the library; omp.detach because this
    # sessionEnd started a review (and the omp.process package's modules it detaches with).
    outside = {m for m in report["new"] if m.startswith("omp") and m.split(".")[:2] not in (["omp", "core"],
                                                                                          ["omp", "hooks"])}
    assert {m for m in outside if not m.startswith("omp.process.")} <= {"omp", "omp.detach", "omp.process"}


# ---------------------------------------------------------------------------------------------
# the rules the hook applies (each defined once, in omp.core)


def test_the_session_id_rule() -> None:
    valid = ["abc", "A1", "0f5c2d7e-1111-4c3b-9a55-3c1f0e6b7a01", "a.b_c-d", "x" * 128, "a."]
    invalid = ["x" * 129, "", ".a", "-a", "_a", "a..b", "a/b", "a b", "é", "a\n", "..", "1..", "Ω"]
    assert [s for s in valid if not is_valid_session_id(s)] == []
    assert [s for s in invalid if is_valid_session_id(s)] == []


@pytest.mark.parametrize(
    "env, project_cfg, global_cfg, if_trusted, if_untrusted",
    [
        ({}, {}, {}, ("off", "block"), ("off", "block")),
        ({"OMP_MEMORY_MODE": "on"}, {"memory-mode": "off"}, {}, ("on", "block"), ("on", "block")),
        ({"OMP_MEMORY_MODE": " ON "}, {}, {}, ("on", "block"), ("on", "block")),
        ({"OMP_MEMORY_MODE": ""}, {"memory-mode": "on"}, {"memory-mode": "off"}, ("on", "block"), ("off", "block")),
        ({}, {}, {"memory-mode": "on", "memory-inject": "hook"}, ("on", "hook"), ("on", "hook")),
        ({}, {"memory-inject": "Hook"}, {"memory-inject": "block"}, ("off", "hook"), ("off", "block")),
        ({"OMP_MEMORY_INJECT": "hook"}, {"memory-mode": "on", "memory-inject": None}, {}, ("on", "hook"),
         ("off", "hook")),
    ],
)
@pytest.mark.parametrize("trusted", [True, False], ids=["trusted", "untrusted"])
def test_the_hook_resolves_settings_in_layers(project: Path, isolated_home: Path, monkeypatch: pytest.MonkeyPatch,
                                              env: dict[str, str], project_cfg: dict, global_cfg: dict,
                                              if_trusted: tuple[str, str], if_untrusted: tuple[str, str],
                                              trusted: bool) -> None:
    # environment (blank counts as unset) › trusted project › global › default; choices in any case
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    (project / ".omp").mkdir()
    (project / ".omp" / "config.json").write_text(json.dumps(project_cfg))
    if trusted:
        trust.record(ProjectPaths(project), (project / ".omp" / "config.json").read_bytes(), "test")
    (isolated_home / ".omp").mkdir(exist_ok=True)
    (isolated_home / ".omp" / "config.json").write_text(json.dumps(global_cfg))
    expected = if_trusted if trusted else if_untrusted
    got = settings_for(str(project), os.environ)
    assert got is not None
    assert (got["memory-mode"], got["memory-inject"]) == expected
    assert got[IGNORED] == (not trusted)
    library = config.resolve(ProjectPaths(project))  # `omp config get` says the same
    assert (library["memory-mode"].value, library["memory-inject"].value) == expected


def test_bad_setting_values_are_judged_by_the_library(project: Path, monkeypatch: pytest.MonkeyPatch,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    (project / ".omp").mkdir()
    (project / ".omp" / "config.json").write_text(json.dumps({"memory-mode": "yes"}))
    trust.record(ProjectPaths(project), (project / ".omp" / "config.json").read_bytes(), "test")
    assert settings_for(str(project), os.environ) is None
    assert "memory-mode" in capsys.readouterr().err
    monkeypatch.setenv("OMP_MEMORY_MODE", "maybe")
    assert settings_for(str(project), os.environ) is None
    assert "OMP_MEMORY_MODE" in capsys.readouterr().err


def test_the_pending_grammar_is_tolerant_and_the_nudge_counts_with_it(project: Path) -> None:
    text = textwrap.dedent(
        """\
        # Pending directives

        - [ ] Use pnpm
        - [ ] Use pnpm
        - [x] Ticked means approved on the next touch
        * [ ] star bullet
          + [] empty box
        - [ ]
        - [ ] FORGET: old rule
        - [ ] forget:
        -[ ]tight
        not a checkbox [ ]
        \t- [ ] tab indented
                     - [ ] thirteen spaces
                    - [ ] twelve spaces
        - [X] FORGET:   upper tick
        - [ ] Forget :spaced
        - [ ] forgetful is not a removal
        - [  ] two spaces in the box
        - [x]
        +\u00a0[ ] non-breaking space
        - [ ] trailing\u2003
        - [ ] forget: Use pnpm
        - [ ] FORGET: Use pnpm
        """
    )
    # Open items: the two "Use pnpm" lines are one, so are the two removals of it; a ticked item,
    # an empty one, a box with two spaces, thirteen spaces of indentation and prose are none.
    counted = ["- [ ] Use pnpm", "* [ ] star bullet", "  + [] empty box", "- [ ] FORGET: old rule", "-[ ]tight",
               "\t- [ ] tab indented", "            - [ ] twelve spaces", "- [ ] Forget :spaced",
               "- [ ] forgetful is not a removal", "+\u00a0[ ] non-breaking space", "- [ ] trailing\u2003",
               "- [ ] forget: Use pnpm"]
    assert count_open(text) == len(counted) == 12
    for line in text.splitlines():  # line by line too, so one miss cannot hide behind another
        assert count_open(line) == (1 if line in counted or line == "- [ ] FORGET: Use pnpm" else 0), line
    paths = enable(project)
    paths.pending_md.parent.mkdir(parents=True, exist_ok=True)
    paths.pending_md.write_text(text)
    nudge = run_hook("session-start", start_payload(project)).json()["additionalContext"]
    assert "[MEMORY REVIEW] 12 proposed directive(s)" in nudge


# The hook's small JSON reader and writer (omp.core.jsonlite) stand in for the json module.

JSON_SAMPLES = [
    '{"sessionId": "abc", "cwd": "/tmp/x", "timestamp": 1795982097017, "reason": "complete"}',
    '{"a": [1, -0, 0.5, -1.25e3, 1E-2, 10, 1e5, 123456789012345678901234567890], "b": {"c": null}}',
    '{"u": "caf\\u00e9 \\ud83d\\ude00 \\ud800 lone \\/ \\" \\\\ \\b\\f\\n\\r\\t", "e": "", "t": true, "f": false}',
    '  [ ]  ', "{}", "[]", '"plain"', "0", "-0.0", "1.0e+2", '{"dup": 1, "dup": 2}', '{"nested": [[[{"x": [[]]}]]]}',
    '{"k": "raw ünicode ✓"}',
    # not JSON, or JSON only the real parser accepts
    "", " ", "01", "1.", ".5", "+1", "1e", "1e+", "--1", "-", "[1,]", '{"a": 1,}', "'x'", '"\\x"', '"a\tb"',
    "nul", "tru", "[", "{", '"abc', "NaN", "-Infinity", "[1 2]", '{"a" 1}', '{"a": }', '{1: 2}', "[1]x",
    '"\\u12"', '"\\uZZZZ"', "[" * 50 + "]" * 49,
]


def _outcome(parse, text: str) -> tuple[str, str]:
    try:
        value = parse(text)
    except ValueError as exc:
        return ("error", type(exc).__name__)
    return ("ok", repr(value))


def test_json_reader_agrees_with_the_json_module() -> None:
    import random

    samples = list(JSON_SAMPLES)
    rng = random.Random(1234)
    alphabet = list('{}[]",:0123456789-+.eE \\u00ab truefalsn\n\t')
    for _ in range(3000):
        base = rng.choice(JSON_SAMPLES[:13])
        chars = list(base)
        for _ in range(rng.randint(1, 3)):  # damage it a little, somewhere
            where = rng.randrange(len(chars) + 1)
            action = rng.random()
            if action < 0.4 and chars:
                del chars[min(where, len(chars) - 1)]
            elif action < 0.8:
                chars.insert(where, rng.choice(alphabet))
            else:
                chars = chars[:where]
        samples.append("".join(chars))
    for text in samples:
        assert _outcome(jsonlite.loads, text) == _outcome(json.loads, text), text


def test_json_writer_agrees_with_the_json_module() -> None:
    values = [{}, {"additionalContext": "plain"}, {"k": 'quote " backslash \\ slash /'},
              {"k": "tab\t nl\n cr\r bs\b ff\f nul\x00 esc\x1b del\x7f"},
              {"k": "é — ✓ 😀 \u2028 \ud800"}, {"a": "1", "b": "2"}]
    for value in values:
        assert jsonlite.dumps(value) == json.dumps(value)
        assert json.loads(jsonlite.dumps(value)) == value
    assert jsonlite.dumps({"n": 1}) == json.dumps({"n": 1})  # anything else: the json module


# ---------------------------------------------------------------------------------------------
# detaching


SLEEPER = """
import os, sys, time
with open(sys.argv[1], "w") as f:
    f.write(str(os.getpid()))
print("sleeper started", flush=True)
time.sleep(120)
"""

PARENT = """
import sys
from omp.process import spawn_detached
child = spawn_detached([sys.executable, sys.argv[1], sys.argv[2]], sys.argv[3], delay=float(sys.argv[4]))
print(child.pid, flush=True)
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc to inspect the child")
@pytest.mark.parametrize("delay", [0.0, 0.3], ids=["at-once", "delayed"])
def test_detached_child_outlives_its_parent_and_holds_none_of_its_pipes(tmp_path: Path, delay: float) -> None:
    sleeper = tmp_path / "sleeper.py"
    sleeper.write_text(SLEEPER)
    parent = tmp_path / "parent.py"
    parent.write_text(PARENT)
    pid_file, log = tmp_path / "pid", tmp_path / "runs" / "child.log"
    # capture_output waits for EOF on the parent's stdout and stderr: it would hang for the
    # sleeper's 120 s if the child had inherited either pipe.
    proc = subprocess.run([sys.executable, str(parent), str(sleeper), str(pid_file), str(log), str(delay)],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    pid = int(proc.stdout.strip())
    try:
        wait_for(lambda: pid_file.exists() and pid_file.read_text(), 30, "the detached child to start")
        assert int(pid_file.read_text()) == pid  # a delayed start execs in place: the same process
        assert pid_alive(pid)
        assert os.getsid(pid) == pid  # leads its own session: no terminal signals reach it
        assert os.readlink(f"/proc/{pid}/fd/0") == os.devnull
        assert os.readlink(f"/proc/{pid}/fd/1") == str(log)
        assert os.readlink(f"/proc/{pid}/fd/2") == str(log)
        assert sorted(int(fd) for fd in os.listdir(f"/proc/{pid}/fd")) == [0, 1, 2]
        wait_for(lambda: "sleeper started" in log.read_text(), 30, "the child's output in its log")
    finally:
        kill_quietly(pid)


def test_run_logs_are_capped(tmp_path: Path) -> None:
    folder = tmp_path / "runs"
    folder.mkdir()
    for number in range(25):
        path = folder / f"review-{number:02d}.log"
        path.write_text("x")
        os.utime(path, (1_700_000_000 + number, 1_700_000_000 + number))
    prune_run_logs(str(folder), keep=20)
    assert sorted(p.name for p in folder.iterdir()) == [f"review-{n:02d}.log" for n in range(5, 25)]


def test_reviewer_env_file_reaches_the_detached_review(tmp_path: Path, isolated_home: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    env_file = isolated_home / ".omp" / "reviewer.env"
    env_file.parent.mkdir(parents=True)
    env_file.write_text(
        "# what Copilot strips from hook environments\n"
        "COPILOT_OFFLINE=true\n"
        "export COPILOT_PROVIDER_BASE_URL='http://127.0.0.1:9/v1'\n"
        "not a line\n"
        "9BAD=x\n"
    )
    assert read_env_file(env_file) == {"COPILOT_OFFLINE": "true", "COPILOT_PROVIDER_BASE_URL": "http://127.0.0.1:9/v1"}
    monkeypatch.setenv("OMP_REVIEWER", "1")  # even if the hook itself looked like a reviewer
    out = tmp_path / "env.json"
    child = spawn_detached(
        [sys.executable, "-c", f"import json, os; open({str(out)!r}, 'w').write(json.dumps(dict(os.environ)))"],
        tmp_path / "child.log",
        env=review_environment(),
    )
    seen = json.loads(wait_for(lambda: out.exists() and out.read_text(), 30, "the child's environment"))
    assert seen["COPILOT_OFFLINE"] == "true"
    assert seen["COPILOT_PROVIDER_BASE_URL"] == "http://127.0.0.1:9/v1"
    assert "OMP_REVIEWER" not in seen
    monkeypatch.setenv("OMP_REVIEWER_ENV_FILE", str(tmp_path / "other.env"))
    (tmp_path / "other.env").write_text("ONLY_THIS=1\n")
    assert review_environment({})["ONLY_THIS"] == "1"
    kill_quietly(child.pid)


def test_refreshed_context_cache_is_what_the_next_session_gets(project: Path) -> None:
    paths = enable(project, memory_inject="hook")
    add_directive(paths, "Prefer small commits")
    rendered = refresh_hook_context(project)
    cache = (project / ".omp" / "state" / "hook-context.txt").read_text()
    assert cache.endswith("\n" + rendered) and "Prefer small commits" in rendered
    assert run_hook("session-start", start_payload(project)).json()["additionalContext"] == rendered


def test_hook_mode_context_is_rendered_when_memory_changes_not_at_session_start(project: Path) -> None:
    from helpers import run_omp

    enable(project, **{"memory-inject": "hook"})
    cache = project / layout.CONTEXT_CACHE
    result = run_omp(["project-memory", "add-directive", "Run the linter before committing"], cwd=project)
    assert result.returncode == 0, result.stderr
    # The command that changed memory rendered the context; the next session only reads it.
    assert "Run the linter before committing" in cache.read_text(encoding="utf-8")
    before = cache.stat().st_mtime_ns
    out = run_hook("session-start", {"sessionId": SID, "cwd": str(project)})
    assert out.returncode == 0
    assert "Run the linter before committing" in out.json()["additionalContext"]
    assert cache.stat().st_mtime_ns == before
    assert not (project / ".github" / "copilot-instructions.md").exists()
