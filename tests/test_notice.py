"""The once-per-project "omp is installed but not reviewing this project" notice (docs/behaviour.md#copilot-integration, docs/reviewers.md#headless-runs-and-hooks-only).

Run as a user meets it: omp's hooks registered with `omp install --hooks-only`, the sessionStart
hook run by the very command Copilot runs (`C/hooks/omp.json`), `omp -p` with a stand-in Copilot,
and the command the notice prints run exactly as printed. Every "nothing is said" case also
shows that a project nobody configured, in the same home, does hear it: a check that says
nothing anywhere proves nothing.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from copilot_support import fake_copilot, records, run_hook
from helpers import git_project, run_omp, run_omp_process

from omp.core import notice as notice_rules

SID = "5b0e7c1a-2222-4d3c-8e66-4d2f1a7c8b02"
PATTERN = "not reviewing this project"


# ---------------------------------------------------------------------------------------------
# helpers


def install_hooks(tmp_path: Path) -> dict[str, object]:
    """`omp install --hooks-only` (no Copilot on PATH): returns the hooks file Copilot would load."""
    empty = tmp_path / "no-copilot-bin"
    empty.mkdir(exist_ok=True)
    result = run_omp(["install", "--hooks-only"], env={"PATH": f"{empty}:/usr/bin:/bin", "OMP_COPILOT_BIN": ""})
    assert result.returncode == 0, result.stderr
    return json.loads((Path(os.environ["COPILOT_HOME"]) / "hooks" / "omp.json").read_text())


def session_start(cwd: Path, env: dict[str, str] | None = None) -> dict[str, str]:
    """sessionStart as Copilot runs it: the registered hooks file's command, from the project,
    with the payload on stdin; its stdout must be one JSON object and its exit status 0."""
    hooks = json.loads((Path(os.environ["COPILOT_HOME"]) / "hooks" / "omp.json").read_text())
    command = hooks["hooks"]["sessionStart"][0]["bash"]
    payload = json.dumps({"sessionId": SID, "timestamp": 1795982096462, "cwd": str(cwd), "source": "new"})
    proc = subprocess.run(["bash", "-c", command], input=payload, text=True, capture_output=True, cwd=cwd,
                          env=dict(os.environ, **(env or {})), timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    return json.loads(proc.stdout)


def notice_of(output: dict[str, str]) -> str | None:
    context = output.get("additionalContext", "")
    return context if PATTERN in context else None


def commands_in(text: str) -> list[list[str]]:
    """The commands a notice prints, in order (each between backticks)."""
    return [shlex.split(found) for found in re.findall(r"`([^`]*omp [^`]+)`", text)]


def run_as_printed(command: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    """The command exactly as the notice printed it, from a shell's PATH (ours), in `cwd`."""
    return subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)


