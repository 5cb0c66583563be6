"""Reviewer backends live in one registry (omp.review.backends): no other module names a
backend, so a new backend is its module plus one `Entry`; and what `omp doctor` says about a
reviewer comes from the entry, so a backend it has never heard of is checked like the others."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from omp import doctor_review as doctor
from omp.doctor_fixes import Context
from omp.review import backends
from omp.review.reviewers import ReviewerUnavailable

OMP = Path(__file__).resolve().parent.parent / "omp"
REGISTRY_PACKAGE = OMP / "review" / "backends"
# Identifiers that hold a backend's name: `backend == "copilot"` is a branch per backend.
_HOLDERS = ("backend", "reviewer")


def _name_of(node: ast.AST) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Subscript):  # settings["memory-reviewer"]
        key = node.slice
        return key.value if isinstance(key, ast.Constant) and isinstance(key.value, str) else ""
    return ""


def _is_name(node: ast.AST | None) -> bool:
    return isinstance(node, ast.Constant) and node.value in backends.NAMES


def backend_literals(tree: ast.AST) -> list[str]:
    """Where a module names a backend: compared with, defaulted to, listed, or set as the
    memory-reviewer setting."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            operands = [node.left, *node.comparators]
            holds = any(any(h in _name_of(o).lower() for h in _HOLDERS) for o in operands)
            if holds and any(_is_name(o) for o in operands):
                found.append(f"line {node.lineno}: compares a backend's name")
        elif isinstance(node, (ast.Tuple, ast.List, ast.Set)) and sum(map(_is_name, node.elts)) >= 2:
            found.append(f"line {node.lineno}: a list of backends")
        elif isinstance(node, ast.arguments):
            params = [*node.posonlyargs, *node.args][-len(node.defaults):] if node.defaults else []
            pairs = [*zip(params, node.defaults), *zip(node.kwonlyargs, node.kw_defaults)]
            found += [f"line {p.lineno}: {p.arg} defaults to a backend"
                      for p, d in pairs if _is_name(d) and any(h in p.arg for h in _HOLDERS)]
        elif isinstance(node, ast.Call):
            args = [*node.args, *(k.value for k in node.keywords)]
            if any(isinstance(a, ast.Constant) and a.value == "memory-reviewer" for a in args[:1]) \
                    and any(_is_name(a) for a in args[1:]):
                found.append(f"line {node.lineno}: the memory-reviewer setting set to a backend")
            if any(k.arg == "default" and _is_name(k.value) for k in node.keywords):
                found.append(f"line {node.lineno}: an option defaults to a backend")
    return found


def test_no_module_outside_the_registry_names_a_backend() -> None:
    problems = []
    for path in sorted(OMP.rglob("*.py")):
        if REGISTRY_PACKAGE in path.parents:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        problems += [f"{path.relative_to(OMP)} {p}" for p in backend_literals(tree)]
    assert not problems, "read omp.review.backends's REGISTRY instead:\n" + "\n".join(problems)


@pytest.mark.parametrize("source", [
    'if backend == "openai": pass',
    'if settings["memory-reviewer"] != "copilot": pass',
    'REVIEWERS = ("offline", "copilot")',
    'def run(reviewer: str = "offline"): pass',
    '_key("memory-reviewer", "copilot", "...")',
    'click.option("--reviewer", default="offline")',
])
def test_the_contract_check_sees_each_way_of_naming_a_backend(source: str) -> None:
    assert backend_literals(ast.parse(source)), source


def test_the_copilot_binary_is_not_a_backend_name() -> None:
    assert not backend_literals(ast.parse('found = shutil.which("copilot")\nCheck("copilot", "ok", "x")'))


# ---------------------------------------------------------------------------------------------
# omp doctor reads the entry


def _ctx(settings: dict[str, object], copilot_works: bool = True) -> Context:
    return Context(project=None, global_paths=None, deep=False,  # type: ignore[arg-type]
                   copilot_works=copilot_works, settings=settings)


def _settings(name: str) -> dict[str, object]:
    return {"memory-reviewer": name, "memory-review-model": "m1", "memory-reviewer-command": None,
            "memory-reviewer-url": None, "memory-review-timeout": 60}


def _entry(name: str, **fields: object) -> backends.Entry:
    return backends.Entry(name, "a reviewer from a test", 60, "tests.nonexistent", **fields)  # type: ignore[arg-type]


def test_doctor_checks_a_new_backend_through_its_entry(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[tuple[object, str]] = []

    def describe(self: backends.Entry, settings: object, model: str) -> str:
        seen.append((settings, model))
        return f"{self.name}, model {model} on the moon"

    monkeypatch.setattr(backends, "REGISTRY", {**backends.REGISTRY, "lunar": _entry("lunar")})
    monkeypatch.setattr(backends.Entry, "describe", describe)
    monkeypatch.setattr(doctor, "_reviewer_env_check", lambda: [])
    [check] = [c for c in doctor.check_reviewer(_ctx(_settings("lunar"))) if c.name == "reviewer"]
    assert check.status == "ok" and check.detail == "lunar, model m1 on the moon (not called; omp doctor --deep calls it)"
    assert seen and seen[0][1] == "m1"


def test_doctor_fixes_a_new_backends_missing_setting_from_its_entry(monkeypatch: pytest.MonkeyPatch) -> None:
    def describe(self: backends.Entry, settings: object, model: str) -> str:
        raise ReviewerUnavailable("not-configured", "memory-reviewer-url is not set", "set it")

    fixed = _entry("lunar", fix_setting=("memory-reviewer-url", "https://moon.example/v1"))
    plain = _entry("dusty")
    monkeypatch.setattr(backends, "REGISTRY", {**backends.REGISTRY, "lunar": fixed, "dusty": plain})
    monkeypatch.setattr(backends.Entry, "describe", describe)
    monkeypatch.setattr(doctor, "_reviewer_env_check", lambda: [])
    monkeypatch.setattr(doctor, "setting_fix", lambda ctx, key, value: f"omp config set {key} {value}")
    monkeypatch.setattr(doctor, "env_note", lambda ctx, key, value: "")
    [check] = [c for c in doctor.check_reviewer(_ctx(_settings("lunar"))) if c.name == "reviewer"]
    assert check.status == "fail" and "memory-reviewer-url is not set (set it)" in check.detail
    assert check.fix == "omp config set memory-reviewer-url https://moon.example/v1"
    # No setting to fix: back to the default reviewer, or to the one that calls no model.
    [check] = [c for c in doctor.check_reviewer(_ctx(_settings("dusty"))) if c.name == "reviewer"]
    assert check.fix == f"omp config set memory-reviewer {backends.DEFAULT}"
    [check] = [c for c in doctor.check_reviewer(_ctx(_settings("dusty"), copilot_works=False)) if c.name == "reviewer"]
    assert check.fix == f"omp config set memory-reviewer {backends.NO_MODEL}"
