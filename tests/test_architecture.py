"""Arrows point down (STYLE.md): the library never imports the click layer.

`omp/cli/` parses arguments, calls the library and renders its outcomes; nothing below it may
import `omp.cli`, or the library would print and the layers would knot. Read from the source with
`ast`, so an import hidden inside a function counts too.
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
OMP = ROOT / "omp"


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
# what an ordinary review loads (docs/performance.md#where-speed-matters: its start-up; §6.1 / §12: no network on its path)

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


# The sessionStart hook's cold render is the hook edge: the records of the memory library it
# loads (paths, config, trust, notes, directives, the block) are NamedTuples, and it loads none of
# the libraries the rest of omp uses (docs/performance.md, "Records and JSON").
NOT_ON_THE_COLD_RENDER = {"psutil", "click", "yaml", "tiktoken", "detect_secrets", "dataclasses"}
# Nor the config table, the trust file's writer or the reviewer registry: omp.memory.render reads
# the caps and the directives' trust with omp.core.settings (tests/test_block_settings.py).
OMP_OFF_THE_COLD_RENDER = {"omp.config", "omp.trust", "omp.review", "omp.memory.block"}


def test_the_session_start_hooks_cold_render_loads_no_library(project: Path) -> None:
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
    modules = set(proc.stderr.rsplit("LOADED ", 1)[1].split())
    loaded = {name.split(".")[0] for name in modules}
    assert "omp" in loaded and "re" in loaded and "omp.memory.render" in modules  # it sees what the render imported
    assert loaded & NOT_ON_THE_COLD_RENDER == set()
    assert modules & OMP_OFF_THE_COLD_RENDER == set()


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


# ---------------------------------------------------------------------------------------------
# ordinary Python (docs/performance.md#where-speed-matters, STYLE.md): no private CPython API, nothing planted in sys.modules,
# no module over 600 lines. Each check reads the source with `ast`, so an import or a call
# inside a function counts too.

HOOK_EDGE = (OMP / "hooks", OMP / "core")
# What the hook edge (omp/hooks/, omp/core/: what Copilot waits for) may use of them: leaving at
# once without running exit handlers, and the builtin sha256 module that is a third of hashlib's
# import time (omp.core.settings; tests/test_hooks.py counts it among the hook's imports).
# Nothing in the hook edge calls os._exit today; docs/performance.md#where-speed-matters leaves it that one door.
HOOK_EDGE_PRIVATE = {"os._exit", "_sha256", "_sha2"}
# The regular-expression engine's internals, public names but private API (deprecated in 3.11).
PRIVATE_MODULES = {"sre_compile", "sre_parse", "sre_constants"}
MAX_MODULE_LINES = 600


def _is_private(name: str) -> bool:
    """`_x` is private; `__x__` (`__future__`, `__version__`) is not."""
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _cpython(name: str) -> bool:
    """Is module `name` CPython's own: the standard library, or a private top-level module
    (`_sha2` is only in 3.12's list of the standard library's names)?"""
    top = name.split(".")[0]
    return top in sys.stdlib_module_names or _is_private(top)


def _private_module(name: str) -> bool:
    """A module of CPython's whose dotted name has a private part (`_sre`, `concurrent._x`)."""
    return _cpython(name) and (name in PRIVATE_MODULES or any(_is_private(part) for part in name.split(".")))


