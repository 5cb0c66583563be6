"""Arrows point down (STYLE.md): the library never imports the click layer.

`omp/cli/` parses arguments, calls the library and renders its outcomes; nothing below it may
import `omp.cli`, or the library would print and the layers would knot. Read from the source with
`ast`, so an import hidden inside a function counts too.
"""

from __future__ import annotations

import ast
from pathlib import Path

OMP = Path(__file__).resolve().parent.parent / "omp"


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found


def test_no_library_module_imports_the_cli() -> None:
    offenders = []
    for path in sorted(OMP.rglob("*.py")):
        relative = path.relative_to(OMP)
        if relative.parts[0] == "cli" or relative.name == "__main__.py":
            continue
        if any(name == "omp.cli" or name.startswith("omp.cli.") for name in _imports(path)):
            offenders.append(str(relative))
    assert offenders == [], f"these library modules import omp.cli: {offenders}"


def test_the_check_finds_an_import_inside_a_function(tmp_path: Path) -> None:
    module = tmp_path / "m.py"
    module.write_text("def f():\n    from omp.cli.render import echo_json\n")
    assert "omp.cli.render" in _imports(module)
