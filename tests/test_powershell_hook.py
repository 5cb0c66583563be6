"""hooks/run.ps1 (the Windows hook shim) finds a checkout's own .venv, as hooks/run does.

Runs only where Windows PowerShell or PowerShell 7 is installed (the CI's Windows job). The
checkout is laid out in tmp_path with the shim where the repository has it (`hooks/run.ps1`) and
where the live plugin has it (`omp/plugin/hooks/run.ps1`); PATH holds nothing else, so without
the .venv the shim finds no Python at all and says so.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
POWERSHELL = shutil.which("pwsh") or shutil.which("powershell")
NOT_FOUND = "no Python with omp installed was found"

pytestmark = pytest.mark.skipif(os.name != "nt" or POWERSHELL is None, reason="needs Windows PowerShell")


def _checkout(tmp_path: Path, shim: str, with_venv: bool) -> Path:
    checkout = tmp_path / "checkout"
    target = checkout / shim
    target.parent.mkdir(parents=True)
    shutil.copy2(REPO / shim, target)
    if with_venv:
        venv = checkout / ".venv"
        subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
        # The checkout's venv imports omp (and what it needs) from the Python running the tests.
        site = Path(sysconfig.get_path("purelib", vars={"base": str(venv), "platbase": str(venv)}))
        site.mkdir(parents=True, exist_ok=True)
        (site / "omp-checkout.pth").write_text(f"{REPO}\n{sysconfig.get_path('purelib')}\n")
    return target


@pytest.mark.parametrize("shim", ["hooks/run.ps1", "omp/plugin/hooks/run.ps1"])
@pytest.mark.parametrize("with_venv", [True, False], ids=["venv", "no-venv"])
def test_the_powershell_shim_runs_the_checkouts_venv(tmp_path: Path, shim: str, with_venv: bool) -> None:
    script = _checkout(tmp_path, shim, with_venv)
    env = {name: value for name, value in os.environ.items() if name.upper() not in ("PATH", "OMP_PYTHON")}
    env["PATH"] = str(tmp_path)  # no omp, no python, no py launcher: only the .venv can answer
    payload = json.dumps({"sessionId": "0f5c2d7e-1111-4c3b-9a55-3c1f0e6b7a01", "cwd": str(tmp_path)})
    proc = subprocess.run([str(POWERSHELL), "-NoProfile", "-ExecutionPolicy", "Bypass", "-File", str(script),
                           "session-end"], input=payload, capture_output=True, text=True, env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "{}"
    assert (NOT_FOUND in proc.stderr) is not with_venv, proc.stderr
