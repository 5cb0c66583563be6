"""The hook's render reads the block's caps with omp.core.settings (docs/performance.md#where-speed-matters):
for every value it decides, it decides what omp.config decides, and it hands every other one to
omp.config (Unsure), whose error the hook reports."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from omp import config, trust
from omp.core import settings as core_settings
from omp.paths import GlobalPaths, ProjectPaths

CAP = "memory-note-cap"

# (where, value as the layer holds it): the environment holds text, a file holds JSON values.
CASES = [
    ("env", "7"), ("env", " 7 "), ("env", "007"), ("env", "1000"), ("env", "1001"), ("env", "0"), ("env", "-3"),
    ("env", "+7"), ("env", "1_0"), ("env", "７"), ("env", "7.0"), ("env", "seven"), ("env", "9" * 41),
    ("project", 7), ("project", 1000), ("project", 1001), ("project", 0), ("project", True), ("project", 7.0),
    ("project", "7"), ("project", None), ("project", [7]),
    ("global", 7), ("global", 100_000), ("global", -1), ("global", False), ("global", "12"),
]


def _layers(project: Path, where: str, value: object, key: str = CAP) -> dict[str, str]:
    """Put `value` for `key` in one layer (a project file as the user approved it); the env."""
    env = {name: text for name, text in os.environ.items() if not name.startswith("OMP_MEMORY_")}
    if where == "env":
        env[core_settings.env_var(key)] = str(value)
    elif where == "project":
        raw = json.dumps({key: value}).encode()
        (project / ".omp").mkdir(exist_ok=True)
        (project / ".omp" / "config.json").write_bytes(raw)
        trust.record(ProjectPaths(project), raw, "test")
    else:
        home = GlobalPaths.current().home
        home.mkdir(parents=True, exist_ok=True)
        (home / "config.json").write_text(json.dumps({key: value}), encoding="utf-8")
    return env


def _library(project: Path, env: dict[str, str]) -> dict[str, object] | str:
    """What omp.config resolves for the block's keys, or "error"."""
    saved = dict(os.environ)
    os.environ.clear()
    os.environ.update(env)
    try:
        resolved = config.resolve(ProjectPaths(project))
    except Exception:  # noqa: BLE001  (the kind of error is omp.config's to choose)
        return "error"
    finally:
        os.environ.clear()
        os.environ.update(saved)
    return {name: resolved[name].value for name in config.BLOCK_KEYS}


@pytest.mark.parametrize(("where", "value"), CASES)
def test_the_hooks_reading_of_a_cap_is_the_librarys_or_unsure(project: Path, where: str, value: object) -> None:
    env = _layers(project, where, value)
    library = _library(project, env)
    try:
        hook = core_settings.block_settings(str(project), env)
    except core_settings.Unsure:
        return  # omp.config judges it, and words the error when there is one
    assert hook == library


@pytest.mark.parametrize("value", ["hook", " HOOK ", "block", "both", 1, None])
def test_the_hooks_reading_of_memory_inject_is_the_librarys_or_unsure(project: Path, value: object) -> None:
    env = _layers(project, "global", value, key="memory-inject")
    try:
        hook = core_settings.block_settings(None, env)["memory-inject"]
    except core_settings.Unsure:
        return
    assert _library(project, env) != "error" and hook == config.resolve(None)["memory-inject"].value


def test_the_plain_cases_are_decided_without_the_library(project: Path) -> None:
    """Unsure is for what is out of the ordinary, not the usual: a default, a plain number."""
    for where, value in [("env", "7"), ("env", " 007 "), ("project", 7), ("global", 1000)]:
        env = _layers(project, where, value)
        assert core_settings.block_settings(str(project), env)[CAP] == int(str(value))
        (project / ".omp" / "config.json").unlink(missing_ok=True)
        (GlobalPaths.current().home / "config.json").unlink(missing_ok=True)


def test_an_untrusted_project_config_counts_for_neither(project: Path) -> None:
    (project / ".omp").mkdir()
    (project / ".omp" / "config.json").write_text(json.dumps({CAP: 3}), encoding="utf-8")
    env = {name: text for name, text in os.environ.items() if not name.startswith("OMP_MEMORY_")}
    assert core_settings.block_settings(str(project), env)[CAP] == 12 == _library(project, env)[CAP]  # type: ignore[index]