@pytest.fixture(autouse=True)
def omp_on_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An `omp` on PATH, as a pip/pipx install or an activated venv gives the user."""
    folder = tmp_path / "user-bin"
    folder.mkdir()
    script = folder / "omp"
    script.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m omp "$@"\n')
    script.chmod(0o755)
    monkeypatch.setenv("PATH", f"{folder}{os.pathsep}{os.environ['PATH']}")
    return script


def records_made() -> list[Path]:
    folder = Path(os.environ["OMP_HOME"]) / notice_rules.RECORDS
    return sorted(folder.iterdir()) if folder.is_dir() else []


def other_project(tmp_path: Path) -> Path:
    """A second git project in the same home, whose memory-mode nobody set (the control)."""
    folder = tmp_path / "control"
    folder.mkdir()
    return git_project(folder)


def memory_mode(project: Path) -> str:
    result = run_omp(["config", "get", "memory-mode"], cwd=project)
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


@pytest.fixture
def hooks(tmp_path: Path) -> None:
    install_hooks(tmp_path)


# ---------------------------------------------------------------------------------------------
# sessionStart


@pytest.mark.usefixtures("hooks")
def test_never_set_is_told_once_and_never_again(project: Path) -> None:
    first = notice_of(session_start(project))
    assert first is not None
    assert "omp is installed but not reviewing this project" in first
    assert commands_in(first) == [["omp", "config", "set", "memory-mode", "on"]]
    # The model alone reads additionalContext: it is asked to relay the line, not to act on it.
    assert "tell them once" in first and "do not run it yourself" in first
    assert len(first.splitlines()) == 1
    # The record is in G; the project is left as it was (memory is off: a hook writes nothing there).
    assert not (project / ".omp").exists()
    (record,) = records_made()
    assert json.loads(record.read_text())["root"] == str(project.resolve())
    # Never again: the next session, a resumed one, one started in a subfolder.
    assert session_start(project) == {}
    sub = project / "src" / "deep"
    sub.mkdir(parents=True)
    assert session_start(sub) == {}
    assert len(records_made()) == 1


@pytest.mark.usefixtures("hooks")
def test_a_symlinked_checkout_is_the_same_project(project: Path, tmp_path: Path) -> None:
    link = tmp_path / "link-to-proj"
    link.symlink_to(project, target_is_directory=True)
    assert notice_of(session_start(link)) is not None
    assert session_start(project) == {}


@pytest.mark.usefixtures("hooks")
def test_each_project_is_told_once_on_its_own(project: Path, tmp_path: Path) -> None:
    control = other_project(tmp_path)
    assert notice_of(session_start(project)) is not None
    assert notice_of(session_start(control)) is not None
    assert session_start(project) == {} and session_start(control) == {}


@pytest.mark.usefixtures("hooks")
@pytest.mark.parametrize("where", ["project", "global", "project via trust"])
def test_mode_set_off_on_purpose_hears_nothing(project: Path, where: str) -> None:
    scope = ["--global"] if where == "global" else []
    if where == "project via trust":  # a committed config that says off, read and approved by the user
        (project / ".omp").mkdir()
        (project / ".omp" / "config.json").write_text('{"memory-mode": "off"}\n')
        assert run_omp(["trust", "--yes"], cwd=project).returncode == 0
    else:
        assert run_omp(["config", "set", "memory-mode", "off", *scope], cwd=project).returncode == 0
    assert session_start(project) == {}
    assert session_start(project) == {}
    assert records_made() == []
    # The control: once no setting names the mode any more, the same project does hear it.
    assert run_omp(["config", "unset", "memory-mode", *scope], cwd=project).returncode == 0
    assert notice_of(session_start(project)) is not None


@pytest.mark.usefixtures("hooks")
@pytest.mark.parametrize("where", ["project", "global", "environment"])
def test_mode_on_hears_nothing(project: Path, where: str) -> None:
    scope = ["--global"] if where == "global" else []
    env = {"OMP_MEMORY_MODE": "on"} if where == "environment" else {}
    if not env:
        assert run_omp(["config", "set", "memory-mode", "on", *scope], cwd=project).returncode == 0
    assert notice_of(session_start(project, env)) is None
    assert records_made() == []
    if not env:  # the control, as above
        assert run_omp(["config", "unset", "memory-mode", *scope], cwd=project).returncode == 0
    assert notice_of(session_start(project)) is not None


@pytest.mark.usefixtures("hooks")
@pytest.mark.parametrize("env", [{"OMP_REVIEWER": "1"}, {"OMP_MEMORY_MODE": "off"}], ids=["OMP_REVIEWER", "mode-off-env"])
def test_a_reviewer_session_hears_nothing_and_does_not_use_up_the_notice(project: Path, env: dict[str, str]) -> None:
    assert session_start(project, env) == {}
    assert records_made() == []
    # The user's own first session still hears it.
    assert notice_of(session_start(project)) is not None


@pytest.mark.usefixtures("hooks")
def test_outside_a_git_project_nothing_is_said_or_written(tmp_path: Path, isolated_home: Path) -> None:
    plain = tmp_path / "plain" / "folder"
    plain.mkdir(parents=True)
    assert session_start(plain) == {}
    subprocess.run(["git", "init", "-q", str(isolated_home)], check=True)  # a dotfiles repository in $HOME
    assert session_start(isolated_home) == {}
    assert records_made() == []
    assert notice_of(session_start(other_project(tmp_path))) is not None


def test_two_sessions_starting_at_once_say_it_once(project: Path) -> None:
    payload = json.dumps({"sessionId": SID, "cwd": str(project)}).encode()
    procs = [subprocess.Popen([sys.executable, "-m", "omp.hooks", "session-start"], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=project) for _ in range(6)]
    outputs = [json.loads(proc.communicate(payload, timeout=60)[0]) for proc in procs]
    assert sum(notice_of(output) is not None for output in outputs) == 1
    assert len(records_made()) == 1


def test_a_record_that_cannot_be_written_means_no_notice_and_no_broken_session(project: Path) -> None:
    home = Path(os.environ["OMP_HOME"])
    home.mkdir(exist_ok=True)
    (home / "state").write_text("a file where omp's state folder belongs\n")  # root or not, no folder in it
    result = run_hook("session-start", {"sessionId": SID, "cwd": str(project)}, cwd=project)
    again = run_hook("session-start", {"sessionId": SID, "cwd": str(project)}, cwd=project)
    for said in (result, again):  # said at every session, it would be a nag: said never
        assert said.returncode == 0 and said.stdout == "{}\n"
    assert "cannot be written" in result.stderr
    assert "cannot be written" in (home / "logs" / "hooks.log").read_text()


# ---------------------------------------------------------------------------------------------
# the printed command works as printed


@pytest.mark.usefixtures("hooks")
def test_the_printed_command_turns_memory_on(project: Path) -> None:
    sub = project / "pkg"
    sub.mkdir()
    notice = notice_of(session_start(sub))
    assert notice is not None and memory_mode(project) == "memory-mode=off"
    for command in commands_in(notice):  # where the agent's shell is: the session's folder
        assert command[0] == "omp"
        result = run_as_printed(command, sub)
        assert result.returncode == 0, result.stderr
    assert memory_mode(project) == "memory-mode=on"
    assert (project / ".omp" / "state" / "memory-on-since").is_file()
    assert session_start(project) == {}


@pytest.mark.usefixtures("hooks")
def test_without_omp_on_path_the_printed_command_names_the_python_that_has_it(project: Path,
                                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    # omp installed in a venv that is not activated: the hooks still run (the interpreter
    # `omp install` wrote down), but a bare `omp` typed in a shell would not be found.
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    notice = notice_of(session_start(project))
    assert notice is not None
    (command,) = commands_in(notice)
    assert command == [sys.executable, "-m", "omp", "config", "set", "memory-mode", "on"]
    result = run_as_printed(command, project)
    assert result.returncode == 0, result.stderr
    assert memory_mode(project) == "memory-mode=on"


def _run_at_a_terminal(command: list[str], cwd: Path, answer: str) -> tuple[int, str]:
    """Run `command` with a terminal for stdin (as a person does), typing `answer`."""
    import pty

    controller, terminal = pty.openpty()
    try:
        proc = subprocess.Popen(command, cwd=cwd, stdin=terminal, stdout=terminal, stderr=terminal)
        os.write(controller, f"{answer}\n".encode())
        code = proc.wait(timeout=60)
        shown = os.read(controller, 65536).decode(errors="replace")
    finally:
        os.close(controller)
        os.close(terminal)
    return code, shown


@pytest.mark.skipif(os.name == "nt", reason="a POSIX terminal")
@pytest.mark.usefixtures("hooks")
def test_with_an_untrusted_config_the_printed_commands_still_turn_memory_on(project: Path) -> None:
    # A cloned repository committed its own settings (not memory-mode): omp ignores the file.
    (project / ".omp").mkdir()
    (project / ".omp" / "config.json").write_text('{"memory-note-cap": 5}\n')
    subprocess.run(["git", "-C", str(project), "add", "-f", ".omp/config.json"], check=True)
    subprocess.run(["git", "-C", str(project), "commit", "-qm", "settings"], check=True)
    notice = notice_of(session_start(project))
    assert notice is not None and "ignored" in notice and len(notice.splitlines()) == 1
    commands = commands_in(notice)
    assert commands == [["omp", "trust"], ["omp", "config", "set", "memory-mode", "on"]]
    # `omp config set` alone is refused on an untrusted file: that is why the notice names omp trust first.
    refused = run_as_printed(commands[1], project)
    assert refused.returncode != 0 and "not trusted" in refused.stderr
    code, shown = _run_at_a_terminal(commands[0], project, "y")
    assert code == 0 and "memory-note-cap" in shown
    result = run_as_printed(commands[1], project)
    assert result.returncode == 0, result.stderr
    assert memory_mode(project) == "memory-mode=on"
    # The next session: memory on, nothing ignored, no notice.
    assert notice_of(session_start(project)) is None


@pytest.mark.usefixtures("hooks")
def test_an_ignored_config_is_still_named_after_the_notice(project: Path) -> None:
    (project / ".omp").mkdir()
    (project / ".omp" / "config.json").write_text('{"memory-mode": "on"}\n')
    assert notice_of(session_start(project)) is not None
    context = session_start(project)["additionalContext"]
    assert PATTERN not in context and "omp trust" in context


# ---------------------------------------------------------------------------------------------
# omp -p / omp launch


@pytest.fixture
def copilot(tmp_path: Path) -> tuple[Path, Path]:
    if os.name == "nt":
        pytest.skip("the stand-in copilot is a #!/bin/sh script")
    return fake_copilot(tmp_path), tmp_path / "copilot-runs.jsonl"


def wrapper_env(copilot: tuple[Path, Path], **extra: str) -> dict[str, str]:
    return {"OMP_COPILOT_BIN": str(copilot[0]), "FAKE_COPILOT_RECORD": str(copilot[1]), **extra}


def notice_lines(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if PATTERN in line]


@pytest.mark.usefixtures("hooks")
def test_omp_p_says_it_once_on_stderr_before_copilot_runs(project: Path, copilot: tuple[Path, Path]) -> None:
    first = run_omp_process(["-p", "remember that we use yarn"], cwd=project, env=wrapper_env(copilot))
    assert first.returncode == 0
    assert first.stdout == "copilot says: remember that we use yarn\n"  # stdout is Copilot's answer alone
    lines = first.stderr.splitlines()
    assert len(notice_lines(first.stderr)) == 1
    assert lines[0].startswith("omp: ") and PATTERN in lines[0]  # before anything Copilot says
    assert lines[1:] == ["copilot stderr line"]
    assert commands_in(lines[0]) == [["omp", "config", "set", "memory-mode", "on"]]
    second = run_omp_process(["launch", "--", "-p", "again"], cwd=project, env=wrapper_env(copilot))
    assert second.returncode == 0 and second.stderr == "copilot stderr line\n"
    # omp -p and the sessionStart hook share the record: the hook does not say it again.
    assert session_start(project) == {}


@pytest.mark.usefixtures("hooks")
def test_omp_p_printed_command_turns_memory_on(project: Path, copilot: tuple[Path, Path]) -> None:
    first = run_omp_process(["-p", "hi"], cwd=project, env=wrapper_env(copilot))
    (line,) = notice_lines(first.stderr)
    for command in commands_in(line):
        assert run_as_printed(command, project).returncode == 0
    assert memory_mode(project) == "memory-mode=on"


@pytest.mark.usefixtures("hooks")
def test_omp_p_for_another_folder_names_that_project(project: Path, copilot: tuple[Path, Path],
                                                    tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    result = run_omp_process(["-p", "hi", "-C", str(project)], cwd=elsewhere, env=wrapper_env(copilot))
    (line,) = notice_lines(result.stderr)
    (command,) = commands_in(line)
    assert command[-2:] == ["--root", str(project.resolve())]
    assert run_as_printed(command, elsewhere).returncode == 0
    assert memory_mode(project) == "memory-mode=on"


@pytest.mark.usefixtures("hooks")
@pytest.mark.parametrize("args,env", [
    (["-p", "hi"], {"OMP_REVIEWER": "1"}),
    (["-p", "hi"], {"OMP_MEMORY_MODE": "on"}),
    (["launch", "--", "plugin", "list"], {}),
    (["launch", "--", "--version"], {}),
], ids=["reviewer", "mode-on", "subcommand", "version"])
def test_omp_p_says_nothing_where_no_session_of_the_user_is_reviewed(project: Path, copilot: tuple[Path, Path],
                                                                    args: list[str], env: dict[str, str]) -> None:
    result = run_omp_process(args, cwd=project, env=wrapper_env(copilot, **env))
    assert result.returncode == 0 and notice_lines(result.stderr) == []
    assert records_made() == []
    told = run_omp_process(["-p", "hi"], cwd=project, env=wrapper_env(copilot))  # the control: the user's own run
    assert len(notice_lines(told.stderr)) == 1


def test_omp_p_without_omps_hooks_registered_says_nothing(project: Path, copilot: tuple[Path, Path],
                                                         tmp_path: Path) -> None:
    result = run_omp_process(["-p", "hi"], cwd=project, env=wrapper_env(copilot))
    assert result.returncode == 0 and result.stderr == "copilot stderr line\n"
    assert records_made() == []
    install_hooks(tmp_path)  # the control: once registered, the same run is told
    told = run_omp_process(["-p", "hi"], cwd=project, env=wrapper_env(copilot))
    assert len(notice_lines(told.stderr)) == 1
    assert len(records(copilot[1])) == 2


def test_omp_p_outside_a_git_project_says_nothing(tmp_path: Path, copilot: tuple[Path, Path]) -> None:
    install_hooks(tmp_path)
    plain = tmp_path / "plain"
    plain.mkdir()
    result = run_omp_process(["-p", "hi"], cwd=plain, env=wrapper_env(copilot))
    assert result.returncode == 0 and result.stderr == "copilot stderr line\n"
    assert records_made() == []
    told = run_omp_process(["-p", "hi"], cwd=other_project(tmp_path), env=wrapper_env(copilot))
    assert len(notice_lines(told.stderr)) == 1
