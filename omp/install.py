"""Registering omp's hooks with Copilot CLI: `omp install [--hooks-only] [--force]` (docs/install.md).

The plugin files exist once, inside the package (`omp/plugin/`: `plugin.json`, `hooks/hooks.json`,
`hooks/run`, `hooks/run.ps1`). `omp install` writes them out to `G/plugin/omp/`, the manifest
with omp's version added, together with `hooks/interpreter`, the absolute path of the
Python running `omp install` — so the hooks run with the very installation that registered them
(a pipx or venv install included); when that interpreter is gone, `hooks/run` falls back to
`omp` on PATH with a one-line hint. Then:

- default: `copilot plugin install G/plugin/omp` (Copilot copies it to
  `C/installed-plugins/_direct/omp/`);
- `--hooks-only`: no plugin; `C/hooks/omp.json` runs `G/plugin/omp/hooks/run` by absolute path.

Each registration fires every hook, so two of them would start every review twice: `omp install`
refuses while omp is registered already (it never silently replaces one), and `--force` first
removes every registration it recognises as omp's: the plugin or `C/hooks/omp.json` it made
itself, and copies of omp's plugin installed by hand (`copilot plugin install <clone>`, or the
repository added as its own one-plugin marketplace — removed with `copilot plugin marketplace
remove`, since `plugin uninstall omp@M` only disables it). Anything else is listed, with the
command that removes it.

The repository's marketplace points at `omp/plugin/` (`"source": "./omp/plugin"`), so that
install loads only the plugin, live, never the checkout with its `.venv` and build output.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from omp import __version__
from omp.copilot import HINT_INSTALL, copilot_command, find_copilot
from omp.errors import OmpError
from omp.fsio import atomic_write_json
from omp.paths import GlobalPaths
from omp.process import Finished, run_captured
from omp.project import global_lock

PLUGIN_NAME = "omp"
HOOKS_FILE_NAME = "omp.json"
PACKAGE_PLUGIN = Path(__file__).resolve().parent / "plugin"
MANIFEST_FILE = "plugin.json"
PLUGIN_FILES = (MANIFEST_FILE, "hooks/hooks.json", "hooks/run", "hooks/run.ps1")
INTERPRETER_FILE = "hooks/interpreter"
COPILOT_TIMEOUT = 120.0


@dataclass(frozen=True)
class Registration:
    """One place from which Copilot would run omp's hooks."""

    kind: str  # "plugin" (copied into C/installed-plugins), "live-plugin" (marketplace), "hooks-file"
    name: str  # "omp", "omp@<marketplace>", or the hooks file's path
    enabled: bool
    folder: Path | None  # the plugin root the hooks run from (None when unknown)
    source: str | None = None  # what it was installed from
    removal: str = ""  # the command that removes it

    @property
    def label(self) -> str:
        where = {"plugin": "plugin", "live-plugin": "marketplace plugin", "hooks-file": "hooks file"}[self.kind]
        state = "" if self.enabled else ", disabled"
        origin = f" from {self.source}" if self.source else ""
        return f"{where} {self.name}{origin}{state}"

    def interpreter(self) -> str | None:
        """The Python baked into this registration's plugin folder, if any."""
        if self.folder is None:
            return None
        try:
            text = (self.folder / INTERPRETER_FILE).read_text(encoding="utf-8").strip()
        except OSError:
            return None
        return text.splitlines()[0] if text else None


@dataclass
class InstallResult:
    mode: str  # "plugin" | "hooks-only"
    plugin_dir: Path
    interpreter: str
    registered: str  # where it is registered now
    replaced: list[str] = field(default_factory=list)
    copilot_output: str = ""


# ---------------------------------------------------------------------------------------------
# Copilot CLI


def run_management_command(copilot: str, *args: str, timeout: float = COPILOT_TIMEOUT) -> Finished:
    """One Copilot CLI management command (`plugin list`, `--version`; never a session), its
    output captured; on timeout its whole process tree is ended."""
    env = dict(os.environ)
    env["NO_COLOR"] = "1"
    try:
        finished = run_captured([copilot, *args], env=env, timeout=timeout)
    except FileNotFoundError as exc:
        raise OmpError(f"cannot run Copilot CLI {copilot!r}: not found", HINT_INSTALL) from exc
    except PermissionError as exc:
        raise OmpError(f"cannot run Copilot CLI {copilot!r}: permission denied", HINT_INSTALL) from exc
    if finished.timed_out:
        raise OmpError(f"`copilot {' '.join(args)}` did not finish within {timeout:.0f}s",
                       "run it by hand to see what it waits for")
    return finished


