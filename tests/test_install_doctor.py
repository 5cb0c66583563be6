"""`omp install` and `omp doctor` (docs/install.md, docs/doctor.md), and the plugin files themselves.

Most tests use a stand-in `copilot`; the ones marked e2e run the real Copilot CLI from npm
(skipped when it is not installed) to register the plugin the three ways a user can.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

import pytest

from copilot_support import PLUGIN, REPO, copilot_binary, copilot_env, fake_copilot, run_logs
from helpers import run_omp
from review_support import FakeReviewer, reply

from omp import __version__, config
from omp.install import write_plugin
from omp.paths import ProjectPaths
from omp.review import claim as claims
from omp.review import queue

# These tests start omp's detached reviews (sessionEnd hooks, the wrapper) without waiting for
# their outcome: each one ends them when it ends (conftest.py; anything else left running fails).
pytestmark = pytest.mark.usefixtures("ends_detached_runs")

PLUGIN_FILES = ("plugin.json", "hooks/hooks.json", "hooks/run", "hooks/run.ps1")
SID = "5d4cbb1e-2f0a-4d7e-8c1b-0a9e2f6d3c11"
needs_copilot = pytest.mark.skipif(copilot_binary() is None, reason="the real Copilot CLI is not installed "
                                   "(run .ci/install-copilot, or set OMP_E2E_COPILOT_BIN)")


def no_copilot_env(tmp_path: Path) -> dict[str, str]:
    """PATH with the basics but no `copilot`."""
    empty = tmp_path / "empty-bin"
    empty.mkdir(exist_ok=True)
    return {"PATH": f"{empty}:/usr/bin:/bin", "OMP_COPILOT_BIN": ""}


def home_paths(home: Path) -> tuple[Path, Path]:
    """(G, C) for the test's isolated home."""
    return home / ".omp", home / ".copilot"


# ---------------------------------------------------------------------------------------------
# the plugin files


def test_the_plugin_files_exist_once_inside_the_package() -> None:
    """One copy: `omp/plugin/` is the marketplace's source and what `omp install` writes out. The
    repository root's `plugin.json` and `hooks/` (docs/install.md) are links to it, never second copies,
    and no other place Copilot CLI looks for a plugin holds one."""
    for relative in PLUGIN_FILES:
        assert (PLUGIN / relative).is_file(), relative
    assert os.access(PLUGIN / "hooks" / "run", os.X_OK)
    for link in ("plugin.json", "hooks"):
        assert (REPO / link).is_symlink(), f"{link} at the root must be a link, not a copy"
        assert (REPO / link).resolve() == (PLUGIN / link).resolve()
    for place in (".plugin/plugin.json", ".github/plugin/plugin.json", ".claude-plugin/plugin.json"):
        assert not (REPO / place).exists(), place


def test_plugin_manifest_hooks_and_marketplace() -> None:
    manifest = json.loads((PLUGIN / "plugin.json").read_text())
    assert manifest["name"] == "omp" and manifest["description"]
    assert (PLUGIN / manifest["hooks"]).is_file()
    hooks = json.loads((PLUGIN / manifest["hooks"]).read_text())
    assert hooks["version"] == 1
    assert set(hooks["hooks"]) == {"sessionStart", "sessionEnd"}
    for entries in hooks["hooks"].values():
        for entry in entries:
            assert entry["type"] == "command" and entry["bash"] and entry["powershell"] and entry["timeoutSec"] > 0
    market = json.loads((REPO / ".github" / "plugin" / "marketplace.json").read_text())
    assert market["name"] and market["owner"]
    # Only the plugin folder, never the whole checkout (its .venv, build output, …).
    assert [(p["name"], p["source"]) for p in market["plugins"]] == [("omp", "./omp/plugin")]
    # One version, omp.__version__: no committed manifest carries a second copy (Copilot CLI
    # requires none; `omp install` writes it into the manifest it registers).
    assert "version" not in manifest and "version" not in market["plugins"][0]


