"""The reference pages under docs/reference/ are generated from the code and must match it.

docs/reference/commands.md comes from the click command tree, docs/reference/config.md from
omp's config key table (tools/gen_reference.py). A command, an option, a help text or a key
that changes without the pages being regenerated fails here, naming the command to run.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

REPO = Path(__file__).resolve().parent.parent


def _generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("gen_reference", REPO / "tools" / "gen_reference.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("gen_reference", module)
    spec.loader.exec_module(module)
    return module


GEN = _generator()


@pytest.mark.parametrize("name", ["commands.md", "config.md"])
def test_the_committed_reference_page_is_what_the_generator_makes(name: str) -> None:
    path = REPO / "docs" / "reference" / name
    expected = GEN.pages()[path]
    assert path.exists(), f"docs/reference/{name} is missing: run `python tools/gen_reference.py`"
    committed = path.read_text(encoding="utf-8")
    assert committed == expected, (
        f"docs/reference/{name} differs from the code: run `python tools/gen_reference.py` and commit the page"
    )


def test_every_command_and_option_is_on_the_commands_page() -> None:
    page = GEN.render_commands()
    for doc in GEN.commands():
        assert f"## {doc.name}\n" in page, doc.name
        for param in doc.command.params:
            if getattr(param, "hidden", False):
                continue
            for opt in getattr(param, "opts", []):
                if opt.startswith("--"):
                    assert f"`{opt}`" in page.split(f"## {doc.name}\n", 1)[1].split("\n## ", 1)[0], (doc.name, opt)


def test_every_config_key_is_on_the_config_page_with_its_default_and_variable() -> None:
    from omp.config import KEYS

    page = GEN.render_config()
    for key in KEYS.values():
        [row] = [line for line in page.splitlines() if line.startswith(f"| `{key.name}` |")]
        assert f"`{key.env_var}`" in row
        if key.default is not None:
            assert f"`{key.default}`" in row


def test_a_key_without_a_description_stops_the_generator(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delitem(GEN.DESCRIPTIONS, "memory-inject")
    with pytest.raises(SystemExit, match="memory-inject"):
        GEN.render_config()


def test_check_mode_names_the_command_to_regenerate(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    stale = tmp_path / "docs" / "reference"
    stale.mkdir(parents=True)
    (stale / "commands.md").write_text("old\n", encoding="utf-8")
    monkeypatch.setattr(GEN, "REPO", tmp_path)
    monkeypatch.setattr(GEN, "REFERENCE", stale)
    assert GEN.main(["--check"]) == 1
    out = capsys.readouterr().out
    assert "docs/reference/commands.md is out of date: run `python tools/gen_reference.py`" in out
    assert "docs/reference/config.md is out of date" in out
