"""`omp config`: layered precedence, validation, corrupt files, concurrency (docs/reference/config.md)."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from helpers import run_omp
from omp.config import KEYS


def _write_json(path: Path, value: object) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value), encoding="utf-8")


def _write_trusted(project: Path, value: object) -> None:
    """A hand-written project config, then approved as a user would (`omp trust --yes`)."""
    _write_json(project / ".omp" / "config.json", value)
    approved = run_omp(["trust", "--yes"], cwd=project)
    assert approved.returncode == 0, approved.stderr


def test_get_lists_every_key_in_table_order_with_defaults(project: Path) -> None:
    result = run_omp(["config", "get"], cwd=project)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert [line.split("=", 1)[0] for line in lines] == list(KEYS)
    assert "memory-mode=off" in lines
    assert "memory-review-max-input-tokens=24000" in lines
    assert "memory-inject=block" in lines


@pytest.mark.parametrize(
    ("key", "env_value", "project_value", "global_value", "default"),
    [
        ("memory-mode", "on", "off", "on", "off"),
        ("memory-review-model", "env-model", "proj-model", "glob-model", "gpt-5-mini"),
        ("memory-note-cap", "7", 8, 9, 12),
    ],
)
def test_precedence_env_over_project_over_global_over_default(
    project: Path, isolated_home: Path, key: str, env_value: str, project_value: object, global_value: object, default: object
) -> None:
    env_var = KEYS[key].env_var
    global_file = isolated_home / ".omp" / "config.json"
    project_file = project / ".omp" / "config.json"

    def origin_of() -> dict:
        return run_omp(["config", "get", key, "--json", "--show-origin"], cwd=project).json()[key]

    assert origin_of() == {"value": default, "origin": "default"}
    _write_json(global_file, {key: global_value})
    assert origin_of() == {"value": global_value, "origin": "global"}
    _write_json(project_file, {key: project_value})
    assert origin_of() == {"value": global_value, "origin": "global"}  # not trusted yet: ignored
    _write_trusted(project, {key: project_value})
    assert origin_of() == {"value": project_value, "origin": "project"}
    result = run_omp(["config", "get", key, "--json", "--show-origin"], cwd=project, env={env_var: env_value})
    expected = int(env_value) if isinstance(default, int) else env_value
    assert result.json()[key] == {"value": expected, "origin": "env"}


def test_omp_memory_mode_env_wins_for_memory_mode_only(project: Path) -> None:
    assert run_omp(["config", "set", "memory-mode", "off"], cwd=project).returncode == 0
    assert run_omp(["config", "set", "memory-note-cap", "3"], cwd=project).returncode == 0
    result = run_omp(["config", "get", "--show-origin"], cwd=project, env={"OMP_MEMORY_MODE": "on"})
    lines = result.stdout.splitlines()
    assert "env\tmemory-mode=on" in lines
    assert "project\tmemory-note-cap=3" in lines
    assert "default\tmemory-directive-cap=12" in lines


def test_set_stores_typed_json_and_keeps_unknown_keys(project: Path) -> None:
    config_file = project / ".omp" / "config.json"
    _write_trusted(project, {"future-key": {"nested": [1, 2]}, "memory-mode": "off"})
    assert run_omp(["config", "set", "memory-note-cap", "5"], cwd=project).returncode == 0
    assert run_omp(["config", "set", "memory-mode", "on"], cwd=project).returncode == 0
    stored = json.loads(config_file.read_text())
    assert stored == {"future-key": {"nested": [1, 2]}, "memory-mode": "on", "memory-note-cap": 5}
    assert isinstance(stored["memory-note-cap"], int)


def test_set_global_and_unset(project: Path, isolated_home: Path) -> None:
    assert run_omp(["config", "set", "memory-review-model", "claude-haiku-4.5", "--global"], cwd=project).returncode == 0
    assert json.loads((isolated_home / ".omp" / "config.json").read_text()) == {"memory-review-model": "claude-haiku-4.5"}
    assert not (project / ".omp" / "config.json").exists()
    assert run_omp(["config", "get", "memory-review-model"], cwd=project).stdout.strip() == "memory-review-model=claude-haiku-4.5"
    result = run_omp(["config", "unset", "memory-review-model", "--global"], cwd=project)
    assert result.returncode == 0
    assert json.loads((isolated_home / ".omp" / "config.json").read_text()) == {}
    assert run_omp(["config", "get", "memory-review-model"], cwd=project).stdout.strip() == "memory-review-model=gpt-5-mini"


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("memory-mode", "yes"),
        ("memory-reviewer", "gpt"),
        ("memory-review-min-messages", "-1"),
        ("memory-review-min-messages", "four"),
        ("memory-review-timeout", "0"),
        ("memory-review-timeout", "nan"),
        ("memory-review-max-input-tokens", "999"),
        ("memory-note-cap", "0"),
        ("memory-note-char-cap", "1.5"),
        ("memory-directive-cap", ""),
        ("memory-directive-char-cap", "0"),
        ("memory-note-auto-keep", "-3"),
        ("memory-pending-retention-days", "soon"),
        ("memory-inject", "both"),
        ("memory-review-model", "bad model name"),
        ("memory-reviewer-command", "'unclosed"),
    ],
)
def test_bad_value_exits_2_names_key_and_writes_nothing(project: Path, key: str, value: str) -> None:
    config_file = project / ".omp" / "config.json"
    _write_json(config_file, {"memory-mode": "on"})
    before = config_file.read_bytes()
    result = run_omp(["config", "set", key, value], cwd=project)
    assert result.returncode == 2
    assert key in result.stderr
    assert "expected" in result.stderr
    assert config_file.read_bytes() == before


def test_bad_value_in_fresh_project_creates_nothing(project: Path) -> None:
    result = run_omp(["config", "set", "memory-mode", "maybe"], cwd=project)
    assert result.returncode == 2
    assert not (project / ".omp").exists()
    assert not (project / ".gitignore").exists()


@pytest.mark.parametrize("command", [["set", "memory-colour", "blue"], ["get", "memory-colour"], ["unset", "memory-colour"]])
def test_unknown_key_exits_2_and_writes_nothing(project: Path, command: list[str]) -> None:
    result = run_omp(["config", *command], cwd=project)
    assert result.returncode == 2
    assert "memory-colour" in result.stderr
    assert "known keys" in result.stderr
    assert not (project / ".omp").exists()


def test_invalid_environment_value_is_named(project: Path) -> None:
    result = run_omp(["config", "get"], cwd=project, env={"OMP_MEMORY_MODE": "sometimes"})
    assert result.returncode == 2
    assert "OMP_MEMORY_MODE" in result.stderr


def test_corrupt_global_config_file_is_reported_and_never_rewritten(project: Path, isolated_home: Path) -> None:
    path = isolated_home / ".omp" / "config.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    corrupt = b'{\n  "memory-mode": "on",\n  "memory-note-cap": 4,,\n}\n'
    path.write_bytes(corrupt)

    got = run_omp(["config", "get"], cwd=project)
    assert got.returncode == 1
    assert str(path) in got.stderr
    assert "line 3" in got.stderr
    assert path.read_bytes() == corrupt

    refused = run_omp(["config", "set", "memory-mode", "off", "--global"], cwd=project)
    assert refused.returncode == 1
    assert str(path) in refused.stderr
    assert path.read_bytes() == corrupt


def test_corrupt_untrusted_project_config_is_ignored_and_never_rewritten(project: Path) -> None:
    # A project config omp did not write is never even parsed (docs/trust.md#a-repository-never-chooses-what-runs): it cannot break omp,
    # and it is not rewritten either.
    path = project / ".omp" / "config.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    corrupt = b'{\n  "memory-mode": "on",\n  "memory-note-cap": 4,,\n}\n'
    path.write_bytes(corrupt)

    got = run_omp(["config", "get", "memory-mode"], cwd=project)
    assert got.returncode == 0 and got.stdout == "memory-mode=off\n"
    assert str(path) in got.stderr and "omp trust" in got.stderr

    refused = run_omp(["config", "set", "memory-mode", "off"], cwd=project)
    assert refused.returncode == 1
    assert str(path) in refused.stderr and "omp trust" in refused.stderr
    assert path.read_bytes() == corrupt

    cannot = run_omp(["trust", "--yes"], cwd=project)
    assert cannot.returncode == 1 and "line 3" in cannot.stderr
    assert path.read_bytes() == corrupt


def test_config_that_is_not_an_object_cannot_be_trusted(project: Path) -> None:
    path = project / ".omp" / "config.json"
    _write_json(path, ["memory-mode", "on"])
    before = path.read_bytes()
    result = run_omp(["trust", "--yes"], cwd=project)
    assert result.returncode == 1
    assert "expected a JSON object" in result.stderr
    assert run_omp(["config", "set", "memory-mode", "on"], cwd=project).returncode == 1
    assert path.read_bytes() == before


def test_hand_written_bad_stored_value_is_reported_with_fix(project: Path, isolated_home: Path) -> None:
    _write_json(isolated_home / ".omp" / "config.json", {"memory-note-cap": "lots"})
    result = run_omp(["config", "get"], cwd=project)
    assert result.returncode == 1
    assert "memory-note-cap" in result.stderr
    assert "omp config unset memory-note-cap --global" in result.stderr
    # The same value in a project config cannot even be trusted: omp trust names the fix.
    _write_json(project / ".omp" / "config.json", {"memory-note-cap": "lots"})
    refused = run_omp(["trust", "--yes"], cwd=project)
    assert refused.returncode == 1
    assert "memory-note-cap" in refused.stderr and "expected" in refused.stderr


# A valid non-default value for every key, so each writer's change is visible afterwards.
NON_DEFAULT = {
    "memory-mode": "on",
    "memory-review-model": "claude-haiku-4.5",
    "memory-reviewer": "offline",
    "memory-reviewer-command": "ollama run llama3",
    "memory-reviewer-url": "http://127.0.0.1:11434/v1",
    "memory-review-min-messages": 2,
    "memory-review-timeout": 45,
    "memory-review-max-input-tokens": 9000,
    "memory-note-cap": 5,
    "memory-note-char-cap": 700,
    "memory-directive-cap": 6,
    "memory-directive-char-cap": 800,
    "memory-note-auto-keep": 50,
    "memory-pending-retention-days": 10,
    "memory-inject": "hook",
}


@pytest.mark.slow
def test_twenty_processes_setting_twenty_keys_keep_all_values(project: Path, isolated_home: Path) -> None:
    # Only 15 keys exist, so 20 distinct writes are all 15 in the project file plus 5 in the
    # global one: 20 processes racing on two files, each lock-protected read-modify-write.
    assert list(NON_DEFAULT) == list(KEYS)
    jobs = [(key, [], value) for key, value in NON_DEFAULT.items()]
    jobs += [(key, ["--global"], value) for key, value in list(NON_DEFAULT.items())[5:10]]
    assert len(jobs) == 20

    def run(job: tuple[str, list[str], object]) -> int:
        key, scope, value = job
        # real processes: the race is between programs (an in-process run owns the whole process)
        return run_omp(["config", "set", key, str(value), *scope], cwd=project, timeout=120, subprocess=True).returncode

    with ThreadPoolExecutor(max_workers=20) as pool:
        assert list(pool.map(run, jobs)) == [0] * 20
    project_file = json.loads((project / ".omp" / "config.json").read_text())
    global_file = json.loads((isolated_home / ".omp" / "config.json").read_text())
    assert project_file == NON_DEFAULT
    assert global_file == {key: value for key, scope, value in jobs if scope}
    shown = run_omp(["config", "get", "--json", "--show-origin"], cwd=project).json()
    assert shown == {key: {"value": value, "origin": "project"} for key, value in NON_DEFAULT.items()}


def test_first_project_write_adds_gitignore_block_once(project: Path) -> None:
    (project / ".gitignore").write_text("node_modules/\n")
    run_omp(["config", "set", "memory-mode", "on"], cwd=project)
    run_omp(["config", "set", "memory-mode", "off"], cwd=project)
    text = (project / ".gitignore").read_text()
    assert text.startswith("node_modules/\n")
    assert text.count(".omp/") == 1
    assert ".oh-my-copilot/" in text


def test_console_script_and_python_module_are_the_same_program(project: Path) -> None:
    import subprocess
    import sys

    script = Path(sys.executable).parent / "omp"
    assert script.exists(), "pip install did not create the omp command"
    via_script = subprocess.run([str(script), "config", "get"], cwd=project, capture_output=True, text=True)
    via_module = run_omp(["config", "get"], cwd=project)
    assert via_script.returncode == via_module.returncode == 0
    assert via_script.stdout == via_module.stdout