def test_one_version_the_package_metadata_and_the_registered_manifest_read_it(tmp_path: Path) -> None:
    assert version("omp") == __version__  # pyproject.toml: dynamic, from omp.__version__
    written = write_plugin(tmp_path / "plugin", sys.executable)
    manifest = json.loads((written / "plugin.json").read_text())
    assert manifest.pop("version") == __version__
    assert manifest == json.loads((PLUGIN / "plugin.json").read_text())
    for relative in PLUGIN_FILES[1:]:
        assert (written / relative).read_bytes() == (PLUGIN / relative).read_bytes(), relative


# ---------------------------------------------------------------------------------------------
# the run script: which Python runs the hooks


def _plugin_copy(tmp_path: Path, interpreter: str | None) -> Path:
    plugin = tmp_path / "plugin"
    for relative in PLUGIN_FILES:
        (plugin / relative).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(PLUGIN / relative, plugin / relative)
    if interpreter:
        (plugin / "hooks" / "interpreter").write_text(interpreter + "\n")
    return plugin


def _recorded_session(project: Path) -> None:
    """The session's events.jsonl: a hook starts a review only for a session Copilot recorded."""
    events = Path(os.environ["COPILOT_HOME"]) / "session-state" / SID / "events.jsonl"
    events.parent.mkdir(parents=True, exist_ok=True)
    events.write_text(json.dumps({"type": "session.start", "data": {"context": {"cwd": str(project)}}}) + "\n")


def _run_script(plugin: Path, project: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    _recorded_session(project)
    payload = json.dumps({"sessionId": SID, "cwd": str(project)})
    full = dict(os.environ, OMP_MEMORY_MODE="on", **env)
    full.pop("OMP_PYTHON", None) if "OMP_PYTHON" not in env else None
    return subprocess.run(["sh", str(plugin / "hooks" / "run"), "session-end"], input=payload, text=True,
                          capture_output=True, env=full, cwd=plugin, timeout=60)


def test_run_script_uses_the_baked_interpreter(tmp_path: Path, project: Path) -> None:
    plugin = _plugin_copy(tmp_path, sys.executable)
    result = _run_script(plugin, project, no_copilot_env(tmp_path))
    assert (result.returncode, result.stdout, result.stderr) == (0, "{}\n", "")
    assert len(run_logs(project, f"review-{SID}-")) == 1


def test_run_script_is_not_fooled_by_an_omp_folder_where_it_runs(tmp_path: Path, project: Path) -> None:
    plugin = _plugin_copy(tmp_path, sys.executable)
    shadow = plugin / "omp"  # e.g. a clone of omp added as a marketplace: its root is the hook's cwd
    shadow.mkdir()
    (shadow / "__init__.py").write_text("raise SystemExit('the folder copy was imported')\n")
    result = _run_script(plugin, project, no_copilot_env(tmp_path))
    assert (result.returncode, result.stdout, result.stderr) == (0, "{}\n", "")
    assert len(run_logs(project, f"review-{SID}-")) == 1


def test_run_script_falls_back_to_omp_on_path_with_a_hint(tmp_path: Path, project: Path) -> None:
    plugin = _plugin_copy(tmp_path, str(tmp_path / "gone" / "python"))
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "omp").write_text(f"#!{sys.executable}\nimport sys\nfrom omp.cli import main\nsys.exit(main())\n")
    (bin_dir / "omp").chmod(0o755)
    result = _run_script(plugin, project, {"PATH": f"{bin_dir}:/usr/bin:/bin"})
    assert result.returncode == 0 and result.stdout == "{}\n"
    hint = result.stderr.strip().splitlines()
    assert len(hint) == 1 and "is gone" in hint[0] and "omp install" in hint[0]
    assert len(run_logs(project, f"review-{SID}-")) == 1


def test_run_script_honours_omp_python(tmp_path: Path, project: Path) -> None:
    plugin = _plugin_copy(tmp_path, None)
    result = _run_script(plugin, project, {"OMP_PYTHON": sys.executable, "PATH": "/usr/bin:/bin"})
    assert (result.returncode, result.stdout) == (0, "{}\n")
    assert len(run_logs(project, f"review-{SID}-")) == 1


