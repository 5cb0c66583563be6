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


# ---------------------------------------------------------------------------------------------
# one home for each rule: omp.core is the standard-library base the hook and the library share

CORE = OMP / "core"
HOOKS = OMP / "hooks"
# What omp.core may import: cheap standard-library modules only (the hook starts with them).
# No `re`: its import alone is most of the hook's budget in a fresh install (omp.core.jsonlite);
# `json` and `hashlib` only as fallbacks inside a function; the builtin sha256 modules are a
# third of hashlib's import time; `typing` only under TYPE_CHECKING (never at run time).
CORE_STDLIB = {"__future__", "os", "sys", "stat", "time", "json", "_sha256", "_sha2", "hashlib", "typing"}


def _module_name(path: Path, package: Path) -> str:
    parts = list(path.relative_to(package.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _top_level_imports(path: Path) -> set[str]:
    """Imports run when the module is imported: module level, `if` blocks (TYPE_CHECKING aside)
    and `try` blocks included; anything inside a function or class left out."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    found: set[str] = set()

    def visit(body: list[ast.stmt]) -> None:
        for node in body:
            if isinstance(node, ast.Import):
                found.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                found.add(node.module)
            elif isinstance(node, ast.If):
                if not (isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING"):
                    visit(node.body)
                visit(node.orelse)
            elif isinstance(node, ast.Try):
                visit(node.body)
                for handler in node.handlers:
                    visit(handler.body)
                visit(node.orelse)
                visit(node.finalbody)

    visit(tree.body)
    return found


def test_core_imports_only_cheap_standard_library_modules_and_itself() -> None:
    offenders = {}
    for path in sorted(CORE.rglob("*.py")):
        bad = sorted(name for name in _imports(path)
                     if name.split(".")[0] not in CORE_STDLIB and not (name == "omp.core" or name.startswith("omp.core.")))
        if bad:
            offenders[str(path.relative_to(OMP))] = bad
    assert offenders == {}, f"omp.core must import only {sorted(CORE_STDLIB)} and omp.core: {offenders}"


def test_the_hook_modules_import_only_the_core_at_module_level() -> None:
    offenders = {}
    for path in sorted(HOOKS.rglob("*.py")):
        bad = sorted(name for name in _top_level_imports(path)
                     if name.startswith("omp") and not name.startswith(("omp.core", "omp.hooks")) and name != "omp")
        if bad:
            offenders[str(path.relative_to(OMP))] = bad
    assert offenders == {}, f"the hooks import the library only inside functions, when needed: {offenders}"


def _import_graph(package: Path) -> dict[str, set[str]]:
    """Module → the omp modules it imports (inside functions too; `from omp.x import y` counts
    as omp.x.y when that is a module, else omp.x)."""
    modules = {_module_name(path, package): path for path in package.rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        targets = set()
        for imported in _imports(path):
            if imported in modules:
                targets.add(imported)
            elif imported.rsplit(".", 1)[0] in modules and imported.startswith(package.name):
                targets.add(imported.rsplit(".", 1)[0])
        # A package's __init__ is run by importing any of its modules, but that is not an arrow
        # from the module to the package: only what is written counts.
        graph[name] = targets - {name}
    return graph


def _cycles(graph: dict[str, set[str]]) -> set[frozenset[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: set[frozenset[str]] = set()
    counter = [0]

    def connect(node: str) -> None:
        index[node] = low[node] = counter[0]
        counter[0] += 1
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph.get(node, ())):
            if target not in index:
                connect(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = set()
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.add(member)
                if member == node:
                    break
            if len(component) > 1:
                found.add(frozenset(component))

    for node in sorted(graph):
        if node not in index:
            connect(node)
    return found


# Cycles in modules outside the core slice of issue 14, left for the integrator to remove
# (each names the modules that import each other, directly or around a loop).
ALLOWED_CYCLES: set[frozenset[str]] = set()


def test_no_import_cycle_among_omp_modules() -> None:
    found = _cycles(_import_graph(OMP))
    new = {cycle for cycle in found if cycle not in ALLOWED_CYCLES}
    assert new == set(), "import cycles: " + "; ".join(" ↔ ".join(sorted(c)) for c in new)


def test_the_cycle_check_finds_a_cycle_through_a_function(tmp_path: Path) -> None:
    package = tmp_path / "omp"
    (package / "memory").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "memory" / "__init__.py").write_text("")
    (package / "hooks.py").write_text("from omp.memory.block import render\n")
    (package / "memory" / "block.py").write_text("def render():\n    from omp import hooks\n")
    (package / "plain.py").write_text("import omp.hooks\n")
    assert _cycles(_import_graph(package)) == {frozenset({"omp.hooks", "omp.memory.block"})}


# ---------------------------------------------------------------------------------------------
# what an ordinary review loads (SPEC §12: its start-up; §6.1 / §12: no network on its path)

def _loaded_at_exit(module: str) -> str:
    """`python -c` code that runs `python -m MODULE` and prints every module it loaded to stderr."""
    return ("import atexit, runpy, sys\n"
            "atexit.register(lambda: sys.stderr.write('\\nLOADED ' + ' '.join(sorted(sys.modules)) + '\\n'))\n"
            f"sys.argv = [{module!r}, *sys.argv[1:]]\n"
            f"runpy.run_module({module!r}, run_name='__main__', alter_sys=True)\n")


def _connections_at_exit(module: str) -> str:
    """`python -c` code that runs `python -m MODULE` and prints, at exit, every network call the
    process made (the audit events of a connection or a name lookup) and whether it loaded
    detect-secrets."""
    return ("import atexit, runpy, sys\n"
            "seen = []\n"
            "sys.addaudithook(lambda event, args: seen.append(event) if event in "
            "('socket.connect', 'socket.getaddrinfo', 'socket.gethostbyname') else None)\n"
            "atexit.register(lambda: sys.stderr.write('\\nNETWORK ' + ' '.join(seen) + "
            "' DETECT_SECRETS ' + str('detect_secrets' in sys.modules) + '\\n'))\n"
            f"sys.argv = [{module!r}, *sys.argv[1:]]\n"
            f"runpy.run_module({module!r}, run_name='__main__', alter_sys=True)\n")


def test_an_ordinary_review_makes_no_network_call(project: Path, tmp_path: Path) -> None:
    """A real review in a real subprocess: a model call (a reviewer command: a process, not a
    connection), a note, a pending directive, and a message with a SendGrid key, which only
    detect-secrets knows, so it is loaded too — and no connection or name lookup is made."""
    import os
    import subprocess
    import sys

    from review_support import FakeReviewer, conversation, json_reply, standard_answer, user, write_session

    fake = FakeReviewer(tmp_path / "fake")
    key = "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"
    session = write_session(project, [*conversation(), user(f"the mail key is SENDGRID={key}, keep it out")])
    fake.queue(json_reply(standard_answer()))
    proc = subprocess.run([sys.executable, "-c", _connections_at_exit("omp"), "memory-review", "--json", "--session",
                           session], cwd=project, env={**os.environ, **fake.env()}, capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert '"ran": true' in proc.stdout and key not in fake.calls()[0].stdin
    network, loaded = proc.stderr.rsplit("NETWORK ", 1)[1].split(" DETECT_SECRETS ")
    assert loaded.strip() == "True"  # the check saw the detector that imports requests
    assert network.split() == []


# What importing msgspec costs (≈ 10 ms a process here: datetime, decimal, uuid and platform come
# with it) is a quarter of the sessionStart budget. The records of the memory library the hook's
# cold render loads (paths, config, trust, notes, directives, the block) are NamedTuples, and
# msgspec is left to where it decodes: sessions, answers, ledgers.
NOT_ON_THE_COLD_RENDER = {"msgspec", "psutil", "click", "yaml", "tiktoken", "detect_secrets", "dataclasses"}


def test_the_session_start_hooks_cold_render_loads_no_msgspec(project: Path) -> None:
    """The sessionStart hook in `memory-inject=hook` mode with no cached context (the first session
    after memory changed by hand or by a `git pull`) renders the block in a real subprocess."""
    import json
    import os
    import subprocess
    import sys

    from memory_support import enable

    from omp.memory.items import NoteProposal
    from omp.memory.manage import add_directive
    from omp.memory.store import add_notes

    paths = enable(project, memory_inject="hook")
    add_directive(paths, "Use pnpm, not npm")
    add_notes(paths, [NoteProposal("Deploys go through tools/deploy.sh", "Blue-green, two stacks.")])
    (paths.state / "state" / "hook-context.txt").unlink(missing_ok=True)
    payload = json.dumps({"sessionId": "s-1", "cwd": str(project), "source": "new"})
    proc = subprocess.run([sys.executable, "-c", _loaded_at_exit("omp.hooks"), "session-start"], input=payload, cwd=project,
                          env=dict(os.environ), capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    context = json.loads(proc.stdout)["additionalContext"]
    assert "Use pnpm, not npm" in context and "Deploys go through tools/deploy.sh" in context
    loaded = {name.split(".")[0] for name in proc.stderr.rsplit("LOADED ", 1)[1].split()}
    assert "omp" in loaded and "re" in loaded  # the check sees what the render imported
    assert loaded & NOT_ON_THE_COLD_RENDER == set()


# ---------------------------------------------------------------------------------------------
# imports sit at the top of a module, or one line says why they wait (STYLE.md, "arrows point down")

# Lines that may sit between the imports of one group: a fallback's `try:` / `except …:` /
# `else:` / `if sys.version_info …:`, and blank lines.
_GROUP_GLUE = ("try:", "else:", "except", "if sys.version_info", "if os.name")


def _says_why(line: str) -> bool:
    """A comment that is more than a pragma (`# type: ignore[…]`, `# noqa`, `# pragma: …`)."""
    if "#" not in line:
        return False
    for comment in line.split("#")[1:]:
        words = comment.split()
        if words and not words[0].startswith(("type:", "noqa", "pragma:")):
            return True
    return False


def _unexplained_waiting_imports(path: Path) -> list[str]:
    """The imports inside a function with no reason given: no comment on the import, on another
    import of its group, or on the line just above the group."""
    source = path.read_text(encoding="utf-8")
    lines = source.splitlines()
    tree = ast.parse(source, str(path))
    import_lines: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            import_lines.update(range(node.lineno, (node.end_lineno or node.lineno) + 1))

    def in_group(number: int) -> bool:
        text = lines[number - 1].strip()
        return number in import_lines or not text or text.startswith(_GROUP_GLUE)

    found = []
    for function in ast.walk(tree):
        if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for node in ast.walk(function):
            if not isinstance(node, (ast.Import, ast.ImportFrom)):
                continue
            first, last = node.lineno, node.end_lineno or node.lineno
            while first > 1 and in_group(first - 1):
                first -= 1
            while last < len(lines) and in_group(last + 1):
                last += 1
            group = [n for n in range(first, last + 1) if n in import_lines]
            above = lines[first - 2].strip() if first > 1 else ""
            if not (any(_says_why(lines[n - 1]) for n in group) or above.startswith("#")):
                found.append(f"{path.name}:{node.lineno}: {lines[node.lineno - 1].strip()}")
    return found


def test_every_import_inside_a_function_says_why_it_waits() -> None:
    """An import inside a function hides an arrow from the reader, so it must earn its place:
    the hook path's budget, a measured heavy module only some calls need, a platform's module,
    a command's own machinery, and one line says which."""
    offenders = [f"{path.parent.relative_to(OMP.parent)}/{line}" for path in sorted(OMP.rglob("*.py"))
                 for line in _unexplained_waiting_imports(path)]
    assert offenders == [], "imports inside functions without a reason (move them to the top, or say why):\n" + \
        "\n".join(offenders)


def test_the_reason_check_finds_an_unexplained_import(tmp_path: Path) -> None:
    module = tmp_path / "m.py"
    module.write_text(
        "def quiet():\n    from omp.paths import global_home  # type: ignore[attr-defined]\n\n"
        "def explained():\n    # Only a crash needs these.\n    import datetime\n\n    import traceback\n\n"
        "def trailing():\n    import sqlite3  # only a history store needs it\n\n"
        "def fallback():\n    try:\n        from _sha256 import sha256  # the builtin module is cheaper\n"
        "    except ImportError:\n        from hashlib import sha256\n")
    assert [line.split(":", 1)[1] for line in _unexplained_waiting_imports(module)] == [
        "2: from omp.paths import global_home  # type: ignore[attr-defined]"]