def _private_uses(path: Path) -> list[str]:
    """`LINE: NAME` for each private CPython name the module uses: a private module imported, a
    private name imported from a standard module, or a private attribute of an imported one
    (`atexit._run_exitfuncs`, `sys._getframe`, `os._exit`), however the module was renamed.
    Another library's private names are its own business (`click._termui_impl` for a type)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    modules: dict[str, str] = {}  # local name → the module outside omp it is bound to
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if _private_module(alias.name):
                    found.append((node.lineno, alias.name))
                if _cpython(alias.name):  # `import a.b` binds a; `import a.b as c` binds a.b
                    modules[alias.asname or alias.name.split(".")[0]] = alias.name if alias.asname else \
                        alias.name.split(".")[0]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0 and _cpython(node.module):
            if _private_module(node.module):
                found.append((node.lineno, node.module))
            for alias in node.names:
                if _is_private(alias.name):
                    found.append((node.lineno, f"{node.module}.{alias.name}"))
                else:  # `from os import path`: a module too, perhaps
                    modules[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and _is_private(node.attr) and isinstance(node.value, ast.Name) \
                and node.value.id in modules:
            found.append((node.lineno, f"{modules[node.value.id]}.{node.attr}"))
        # getattr(atexit, "_run_exitfuncs", None): the same attribute, spelt as a string
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("getattr", "hasattr") \
                and len(node.args) >= 2 and isinstance(node.args[0], ast.Name) and node.args[0].id in modules \
                and isinstance(node.args[1], ast.Constant) and isinstance(node.args[1].value, str) \
                and _is_private(node.args[1].value):
            found.append((node.lineno, f"{modules[node.args[0].id]}.{node.args[1].value}"))
    return [f"{line}: {name}" for line, name in sorted(set(found))]


def _in_hook_edge(path: Path) -> bool:
    return any(edge in path.parents for edge in HOOK_EDGE)


def _private_offences(path: Path, hook_edge: bool) -> list[str]:
    return [use for use in _private_uses(path)
            if not (hook_edge and use.split(": ", 1)[1] in HOOK_EDGE_PRIVATE)]


def test_no_module_uses_private_cpython_api() -> None:
    """docs/performance.md#where-speed-matters: no `_sre`, `atexit._run_exitfuncs`, `sys._getframe` and the like anywhere in
    omp, and `os._exit` only at the hook edge."""
    offenders = [f"{path.relative_to(OMP.parent)}:{use}" for path in sorted(OMP.rglob("*.py"))
                 for use in _private_offences(path, _in_hook_edge(path))]
    assert offenders == [], "private CPython API (write the ordinary code; docs/performance.md#where-speed-matters):\n  " + "\n  ".join(offenders)


def test_the_private_api_check_finds_each_kind_of_use(tmp_path: Path) -> None:
    module = tmp_path / "m.py"
    module.write_text(
        "import os\nimport atexit as leave\nimport sys\nimport re, json\nimport email.mime\n"
        "from sys import _getframe\nfrom os import path\n\n"
        "def f():\n"
        "    import _sre\n"
        "    from _thread import get_ident\n"
        "    import sre_compile\n"
        "    leave._run_exitfuncs()\n"
        "    getattr(leave, '_run_exitfuncs', None)\n"
        "    sys._getframe(1)\n"
        "    path._joinrealpath\n"
        "    os._exit(0)\n"
        "    sys.__stdout__, json.__version__, os.path, re.compile\n"  # dunders and public names: fine
        "    from omp.core import _private_helper\n"  # omp's own: not CPython's
        "    from click._termui_impl import ProgressBar\n"  # another library's
        "    obj = object(); obj._x\n")  # not a module
    expected = ["6: sys._getframe", "10: _sre", "11: _thread", "12: sre_compile", "13: atexit._run_exitfuncs",
                "14: atexit._run_exitfuncs", "15: sys._getframe", "16: os.path._joinrealpath", "17: os._exit"]
    assert _private_offences(module, hook_edge=False) == expected
    # The hook edge may leave with os._exit; nothing else private.
    assert _private_offences(module, hook_edge=True) == [use for use in expected if use != "17: os._exit"]
    assert _in_hook_edge(OMP / "hooks" / "end.py") and _in_hook_edge(OMP / "core" / "settings.py")
    assert not _in_hook_edge(OMP / "review" / "pipeline.py") and not _in_hook_edge(OMP / "program.py")


def _sys_modules_writes(path: Path) -> list[str]:
    """`LINE: how` for each change the module makes to `sys.modules` (an item assigned or deleted,
    `setdefault`, `update`, `pop`, …), through `sys.modules`, `from sys import modules` or a
    name bound to either."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    sys_names = {"sys"}
    aliases: set[str] = set()  # names bound to the sys.modules dict itself
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            sys_names.update(alias.asname for alias in node.names if alias.name == "sys" and alias.asname)
        elif isinstance(node, ast.ImportFrom) and node.module == "sys" and node.level == 0:
            aliases.update(alias.asname or alias.name for alias in node.names if alias.name == "modules")

    def is_modules(expr: ast.expr) -> bool:
        if isinstance(expr, ast.Attribute) and expr.attr == "modules":
            return isinstance(expr.value, ast.Name) and expr.value.id in sys_names
        return isinstance(expr, ast.Name) and expr.id in aliases

    for node in ast.walk(tree):  # `m = sys.modules`: m is the dict too
        if isinstance(node, ast.Assign) and is_modules(node.value):
            aliases.update(target.id for target in node.targets if isinstance(target, ast.Name))
    found = []
    for node in ast.walk(tree):
        targets: list[ast.expr] = []
        if isinstance(node, (ast.Assign, ast.Delete)):
            targets = list(node.targets)
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
            targets = [node.target]
        for target in targets:
            if isinstance(target, ast.Subscript) and is_modules(target.value):
                found.append(f"{node.lineno}: sys.modules[...] {'deleted' if isinstance(node, ast.Delete) else 'set'}")
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and is_modules(node.func.value) \
                and node.func.attr in ("setdefault", "update", "pop", "popitem", "clear", "__setitem__", "__delitem__"):
            found.append(f"{node.lineno}: sys.modules.{node.func.attr}()")
    return sorted(found, key=lambda use: int(use.split(":")[0]))