def test_run_script_without_any_omp_prints_empty_object(tmp_path: Path, project: Path) -> None:
    plugin = _plugin_copy(tmp_path, None)
    empty = tmp_path / "empty"
    empty.mkdir()
    # sh, head and dirname only: no omp, no python3 that can import omp.
    for tool in ("sh", "head", "dirname"):
        (empty / tool).symlink_to(shutil.which(tool))
    result = _run_script(plugin, project, {"PATH": str(empty)})
    assert result.returncode == 0 and result.stdout == "{}\n"
    assert "no Python with omp installed" in result.stderr
    assert run_logs(project) == []


# ---------------------------------------------------------------------------------------------
# omp install


def test_hooks_only_install_registers_once(tmp_path: Path, project: Path, isolated_home: Path) -> None:
    g, c = home_paths(isolated_home)
    env = no_copilot_env(tmp_path)
    first = run_omp(["install", "--hooks-only"], env=env)
    assert first.returncode == 0, first.stderr
    assert f"hooks file {c / 'hooks' / 'omp.json'}" in first.stdout
    assert (g / "plugin" / "omp" / "hooks" / "interpreter").read_text().strip() == sys.executable

    second = run_omp(["install", "--hooks-only"], env=env)
    assert second.returncode == 1
    assert "already registered" in second.stderr and "omp install --force" in second.stderr

    again = run_omp(["install", "--hooks-only", "--force"], env=env)
    assert again.returncode == 0, again.stderr
    assert "removed: hooks file" in again.stdout
    assert [p.name for p in (c / "hooks").iterdir()] == ["omp.json"]


def test_hooks_file_commands_run_the_hooks(tmp_path: Path, project: Path, isolated_home: Path) -> None:
    env = no_copilot_env(tmp_path)
    assert run_omp(["install", "--hooks-only"], env=env).returncode == 0
    hooks = json.loads((isolated_home / ".copilot" / "hooks" / "omp.json").read_text())
    command = hooks["hooks"]["sessionEnd"][0]["bash"]
    _recorded_session(project)
    payload = json.dumps({"sessionId": SID, "cwd": str(project)})
    # Copilot runs a C/hooks command from the project folder, with its own environment.
    proc = subprocess.run(["bash", "-c", command], input=payload, text=True, capture_output=True, cwd=project,
                          env=dict(os.environ, OMP_MEMORY_MODE="on", **env), timeout=60)
    assert (proc.returncode, proc.stdout) == (0, "{}\n"), proc.stderr
    assert len(run_logs(project, f"review-{SID}-")) == 1


def test_plugin_install_needs_copilot(tmp_path: Path) -> None:
    result = run_omp(["install"], env=no_copilot_env(tmp_path))
    assert result.returncode == 1
    assert "Copilot CLI not found" in result.stderr and "npm install -g @github/copilot" in result.stderr


def test_install_refuses_next_to_a_registration_it_did_not_make(tmp_path: Path, isolated_home: Path) -> None:
    hooks_dir = isolated_home / ".copilot" / "hooks"
    hooks_dir.mkdir(parents=True)
    (hooks_dir / "mine.json").write_text(json.dumps({"version": 1, "hooks": {"sessionEnd": [
        {"type": "command", "bash": "python -m omp.hooks session-end", "timeoutSec": 5}]}}))
    result = run_omp(["install", "--hooks-only", "--force"], env=no_copilot_env(tmp_path))
    assert result.returncode == 1
    assert "did not make" in result.stderr and "mine.json" in result.stderr
    assert not (hooks_dir / "omp.json").exists()


# ---------------------------------------------------------------------------------------------
# omp doctor


def doctor(project: Path, env: dict[str, str], *args: str):
    result = run_omp(["doctor", "--json", *args], cwd=project, env=env)
    return result, {c["name"]: c for c in result.json()["checks"]}


def checks_named(result, name: str) -> list[dict]:
    return [c for c in result.json()["checks"] if c["name"] == name]


@pytest.fixture
def fake_env(tmp_path: Path) -> dict[str, str]:
    """A stand-in copilot that answers --version and plugin list; no reviewer call needed."""
    return {"OMP_COPILOT_BIN": str(fake_copilot(tmp_path)), "OMP_TOKENIZER": "estimate"}