def _last_line(text: str) -> str:
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    return lines[-1] if lines else ""


# ---------------------------------------------------------------------------------------------
# finding registrations


def _read_jsonc(path: Path) -> Any:
    """Copilot's own config files start with `//` comment lines."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError:
        return None
    body = "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("//"))
    try:
        return json.loads(body) if body.strip() else None
    except ValueError:
        return None


def _direct_installs(copilot_home: Path) -> dict[str, dict[str, Any]]:
    """C/config.json's `installedPlugins`, by plugin name (folder and source of direct installs)."""
    data = _read_jsonc(copilot_home / "config.json")
    found: dict[str, dict[str, Any]] = {}
    for item in (data or {}).get("installedPlugins", []) if isinstance(data, dict) else []:
        if isinstance(item, dict) and item.get("name") == PLUGIN_NAME and not item.get("marketplace"):
            found[PLUGIN_NAME] = item
    return found


def _plugins_from_cli(copilot: str, copilot_home: Path) -> list[Registration] | None:
    proc = run_management_command(copilot, "plugin", "list", "--json", timeout=60)
    if proc.returncode != 0:
        return None
    try:
        listed = json.loads(proc.stdout)
    except ValueError:
        return None
    direct = _direct_installs(copilot_home)
    found: list[Registration] = []
    for item in listed if isinstance(listed, list) else []:
        if not isinstance(item, dict) or item.get("name") != PLUGIN_NAME:
            continue
        marketplace = item.get("marketplace") or ""
        enabled = bool(item.get("enabled", True))
        if item.get("source") == "live" or marketplace:
            folder = item.get("installedFrom")
            found.append(Registration(
                "live-plugin", f"{PLUGIN_NAME}@{marketplace}", enabled, _live_plugin_root(folder),
                folder, _live_removal(marketplace, folder),
            ))
        else:
            info = direct.get(PLUGIN_NAME, {})
            cache = info.get("cache_path")
            source = (info.get("source") or {}).get("path") if isinstance(info.get("source"), dict) else None
            found.append(Registration(
                "plugin", PLUGIN_NAME, enabled, Path(cache) if cache else None, source,
                f"copilot plugin uninstall {PLUGIN_NAME}",
            ))
    return found


def _plugins_from_files(copilot_home: Path) -> list[Registration]:
    """Without a working Copilot CLI: what its own files say is installed."""
    found: list[Registration] = []
    for name, info in _direct_installs(copilot_home).items():
        cache = info.get("cache_path")
        source = (info.get("source") or {}).get("path") if isinstance(info.get("source"), dict) else None
        found.append(Registration("plugin", name, bool(info.get("enabled", True)), Path(cache) if cache else None,
                                  source, f"copilot plugin uninstall {name}"))
    settings = _read_jsonc(copilot_home / "settings.json")
    if isinstance(settings, dict):
        markets = settings.get("extraKnownMarketplaces") or {}
        for key, enabled in (settings.get("enabledPlugins") or {}).items():
            plugin, _, market = str(key).partition("@")
            if plugin != PLUGIN_NAME or not market:
                continue
            source = ((markets.get(market) or {}).get("source") or {}).get("path")
            found.append(Registration("live-plugin", key, bool(enabled), _live_plugin_root(source), source,
                                      _live_removal(market, source)))
    return found


def _live_plugin_root(folder: str | None) -> Path | None:
    """The folder a marketplace plugin's hooks run from: Copilot reports the marketplace's folder
    (`installedFrom`); omp's own marketplace keeps the plugin in `omp/plugin/` below it."""
    if not folder:
        return None
    root = Path(folder)
    nested = root / "omp" / "plugin"
    return nested if (nested / "plugin.json").is_file() else root


def _is_omp_marketplace(folder: str | None) -> bool:
    """A marketplace that holds omp and nothing else (omp's own repository, or a copy of it)."""
    if not folder:
        return False
    data = _read_jsonc(Path(folder) / ".github" / "plugin" / "marketplace.json")
    plugins = data.get("plugins") if isinstance(data, dict) else None
    return isinstance(plugins, list) and [p.get("name") for p in plugins if isinstance(p, dict)] == [PLUGIN_NAME]