def test_no_module_plants_or_removes_entries_of_sys_modules() -> None:
    """docs/performance.md#where-speed-matters: no fake module planted in `sys.modules` (a stand-in `requests` while
    detect-secrets imports, say): let a library import what it imports."""
    offenders = [f"{path.relative_to(OMP.parent)}:{use}" for path in sorted(OMP.rglob("*.py"))
                 for use in _sys_modules_writes(path)]
    assert offenders == [], "changes to sys.modules:\n  " + "\n  ".join(offenders)


def test_the_sys_modules_check_finds_a_planted_module(tmp_path: Path) -> None:
    module = tmp_path / "m.py"
    module.write_text(
        "import sys\nimport sys as system\nfrom sys import modules as loaded\n\n"
        "def plant(fake):\n"
        "    sys.modules['requests'] = fake\n"
        "    system.modules.setdefault('requests', fake)\n"
        "    loaded.update({'requests': fake})\n"
        "    table = sys.modules\n"
        "    table['requests'] = fake\n"
        "    del sys.modules['requests']\n"
        "    'requests' in sys.modules, sys.modules.get('requests')\n")  # reading it is fine
    assert _sys_modules_writes(module) == [
        "6: sys.modules[...] set", "7: sys.modules.setdefault()", "8: sys.modules.update()",
        "10: sys.modules[...] set", "11: sys.modules[...] deleted"]


def _long_modules(package: Path, limit: int = MAX_MODULE_LINES) -> dict[str, int]:
    """Modules of `package` over `limit` lines, with their length."""
    lengths = {str(path.relative_to(package.parent)): len(path.read_text(encoding="utf-8").splitlines())
               for path in sorted(package.rglob("*.py"))}
    return {name: count for name, count in lengths.items() if count > limit}


def test_no_module_is_over_600_lines() -> None:
    """STYLE.md: modules of one job, under ~600 lines; a longer one holds several jobs (split it
    by moving code, not rewriting it)."""
    assert _long_modules(OMP) == {}, f"modules over {MAX_MODULE_LINES} lines (split them): {_long_modules(OMP)}"


def test_the_length_check_finds_a_long_module(tmp_path: Path) -> None:
    package = tmp_path / "omp"
    (package / "sub").mkdir(parents=True)
    (package / "sub" / "long.py").write_text("x = 1\n" * (MAX_MODULE_LINES + 1))
    (package / "short.py").write_text("x = 1\n" * MAX_MODULE_LINES)
    assert _long_modules(package) == {"omp/sub/long.py": MAX_MODULE_LINES + 1}


def test_the_code_cites_only_the_projects_own_docs() -> None:
    """Comments and docstrings point at pages in this repository (docs/, README.md), never at a
    document that is not in it (the product contract the code was first written against)."""
    citing = [str(path.relative_to(ROOT)) for folder in ("omp", "tests", "bench", "tools")
              for path in (ROOT / folder).rglob("*.py")
              if "SPEC §" in path.read_text(encoding="utf-8") and path.name != "test_architecture.py"]
    assert citing == []


# ---------------------------------------------------------------------------------------------
# nothing a merge or an editor leaves behind is committed

_LEFTOVER_SUFFIXES = (".orig", ".rej", ".bak", ".swp", "~")


def test_no_merge_or_editor_leftover_is_tracked() -> None:
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, timeout=60)
    if listed.returncode != 0:
        pytest.skip("not a git checkout")
    leftovers = [name for name in listed.stdout.decode("utf-8", "replace").split("\0") if name.endswith(_LEFTOVER_SUFFIXES)]
    assert leftovers == []


def test_no_tracked_symlink_points_outside_the_repository() -> None:
    """A symlink to a local venv or worktree (an absolute path on one machine) is not source."""
    listed = subprocess.run(["git", "ls-files", "-s", "-z"], cwd=ROOT, capture_output=True, timeout=60)
    if listed.returncode != 0:
        pytest.skip("not a git checkout")
    links = [entry.split("\t", 1)[1] for entry in listed.stdout.decode("utf-8", "replace").split("\0")
             if entry.startswith("120000 ")]
    outside = [name for name in links
               if not (ROOT / name).parent.joinpath(os.readlink(ROOT / name)).resolve().is_relative_to(ROOT.resolve())]
    assert outside == []
