"""Fails any test that touches the real home directory.

An audit hook (PEP 578) sees every file open, folder creation, rename and removal made by the
test process. Writing anywhere under the real home, or reading omp's or Copilot's real state
folders there (`~/.omp`, `~/.copilot`), is recorded as a violation; the autouse fixture in
conftest.py fails the test that caused it. Subprocesses are kept out by the environment: HOME,
OMP_HOME and COPILOT_HOME point into the test's tmp_path.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_TRUNC
_WRITE_EVENTS = {
    "os.mkdir",
    "os.rename",
    "os.replace",
    "os.remove",
    "os.rmdir",
    "os.symlink",
    "os.link",
    "os.chmod",
    "os.truncate",
    "shutil.rmtree",
    "shutil.copyfile",
    "shutil.move",
}


class HomeGuard:
    def __init__(self, real_home: Path, allowed: list[Path]) -> None:
        self.real_home = real_home
        self.private = [real_home / ".omp", real_home / ".copilot"]
        self.allowed = [p for p in allowed if p != real_home]
        self.active = False
        self.violations: list[str] = []

    def _under(self, path: Path, base: Path) -> bool:
        return path == base or base in path.parents

    def _check(self, raw: object, writing: bool, event: str) -> None:
        if isinstance(raw, int) or raw is None:
            return
        try:
            path = Path(os.fsdecode(raw))  # type: ignore[arg-type]
            if not path.is_absolute():
                path = Path(os.getcwd()) / path
            path = Path(os.path.normpath(path))
        except (TypeError, ValueError, OSError):
            return
        if any(self._under(path, p) for p in self.private):
            self.violations.append(f"{event}: {path}")
        elif writing and self._under(path, self.real_home):
            if not any(self._under(path, p) for p in self.allowed):
                self.violations.append(f"{event}: {path}")

    def audit(self, event: str, args: tuple) -> None:
        if not self.active:
            return
        if event == "open":
            path, mode, flags = (tuple(args) + (None, None, None))[:3]
            writing = (isinstance(mode, str) and any(c in mode for c in "wax+")) or (
                isinstance(flags, int) and bool(flags & _WRITE_FLAGS)
            )
            self._check(path, writing, event)
        elif event in ("os.symlink", "os.link"):
            # (target, link, ...): only the link is made. A symlink's target is not even a path
            # from the working folder (a relative one counts from the link's folder), and making
            # a link writes nothing at the target.
            self._check(args[1] if len(args) > 1 else None, True, event)
        elif event == "shutil.copyfile":
            self._check(args[0] if args else None, False, event)
            self._check(args[1] if len(args) > 1 else None, True, event)
        elif event in _WRITE_EVENTS:
            for raw in args[:2]:
                self._check(raw, True, event)
        elif event in ("os.listdir", "os.scandir"):
            self._check(args[0] if args else None, False, event)

    def install(self) -> None:
        sys.addaudithook(self.audit)