def _live_removal(marketplace: str, folder: str | None) -> str:
    """`plugin uninstall omp@M` only disables a marketplace plugin (COPILOT.md §7); removing the
    marketplace removes it. A marketplace with other plugins too is left to the user."""
    if marketplace and _is_omp_marketplace(folder):
        return f"copilot plugin marketplace remove {shlex.quote(marketplace)}"
    return f"copilot plugin disable {PLUGIN_NAME}@{marketplace}"


def _hooks_files(copilot_home: Path) -> list[Registration]:
    """`C/hooks/*.json` files that run omp's hooks."""
    folder = copilot_home / "hooks"
    found: list[Registration] = []
    try:
        files = sorted(folder.glob("*.json"))
    except OSError:
        return found
    for path in files:
        try:
            text = path.read_text(encoding="utf-8")
        except OSError:
            continue
        if "omp.hooks" not in text and "hooks/run" not in text.replace("\\\\", "/").replace("\\", "/"):
            continue
        if path.name != HOOKS_FILE_NAME and "omp" not in text:
            continue
        found.append(Registration("hooks-file", str(path), True, _hooks_file_plugin_dir(text), None,
                                  f"rm {shlex.quote(str(path))}"))
    return found


def _hooks_file_plugin_dir(text: str) -> Path | None:
    """The plugin folder a hooks file's commands run from (`…/hooks/run`), if one is named."""
    try:
        data = json.loads(text)
        entries = [e for group in data.get("hooks", {}).values() for e in group]
        command = next(e.get("bash", "") for e in entries if isinstance(e, dict) and e.get("bash"))
        words = shlex.split(command)
    except (ValueError, AttributeError, StopIteration, TypeError):
        return None
    for word in words:
        if word.endswith("/hooks/run"):
            return Path(word).parent.parent
    return None


def find_registrations(copilot: str | None = None, global_paths: GlobalPaths | None = None) -> list[Registration]:
    """Every registration of omp's hooks: plugins (per Copilot CLI, else its files) and hooks files."""
    global_paths = global_paths or GlobalPaths.current()
    plugins = None
    if copilot:
        try:
            plugins = _plugins_from_cli(copilot, global_paths.copilot)
        except OmpError:
            plugins = None
    if plugins is None:
        plugins = _plugins_from_files(global_paths.copilot)
    return plugins + _hooks_files(global_paths.copilot)


# ---------------------------------------------------------------------------------------------
# writing the plugin folder


def plugin_dir(global_paths: GlobalPaths | None = None) -> Path:
    return (global_paths or GlobalPaths.current()).home / "plugin" / PLUGIN_NAME


def _versioned_manifest(source: Path) -> str:
    """The packaged manifest with omp's version added (`copilot plugin list` shows it): the
    committed manifest carries none, so the version is written in one place only."""
    manifest = json.loads(source.read_text(encoding="utf-8"))
    manifest["version"] = __version__
    return json.dumps(manifest, indent=2) + "\n"


def write_plugin(target: Path, interpreter: str) -> Path:
    """Write the packaged plugin to `target` with `interpreter` baked in; replaces it whole."""
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{target.name}-new-", dir=target.parent))
    try:
        for relative in PLUGIN_FILES:
            source = PACKAGE_PLUGIN / relative
            if not source.is_file():
                raise OmpError(f"the plugin file {source} is missing from this omp installation",
                               "reinstall omp (pip install --force-reinstall omp)")
            destination = staging / relative
            destination.parent.mkdir(parents=True, exist_ok=True)
            if relative == MANIFEST_FILE:
                destination.write_text(_versioned_manifest(source), encoding="utf-8")
            else:
                shutil.copyfile(source, destination)
            if relative.endswith("/run"):
                destination.chmod(0o755)
        (staging / INTERPRETER_FILE).write_text(interpreter + "\n", encoding="utf-8")
        staging.chmod(0o755)
        old = None
        if target.exists():
            old = Path(tempfile.mkdtemp(prefix=f".{target.name}-old-", dir=target.parent))
            os.replace(target, old / target.name)
        os.replace(staging, target)
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return target