def test_doctor_without_copilot_or_registration_fails_with_fixes(tmp_path: Path, project: Path) -> None:
    result, checks = doctor(project, {**no_copilot_env(tmp_path), "OMP_TOKENIZER": "estimate"})
    assert result.returncode == 1
    assert checks["copilot"]["status"] == "fail" and "npm install" in checks["copilot"]["fix"]
    # No Copilot CLI: `omp install` (a plugin install) cannot run; the hooks file can.
    assert checks["registration"]["status"] == "fail" and checks["registration"]["fix"] == "omp install --hooks-only"
    assert checks["memory-mode"]["status"] == "warn" and "from default" in checks["memory-mode"]["detail"]
    text = run_omp(["doctor"], cwd=project, env=no_copilot_env(tmp_path))
    assert text.returncode == 1
    assert "fix: omp install" in text.stdout


def test_doctor_all_good(project: Path, fake_env: dict[str, str]) -> None:
    assert run_omp(["install", "--hooks-only"], env=fake_env).returncode == 0
    config.set_value("memory-mode", "on", "project", ProjectPaths(project))
    result, checks = doctor(project, fake_env)
    assert result.returncode == 0, result.stdout
    assert checks["copilot"]["detail"].startswith("GitHub Copilot CLI 0.0.0-fake")
    assert checks["registration"]["status"] == "ok"
    assert checks["hooks python"]["status"] == "ok" and sys.executable in checks["hooks python"]["detail"]
    assert checks["memory-mode"]["status"] == "ok" and "from project" in checks["memory-mode"]["detail"]
    assert checks["tokenizer"]["status"] == "info"  # an estimate is not broken, nor something to do
    assert {checks[n]["status"] for n in ("claims", "queue", "folders")} == {"ok"}


def test_doctor_finds_duplicate_registrations(project: Path, fake_env: dict[str, str], isolated_home: Path) -> None:
    assert run_omp(["install", "--hooks-only"], env=fake_env).returncode == 0
    plugins = json.dumps([{"name": "omp", "marketplace": "omp", "version": "0.1.0", "enabled": True,
                           "source": "live", "installedFrom": str(REPO)}])
    result, _ = doctor(project, {**fake_env, "FAKE_COPILOT_PLUGINS": plugins})
    assert result.returncode == 1
    (registration,) = [c for c in checks_named(result, "registration") if c["status"] == "fail"]
    assert "registered 2 times" in registration["detail"] and "every hook runs 2 times" in registration["detail"]
    # Keeps omp install's hooks file; removes the marketplace (`plugin uninstall` would only disable it).
    # (by the binary omp found: OMP_COPILOT_BIN here, not the `copilot` on PATH)
    assert registration["fix"] == f"{fake_env['OMP_COPILOT_BIN']} plugin marketplace remove omp"


def test_doctor_warns_when_the_hooks_python_is_gone(project: Path, fake_env: dict[str, str],
                                                    isolated_home: Path) -> None:
    assert run_omp(["install", "--hooks-only"], env=fake_env).returncode == 0
    (isolated_home / ".omp" / "plugin" / "omp" / "hooks" / "interpreter").write_text("/nowhere/python\n")
    _, checks = doctor(project, fake_env)
    assert checks["hooks python"]["status"] == "warn"
    assert checks["hooks python"]["fix"] == "omp install --hooks-only --force"  # the kind it was: a hooks file


def test_doctor_reports_stale_claims_and_the_queue(project: Path, fake_env: dict[str, str]) -> None:
    paths = ProjectPaths(project)
    config.set_value("memory-mode", "on", "project", paths)
    queue.record_failure(paths, "waiting-1", "reviewer is not authenticated", "run: copilot login", "auth")
    # A review that died holding its claim (its process is gone).
    code = ("import sys; from pathlib import Path; from omp.paths import ProjectPaths; from omp.review import claim; "
            f"claim.acquire(ProjectPaths(Path({str(project)!r})), 'dead-1', end_offset=10, force=False, timeout=120)")
    subprocess.run([sys.executable, "-c", code], check=True)
    assert claims.list_claims(paths)["dead-1"].state != "done"
    _, checks = doctor(project, fake_env)
    assert checks["claims"]["status"] == "warn" and "1 stale claim" in checks["claims"]["detail"]
    assert checks["queue"]["status"] == "warn" and "1 session(s) in the retry queue" in checks["queue"]["detail"]
    assert "run: copilot login" in checks["queue"]["detail"]  # the cause's fix, then the command that retries
    assert checks["queue"]["fix"] == "omp memory-review --sweep --force"


