"""The docs must not drift from the tree (STYLE §7: a docs check fails, never xfails).

- CONTRIBUTING.md's Layout section names every module and package under omp/, and only ones
  that exist;
- every repository path the README, CONTRIBUTING.md or a page under docs/ names (`omp/…`,
  `tests/…`, `bench/…`, `docs/…`, `.ci/…`, `tools/…`) exists;
- the README's test command is the one `.ci/run` ends with, and `.ci/run` runs `.ci/lint` before it.
"""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
README = REPO / "README.md"
CONTRIBUTING = REPO / "CONTRIBUTING.md"
OMP = REPO / "omp"
# A path into the repository, as the README writes one: in backticks, in a link, or bare.
_REPO_PATH = re.compile(r"(?:^|(?<=[\s`(]))((?:omp|tests|bench|docs|\.ci|tools)/[\w./-]*)")
_MODULE = re.compile(r"(?<![\w/])((?:\w+/)*\w+\.py)\b")  # `backends/openai.py`: a sub-package's module


def _readme() -> str:
    return README.read_text(encoding="utf-8")


def layout_block() -> list[str]:
    text = CONTRIBUTING.read_text(encoding="utf-8")
    assert "\n## Layout\n" in text, "CONTRIBUTING.md has no Layout section"
    section = text.split("\n## Layout\n", 1)[1]
    assert "```" in section, "CONTRIBUTING.md's Layout section has no code block"
    return section.split("```", 2)[1].splitlines()[1:]


def named_in_layout() -> tuple[set[str], set[str], list[str]]:
    """(modules as `omp/pkg/name.py`, packages as `omp/pkg`, the top-level entries below omp/)."""
    modules: set[str] = set()
    packages: set[str] = set()
    top: list[str] = []
    package = ""
    inside_omp = False
    for line in layout_block():
        if not line.strip():
            continue
        if not line.startswith(" "):
            inside_omp = line.split()[0] == "omp/"
            if not inside_omp:
                top.append(line.split()[0])
            continue
        if not inside_omp:
            continue
        entry = re.match(r"^  (\S)", line)
        if entry:  # a new entry of omp/ (deeper-indented lines continue the one above)
            named_package = re.match(r"^  (\w+)/", line)
            package = named_package.group(1) if named_package else ""
            if package:
                packages.add(f"omp/{package}")
        for name in _MODULE.findall(line):
            modules.add(f"omp/{package}/{name}" if package else f"omp/{name}")
    return modules, packages, top


def test_the_layout_names_only_modules_and_folders_that_exist() -> None:
    modules, packages, top = named_in_layout()
    assert modules and packages and top
    missing = sorted(m for m in modules | packages | set(top) if not (REPO / m).exists())
    assert not missing, f"CONTRIBUTING.md's Layout names what the tree does not have: {missing}"


def test_the_layout_names_every_module_and_package_of_omp() -> None:
    """Every module of omp/ and of its packages; `cli/` is described as a whole (one module per
    command), and `plugin/` and `data/` hold no modules."""
    modules, packages, _ = named_in_layout()
    real_packages = {f"omp/{p.name}" for p in OMP.iterdir() if p.is_dir() and p.name != "__pycache__"}
    assert sorted(real_packages - packages) == [], "packages of omp/ missing from CONTRIBUTING.md's Layout"
    real_modules = {p.relative_to(REPO).as_posix() for p in OMP.rglob("*.py")
                    if p.name not in ("__init__.py", "__main__.py") and "__pycache__" not in p.parts
                    and p.parent.name not in ("cli", "data")}
    assert sorted(real_modules - modules) == [], "modules of omp/ missing from CONTRIBUTING.md's Layout"


def _anchors(page: Path) -> set[str]:
    """The anchors GitHub makes of a page's headings: lower case, punctuation dropped, spaces as -."""
    found: set[str] = set()
    for heading in re.findall(r"^#+ (.+)$", page.read_text(encoding="utf-8"), flags=re.M):
        slug = re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")
        found.add(slug)
    return found


def _doc_pages() -> list[Path]:
    return [README, CONTRIBUTING, *sorted((REPO / "docs").rglob("*.md"))]


def test_every_repository_path_the_docs_name_exists() -> None:
    """Paths written from the repository root (`omp/…`, `docs/…`) in any page, and relative
    links (`](trust.md)`, `](../bench/README.md)`) from a page's own folder."""
    missing: list[str] = []
    total = 0
    for page in _doc_pages():
        text = page.read_text(encoding="utf-8")
        named = {n.split("*", 1)[0] for n in (m.rstrip(".,") for m in _REPO_PATH.findall(text))}
        total += len(named)
        missing += [f"{page.relative_to(REPO)}: {n}" for n in sorted(named) if not (REPO / n).exists()]
        for link, anchor in re.findall(r"\]\(([^)#\s]*)(?:#([^)]*))?\)", text):
            if "://" in link or (link and "." not in link):  # a web address, or an example such as `[](url)`
                continue
            target = page.parent / link if link else page
            if not target.exists():
                missing.append(f"{page.relative_to(REPO)}: link {link}")
            elif anchor and target.suffix == ".md" and anchor not in _anchors(target):
                missing.append(f"{page.relative_to(REPO)}: link {link}#{anchor}")
    assert total > 20
    assert not missing, f"the docs name files the repository does not have: {missing}"


def test_the_readme_test_command_is_what_ci_runs_after_lint() -> None:
    text = _readme()
    tests = text.split("\n## Tests\n", 1)[1]
    command = tests.split("```sh\n", 1)[1].split("\n```", 1)[0].strip()
    assert command.endswith("python -m pytest -q"), command
    ci = [line for line in (REPO / ".ci" / "run").read_text(encoding="utf-8").splitlines() if line.strip()]
    assert ci[-1] == ".venv/bin/python -m pytest -q", "the last line of .ci/run must be the README's test command"
    assert "bash .ci/lint" in ci and ci.index("bash .ci/lint") < len(ci) - 1, ".ci/run runs .ci/lint first"
    assert "`.ci/lint`" in text, "README.md says how to run the lint and type checks"