def hooks_file_content(plugin: Path) -> dict[str, Any]:
    """`C/hooks/omp.json`: the same hooks, run from `plugin` by absolute path."""
    run = plugin / "hooks" / "run"
    run_ps1 = plugin / "hooks" / "run.ps1"
    powershell_path = "'" + str(run_ps1).replace("'", "''") + "'"

    def entry(event: str) -> dict[str, Any]:
        return {
            "type": "command",
            "bash": f"sh {shlex.quote(str(run))} {event}",
            "powershell": (f"powershell -NoProfile -NonInteractive -ExecutionPolicy Bypass -File {powershell_path} "
                           f"{event}"),
            "timeoutSec": 15,
        }

    return {"version": 1, "hooks": {"sessionStart": [entry("session-start")], "sessionEnd": [entry("session-end")]}}


# ---------------------------------------------------------------------------------------------
# install


def _runs_omp_hooks(folder: Path | None) -> bool:
    """Is `folder` an omp plugin (its manifest named omp, its hook script omp's)?"""
    if folder is None:
        return False
    manifest = _read_jsonc(folder / "plugin.json")
    try:
        script = (folder / "hooks" / "run").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False
    return isinstance(manifest, dict) and manifest.get("name") == PLUGIN_NAME and "omp.hooks" in script


def _is_own(registration: Registration, global_paths: GlobalPaths) -> bool:
    """Recognisably omp's, so `--force` may replace it: made by `omp install`, or a copy of omp's
    plugin installed by hand (the repository as a direct plugin, or as its own marketplace)."""
    ours = plugin_dir(global_paths)
    if registration.kind == "hooks-file":
        return Path(registration.name) == global_paths.copilot / "hooks" / HOOKS_FILE_NAME
    if registration.kind == "plugin":
        return registration.source is None or Path(registration.source) == ours or _runs_omp_hooks(registration.folder)
    return registration.removal.startswith("copilot plugin marketplace remove ") and _runs_omp_hooks(registration.folder)


def _remove(registration: Registration, copilot: str | None) -> None:
    if registration.kind == "hooks-file":
        Path(registration.name).unlink(missing_ok=True)
        return
    if copilot is None:
        raise OmpError(f"cannot remove {registration.label} without Copilot CLI", HINT_INSTALL)
    args = shlex.split(registration.removal)[1:] if registration.removal.startswith("copilot ") else \
        ["plugin", "uninstall", registration.name]
    proc = run_management_command(copilot, *args)
    if proc.returncode != 0:
        raise OmpError(f"could not remove {registration.label}: {_last_line(proc.stderr or proc.stdout)}",
                       f"remove it by hand: {registration.removal}")


def _already_registered(existing: list[Registration], force: bool) -> OmpError:
    lines = "; ".join(r.label for r in existing)
    if force:
        return OmpError(
            f"omp is registered with Copilot in a way omp install did not make: {lines}",
            "remove it first: " + " ; ".join(r.removal for r in existing),
        )
    return OmpError(
        f"omp is already registered with Copilot ({lines}); a second registration would run every hook twice",
        "to refresh it (after upgrading omp or moving its Python), run: omp install --force; "
        "omp doctor lists every registration",
    )


def install(hooks_only: bool = False, force: bool = False, interpreter: str | None = None) -> InstallResult:
    """Write the plugin folder and register it (see the module doc). Refuses a second registration."""
    global_paths = GlobalPaths.current()
    interpreter = interpreter or sys.executable
    copilot = find_copilot() if hooks_only else copilot_command()
    with global_lock(global_paths):
        existing = find_registrations(copilot, global_paths)
        if existing and not force:
            raise _already_registered(existing, force=False)
        foreign = [r for r in existing if not _is_own(r, global_paths)]
        if foreign:
            raise _already_registered(foreign, force=True)
        for registration in existing:
            _remove(registration, copilot)
        target = write_plugin(plugin_dir(global_paths), interpreter)
        result = InstallResult("hooks-only" if hooks_only else "plugin", target, interpreter, "",
                               [r.label for r in existing])
        if hooks_only:
            hooks_file = global_paths.copilot / "hooks" / HOOKS_FILE_NAME

            atomic_write_json(hooks_file, hooks_file_content(target))
            result.registered = f"hooks file {hooks_file}"
            return result
        assert copilot is not None
        proc = run_management_command(copilot, "plugin", "install", str(target))
        if proc.returncode != 0:
            detail = _last_line(proc.stderr) or _last_line(proc.stdout) or f"exit code {proc.returncode}"
            raise OmpError(f"copilot plugin install failed: {detail}",
                           "check that Copilot CLI works (copilot --version), or register with: omp install --hooks-only")
        result.copilot_output = proc.stdout.strip()
        result.registered = f"plugin {PLUGIN_NAME} (installed from {target})"
        return result