def test_doctor_deep_calls_the_reviewer(tmp_path: Path, project: Path, fake_env: dict[str, str]) -> None:
    fake = FakeReviewer(tmp_path / "reviewer")
    fake.queue(reply("OK"), reply("", stderr="Error: No authentication information found.", exit=1))
    env = {**fake_env, **fake.env("command")}
    _, checks = doctor(project, env, "--deep")
    assert checks["reviewer"]["status"] == "ok" and "answered 'OK'" in checks["reviewer"]["detail"]
    (call,) = fake.calls()
    assert call.env["OMP_REVIEWER"] == "1" and "connectivity check" in call.stdin
    result, checks = doctor(project, env, "--deep")
    assert result.returncode == 1
    assert checks["reviewer"]["status"] == "fail" and "not authenticated" in checks["reviewer"]["detail"]


def test_doctor_lists_reviewer_env_keys_never_values(project: Path, fake_env: dict[str, str],
                                                     isolated_home: Path) -> None:
    env_file = isolated_home / ".omp" / "reviewer.env"
    env_file.parent.mkdir(parents=True, exist_ok=True)
    env_file.write_text("COPILOT_GITHUB_TOKEN=ghp_secretsecretsecretsecretsecretsecret12\n")
    env_file.chmod(0o644)
    result, _ = doctor(project, fake_env)
    assert "ghp_secret" not in result.stdout
    (info, warn) = checks_named(result, "reviewer env")
    assert "COPILOT_GITHUB_TOKEN" in info["detail"]
    assert warn["status"] == "warn" and warn["fix"].startswith("chmod 600")


# ---------------------------------------------------------------------------------------------
# with the real Copilot CLI


def real_env(isolated_home: Path) -> dict[str, str]:
    return {**copilot_env(isolated_home), "OMP_COPILOT_BIN": str(copilot_binary())}


def plugin_list(env: dict[str, str]) -> list[tuple[str, str, bool]]:
    proc = subprocess.run([str(copilot_binary()), "plugin", "list", "--json"], capture_output=True, text=True,
                          env=dict(os.environ, **env), timeout=120)
    assert proc.returncode == 0, proc.stderr
    return [(p["name"], p["marketplace"], p["enabled"]) for p in json.loads(proc.stdout) if p["name"] == "omp"]


@pytest.mark.e2e
@needs_copilot
def test_omp_install_with_the_real_cli(project: Path, isolated_home: Path) -> None:
    env = real_env(isolated_home)
    first = run_omp(["install"], env=env, timeout=180)
    assert first.returncode == 0, first.stderr
    assert plugin_list(env) == [("omp", "", True)]
    copied = isolated_home / ".copilot" / "installed-plugins" / "_direct" / "omp"
    assert (copied / "hooks" / "interpreter").read_text().strip() == sys.executable
    assert json.loads((copied / "plugin.json").read_text())["version"] == __version__  # written by omp install
    second = run_omp(["install"], env=env, timeout=180)
    assert second.returncode == 1 and "already registered" in second.stderr
    result, checks = doctor(project, {**env, "OMP_TOKENIZER": "estimate"})
    assert checks["registration"]["status"] == "ok", checks["registration"]
    assert checks["copilot"]["detail"].startswith("GitHub Copilot CLI 1.0.")
    # A hand-written hooks file on top of the plugin: every hook would run twice.
    (isolated_home / ".copilot" / "hooks").mkdir(parents=True)
    (isolated_home / ".copilot" / "hooks" / "memory.json").write_text(json.dumps({"version": 1, "hooks": {
        "sessionEnd": [{"type": "command", "bash": f"{sys.executable} -m omp.hooks session-end", "timeoutSec": 5}]}}))
    result, _ = doctor(project, {**env, "OMP_TOKENIZER": "estimate"})
    assert result.returncode == 1
    assert any("registered 2 times" in c["detail"] for c in checks_named(result, "registration"))
