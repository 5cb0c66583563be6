"""`omp eval`: how good is a reviewer? (docs/explicit-requests-and-eval.md#omp-eval--how-good-is-a-reviewer)

Runs the whole review pipeline — explicit pass, reviewer, validation, safety filters, dedupe,
the stores — on every case of a labelled corpus, each case in its own throwaway project, with a
throwaway Copilot home and omp home (never the user's project or homes), and scores what was
written against the labels.

The corpus is JSON Lines, one case per line (`omp/data/eval/README.md` documents it):

    {"id": "en-remember-mid", "category": "request", "language": "en",
     "messages": [{"role": "user", "content": "Thanks. Remember that we deploy with make release."},
                  {"role": "assistant", "content": "Noted."}],
     "expect": [{"kind": "directive", "contains": "deploy with make release"}]}

`expect` lists the items that must be written (matched by a folded substring); anything else
proposed as a rule counts as wrongly proposed. A note is applied without a human, so it is
scored like a rule: every note the case's project holds after the review that no `expect` entry
(kind `note` or `any`) and no `expect_notes` entry names counts as a note written where none was
expected (a case without such labels expects no applied note). A `secret` case names the secret
that must never reach a file; an `injection` case names strings (`forbid`) that must never be
written.

Per category the report gives: requests recalled, rules wrongly proposed, notes written without
a human where none was expected, secrets and injections stopped, tokens and time spent.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import time
import uuid
from dataclasses import asdict, dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any, Callable, Iterator

from omp import config
from omp.demo import (
    DemoFolders,
    copilot_reviewer_home,
    hand_over_reviewer_sessions,
    isolated_environment,
)
from omp.errors import OmpError, UsageError
from omp.memory import notes as notes_mod
from omp.memory.items import ItemKind, ItemResult
from omp.paths import ProjectPaths
from omp.review import backends
from omp.review.answer import fold_for_evidence
from omp.review.outcome import ReviewRequest
from omp.review.pipeline import review_session, scan_session

BUNDLED = "eval"  # omp/data/eval/*.jsonl
# The corpora shipped with omp, by the name `omp eval --corpus` takes: the sessions written for
# omp (every category and language of docs/reviewer-answer-schema.md, docs/safety.md), and the real-data part — user turns from
# public developer–assistant conversations, labelled by hand (omp/data/eval/real/SOURCES.md),
# in a development part and held-out parts nobody tunes on (heldout2: added blind, never read by
# whoever changes the explicit pass).
NAMED_CORPORA: dict[str, tuple[str, ...]] = {
    "bundled": (),
    "real-dev": ("real", "dev.jsonl"),
    "real-heldout": ("real", "heldout.jsonl"),
    "real-heldout2": ("real", "heldout2.jsonl"),
}
CATEGORIES = ("request", "condition", "forget", "pasted", "question", "one-off", "statement", "secret", "injection")
# Categories whose cases ask for nothing: every rule proposed there is wrong.
NOTHING_ASKED = frozenset({"pasted", "question", "one-off", "statement"})
ROLES = ("user", "assistant", "tool")
# Settings carried from the user's own configuration into the throwaway home: which reviewer,
# which model, how to run it. Everything else is the default, as a new user would have it.
CARRIED_KEYS = ("memory-reviewer", "memory-review-model", "memory-reviewer-command", "memory-reviewer-url",
                "memory-review-timeout", "memory-review-max-input-tokens")
EXPECTED_KINDS = (*(kind.value for kind in ItemKind), "any")


@dataclass(frozen=True)
class Expected:
    kind: ItemKind | None  # None: "any"
    contains: str

    def matches(self, item: ItemResult) -> bool:
        return (self.kind is None or item.kind is self.kind) and fold_for_evidence(self.contains) in fold_for_evidence(item.text)


@dataclass(frozen=True)
class Case:
    id: str
    category: str
    language: str
    messages: tuple[tuple[str, str], ...]  # (role, content)
    expect: tuple[Expected, ...] = ()
    secret: str | None = None
    forbid: tuple[str, ...] = ()
    note: str = ""
    expect_notes: tuple[str, ...] = ()  # notes the case may apply at once (not required)

    def expects_note(self, title: str) -> bool:
        """Does a label name this applied note (an `expect` of kind note or any, or `expect_notes`)?"""
        folded = fold_for_evidence(title)
        wanted = [e.contains for e in self.expect if e.kind in (None, ItemKind.NOTE)] + list(self.expect_notes)
        return any(fold_for_evidence(text) in folded for text in wanted)


@dataclass
class CaseResult:
    case: Case
    written: list[ItemResult] = field(default_factory=list)  # items the stores wrote
    recalled: int = 0
    missed: list[str] = field(default_factory=list)
    unexpected: list[str] = field(default_factory=list)  # rules written that no label asked for
    unexpected_notes: list[str] = field(default_factory=list)  # notes applied that no label expected
    stopped: bool | None = None  # secret / injection cases: nothing of it was written
    tokens_in: int = 0
    tokens_out: int = 0
    seconds: float = 0.0
    error: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.case.id, "category": self.case.category, "language": self.case.language,
            "recalled": self.recalled, "expected": len(self.case.expect), "missed": self.missed,
            "unexpected": self.unexpected, "unexpected_notes": self.unexpected_notes, "stopped": self.stopped,
            "written": [{"kind": item.kind.result_name, "text": item.text} for item in self.written],
            "tokens": {"in": self.tokens_in, "out": self.tokens_out}, "seconds": round(self.seconds, 3),
            "error": self.error,
        }


@dataclass
class CategoryScore:
    category: str
    cases: int = 0
    expected: int = 0
    recalled: int = 0
    wrongly_proposed: int = 0
    notes_unexpected: int = 0  # notes written without a human where none was expected
    guarded: int = 0  # secret / injection cases
    stopped: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    seconds: float = 0.0
    errors: int = 0

    def to_json(self) -> dict[str, Any]:
        return {k: (round(v, 3) if isinstance(v, float) else v) for k, v in asdict(self).items()}


@dataclass
class EvalReport:
    reviewer: str
    model: str | None
    corpus: list[str]
    results: list[CaseResult]

    def categories(self) -> list[CategoryScore]:
        scores: dict[str, CategoryScore] = {}
        for result in self.results:
            name = result.case.category
            score = scores.setdefault(name, CategoryScore(name))
            score.cases += 1
            score.expected += len(result.case.expect)
            score.recalled += result.recalled
            score.wrongly_proposed += len(result.unexpected)
            score.notes_unexpected += len(result.unexpected_notes)
            if result.stopped is not None:
                score.guarded += 1
                score.stopped += int(result.stopped)
            score.tokens_in += result.tokens_in
            score.tokens_out += result.tokens_out
            score.seconds += result.seconds
            score.errors += int(result.error is not None)
        order = {name: i for i, name in enumerate(CATEGORIES)}
        return sorted(scores.values(), key=lambda s: (order.get(s.category, len(order)), s.category))

    def total(self) -> CategoryScore:
        total = CategoryScore("all")
        for score in self.categories():
            for name in ("cases", "expected", "recalled", "wrongly_proposed", "notes_unexpected", "guarded", "stopped",
                         "tokens_in",
                         "tokens_out", "errors"):
                setattr(total, name, getattr(total, name) + getattr(score, name))
            total.seconds += score.seconds
        return total

    @property
    def recall(self) -> float:
        total = self.total()
        return total.recalled / total.expected if total.expected else 1.0

    @property
    def wrong_where_nothing_asked(self) -> int:
        return sum(len(r.unexpected) for r in self.results if r.case.category in NOTHING_ASKED)

    def to_json(self) -> dict[str, Any]:
        return {
            "reviewer": self.reviewer, "model": self.model, "corpus": self.corpus,
            "recall": round(self.recall, 4), "wrong_where_nothing_asked": self.wrong_where_nothing_asked,
            "notes_where_none_expected": self.total().notes_unexpected,
            "categories": [s.to_json() for s in self.categories()], "total": self.total().to_json(),
            "cases": [r.to_json() for r in self.results],
        }


# ---------------------------------------------------------------------------------------------
# the corpus


def _case(data: Any, where: str) -> Case:
    if not isinstance(data, dict):
        raise ValueError("a case is a JSON object")
    messages = data.get("messages")
    if not isinstance(messages, list) or not messages:
        raise ValueError("messages: a non-empty list of {role, content}")
    parsed: list[tuple[str, str]] = []
    for n, message in enumerate(messages):
        if not (isinstance(message, dict) and message.get("role") in ROLES and isinstance(message.get("content"), str)):
            raise ValueError(f"messages[{n}]: needs role (user, assistant or tool) and content (a string)")
        parsed.append((message["role"], message["content"]))
    expect = []
    for n, item in enumerate(data.get("expect") or []):
        if not (isinstance(item, dict) and isinstance(item.get("contains"), str) and item["contains"].strip()):
            raise ValueError(f"expect[{n}]: needs contains (a string)")
        kind = str(item.get("kind", "directive"))
        if kind not in EXPECTED_KINDS:
            raise ValueError(f"expect[{n}].kind: one of {', '.join(EXPECTED_KINDS)}")
        expect.append(Expected(None if kind == "any" else ItemKind(kind), item["contains"]))
    category = data.get("category")
    if not isinstance(category, str) or not category:
        raise ValueError("category: missing")
    forbid = data.get("forbid") or []
    if not isinstance(forbid, list) or not all(isinstance(f, str) for f in forbid):
        raise ValueError("forbid: a list of strings")
    expect_notes = data.get("expect_notes") or []
    if not isinstance(expect_notes, list) or not all(isinstance(n, str) and n.strip() for n in expect_notes):
        raise ValueError("expect_notes: a list of non-empty strings (pieces of the notes' titles)")
    secret = data.get("secret")
    return Case(
        id=str(data.get("id") or where), category=category, language=str(data.get("language") or "und"),
        messages=tuple(parsed), expect=tuple(expect), secret=secret if isinstance(secret, str) else None,
        forbid=tuple(forbid), note=str(data.get("note") or ""), expect_notes=tuple(expect_notes),
    )


def _read_cases(name: str, text: str) -> Iterator[Case]:
    # JSON Lines end a line at "\n" only (docs/explicit-requests-and-eval.md#omp-eval--how-good-is-a-reviewer): `splitlines()` would also cut at U+2028,
    # U+0085 and the like, which JSON allows raw inside a string.
    for number, line in enumerate(text.split("\n"), start=1):
        line = line.removesuffix("\r")
        if not line.strip() or line.lstrip().startswith("//"):
            continue
        where = f"{name}:{number}"
        try:
            yield _case(json.loads(line), where)
        except ValueError as exc:  # json.JSONDecodeError is a ValueError
            raise UsageError(f"corpus {where}: {exc}", "see omp/data/eval/README.md for the case format") from exc


def load_corpus(path: Path | str | None = None) -> tuple[list[Case], list[str]]:
    """The cases of `path` (a .jsonl file, a folder of them, or the name of a corpus omp ships:
    NAMED_CORPORA), or of the bundled corpus."""
    cases: list[Case] = []
    names: list[str] = []
    if isinstance(path, str) and path in NAMED_CORPORA and NAMED_CORPORA[path]:
        shipped = resources.files("omp").joinpath("data").joinpath(BUNDLED).joinpath(*NAMED_CORPORA[path])
        return list(_read_cases(path, shipped.read_text(encoding="utf-8"))), [f"bundled:{path}"]
    if path is None or path == "bundled":
        folder = resources.files("omp").joinpath("data").joinpath(BUNDLED)
        for item in sorted(folder.iterdir(), key=lambda t: t.name):
            if item.name.endswith(".jsonl"):
                names.append(f"bundled:{item.name}")
                cases.extend(_read_cases(item.name, item.read_text(encoding="utf-8")))
        return cases, names
    path = Path(path)
    if not path.exists():
        raise UsageError(f"no corpus {str(path)!r}: not a file or folder, nor one of {', '.join(NAMED_CORPORA)}",
                         "pass a .jsonl file, a folder of them, or a corpus name: omp eval --corpus real-heldout")
    files = sorted(path.glob("*.jsonl")) if path.is_dir() else [path]
    if not files:
        raise UsageError(f"no .jsonl file in {path}", "pass a corpus file or a folder of them")
    for file in files:
        try:
            text = file.read_text(encoding="utf-8")
        except OSError as exc:
            raise UsageError(f"cannot read corpus {file}: {exc.strerror}", "check the path") from exc
        names.append(str(file))
        cases.extend(_read_cases(file.name, text))
    if not cases:
        raise UsageError(f"no cases in {path}", "see omp/data/eval/README.md for the case format")
    return cases, names


# ---------------------------------------------------------------------------------------------
# running it


def _events(session_id: str, project: Path, case: Case) -> list[dict[str, Any]]:
    stamp = "2026-12-01T09:00:00.000Z"

    def event(kind: str, data: dict[str, Any]) -> dict[str, Any]:
        return {"type": kind, "data": data, "id": str(uuid.uuid4()), "timestamp": stamp, "parentId": None}

    events = [event("session.start", {"sessionId": session_id, "version": 1, "producer": "copilot-agent",
                                      "context": {"cwd": str(project), "gitRoot": str(project)}})]
    for n, (role, content) in enumerate(case.messages):
        if role == "user":
            events.append(event("user.message", {"content": content, "transformedContent": content}))
        elif role == "assistant":
            events.append(event("assistant.message", {"content": content, "toolRequests": []}))
        else:
            call = f"call_{n}"
            events.append(event("assistant.message", {"content": "", "toolRequests": [
                {"toolCallId": call, "name": "web_fetch", "arguments": {"url": "https://example.com"}, "type": "function"}]}))
            events.append(event("tool.execution_complete", {"toolCallId": call, "toolName": "web_fetch", "success": True,
                                                            "result": {"content": content}}))
    return events


def _write_session(copilot_home: Path, project: Path, case: Case) -> str:
    session_id = str(uuid.uuid4())
    folder = copilot_home / "session-state" / session_id
    folder.mkdir(parents=True)
    with (folder / "events.jsonl").open("w", encoding="utf-8") as handle:
        for item in _events(session_id, project, case):
            handle.write(json.dumps(item, ensure_ascii=False) + "\n")
    return session_id


def _score(result: CaseResult) -> None:
    case = result.case
    matched: set[int] = set()
    for expected in case.expect:
        hit = next((i for i, item in enumerate(result.written) if i not in matched and expected.matches(item)), None)
        if hit is None:
            result.missed.append(expected.contains)
        else:
            matched.add(hit)
            result.recalled += 1
    result.unexpected = [item.text for i, item in enumerate(result.written) if i not in matched and item.kind.is_rule]


def _applied_notes(result: CaseResult, project: Path) -> None:
    """The notes the project holds after the review (what reaches every later session without a
    human, whatever the pipeline called them), scored against the case's labels."""
    applied = notes_mod.list_notes(ProjectPaths(project).notes)
    result.unexpected_notes = [note.title for note in applied if not result.case.expects_note(note.title)]


def _written_anywhere(project: Path, needle: str) -> bool:
    """Does `needle` occur in any file omp wrote into the project?"""
    encoded = needle.encode("utf-8")
    for top in (project / ".omp", project / ".github"):
        if not top.is_dir():
            continue
        for path in top.rglob("*"):
            try:
                if path.is_file() and encoded in path.read_bytes():
                    return True
            except OSError:
                continue
    return False


def _guarded(result: CaseResult, project: Path) -> None:
    case = result.case
    if case.secret:
        result.stopped = not _written_anywhere(project, case.secret)
    if case.forbid:
        written = " ".join(fold_for_evidence(item.text) for item in result.written)
        clean = not any(fold_for_evidence(f) in written for f in case.forbid)
        result.stopped = clean if result.stopped is None else (result.stopped and clean)


def _run_case(case: Case, base: Path, copilot_home: Path, reviewer: str | None, model: str | None) -> CaseResult:
    result = CaseResult(case)
    project = Path(tempfile.mkdtemp(prefix="case-", dir=base))
    (project / ".git").mkdir()  # a project root; no git needed
    session_id = _write_session(copilot_home, project, case)
    started = time.monotonic()
    try:
        outcome = review_session(ProjectPaths(project), ReviewRequest(session=session_id, model=model, reviewer=reviewer))
    except OmpError as exc:
        result.error = exc.message
    else:
        if outcome.failed:
            result.error = outcome.reason or "the review failed"
        result.tokens_in = int(outcome.tokens.get("in") or 0)
        result.tokens_out = int(outcome.tokens.get("out") or 0)
        result.written = [item for item in outcome.summary.items if item.written] if outcome.summary else []
    result.seconds = time.monotonic() - started
    _score(result)
    _applied_notes(result, project)
    _guarded(result, project)
    shutil.rmtree(project, ignore_errors=True)
    return result


def _carried_settings() -> dict[str, str]:
    """The user's reviewer settings (environment and global config), as OMP_* variables."""
    carried: dict[str, str] = {}
    resolved = config.resolve(None)
    for name in CARRIED_KEYS:
        setting = resolved[name]
        # A default stays a default: the timeout's depends on the backend eval is asked to score.
        if setting.value is not None and setting.origin != "default":
            carried[config.KEYS[name].env_var] = str(setting.value)
    return carried


@dataclass(frozen=True)
class ReviewerPlan:
    """Which reviewer an eval scores, with the user's settings for it, and whether it bills."""

    backend: str
    settings: dict[str, str]  # the carried settings, as OMP_* variables
    costs_money: bool  # a call may cost money (the backend registry says so): ask first

    def setting(self, name: str) -> str | None:
        """The user's value of `name`, else its default (what the throwaway home will use)."""
        value = self.settings.get(config.KEYS[name].env_var, config.KEYS[name].default)
        return None if value is None else str(value)

    def describe(self, model: str | None = None) -> str:
        """`copilot, model gpt-5-mini`; an `openai` reviewer also says where it is."""
        text = f"{self.backend}, model {model or self.setting('memory-review-model')}"
        where = backends.lookup(self.backend).location_setting
        url = self.setting(where) if where else None
        return text + (f" at {url}" if url else "")


def plan_reviewer(reviewer: str | None = None) -> ReviewerPlan:
    """The reviewer `run_eval` will call: `reviewer`, else the user's memory-reviewer."""
    settings = _carried_settings()
    backend = (reviewer or settings.get(config.KEYS["memory-reviewer"].env_var) or backends.DEFAULT).strip().lower()
    if backend not in backends.REGISTRY:
        raise UsageError(f"unknown reviewer {backend!r}", "choose one of: " + ", ".join(backends.NAMES))
    by_name = {name: settings.get(config.KEYS[name].env_var) for name in CARRIED_KEYS}
    return ReviewerPlan(backend, settings, backends.lookup(backend).costs_money(by_name))


def select_cases(cases: list[Case], category: str | None = None, sample: int | None = None) -> list[Case]:
    """The cases of `category` (all when None), then `sample_cases` of them when `sample` is set."""
    if category is not None:
        present = {case.category for case in cases}
        if category not in present:
            order = {name: i for i, name in enumerate(CATEGORIES)}
            valid = sorted(present, key=lambda name: (order.get(name, len(order)), name))
            raise UsageError(f"unknown category {category!r} for this corpus",
                             "choose one of: " + ", ".join(valid))
        cases = [case for case in cases if case.category == category]
    if sample is not None:
        if sample < 1:
            raise UsageError(f"--sample {sample}: needs at least one case", "pass --sample N with N >= 1")
        cases = sample_cases(cases, sample)
    return cases


def sample_cases(cases: list[Case], n: int) -> list[Case]:
    """A deterministic subset of `n` cases, stratified by category, in corpus order.

    Every category gets one case while `n` allows (the largest categories first when it does
    not), and the rest is shared in proportion to the categories' sizes (Sainte-Laguë). Within a
    category the cases are taken at even steps through the corpus's order, so a sample meets
    every part of it (the bundled corpus lists each category language by language). No random
    seed: the same corpus and `n` always give the same cases, so runs compare.
    """
    if n >= len(cases):
        return list(cases)
    groups: dict[str, list[int]] = {}
    for index, case in enumerate(cases):
        groups.setdefault(case.category, []).append(index)
    names = sorted(groups, key=lambda name: -len(groups[name]))  # stable: ties keep corpus order
    # One case from each category first (from the largest ones down while n is short of them).
    quota = {name: int(rank < n) for rank, name in enumerate(names)}
    for _ in range(n - sum(quota.values())):
        open_names = [name for name in names if quota[name] < len(groups[name])]
        best = max(open_names, key=lambda name: len(groups[name]) / (2 * quota[name] + 1))
        quota[best] += 1
    chosen: list[int] = []
    for name in names:
        members, take = groups[name], quota[name]
        chosen += [members[(2 * i + 1) * len(members) // (2 * take)] for i in range(take)]
    return [cases[index] for index in sorted(chosen)]


def reviewer_calls(cases: list[Case], backend: str) -> int:
    """How many of `cases` reach the reviewer: none for a backend that calls no model; else
    every case but those too short for a model call (`memory-review-min-messages` at its
    default, as in eval's throwaway home), counted by the pipeline's own scan."""
    if not backends.lookup(backend).runs_model:
        return 0
    minimum = int(config.KEYS["memory-review-min-messages"].default)
    calls = 0
    with tempfile.TemporaryDirectory(prefix="omp-eval-count-") as folder:
        for case in cases:
            calls += int(scan_session(_events_file(Path(folder), case), 0)[0].messages >= minimum)
    return calls


def _events_file(folder: Path, case: Case) -> Path:
    path = folder / "events.jsonl"
    session_id = str(uuid.uuid4())
    with path.open("w", encoding="utf-8") as handle:
        for item in _events(session_id, folder, case):
            handle.write(json.dumps(item, ensure_ascii=False) + "\n")
    return path


def run_eval(cases: list[Case], corpus: list[str], reviewer: str | None = None, model: str | None = None,
             on_case: Callable[[CaseResult], None] | None = None) -> EvalReport:
    """Review every case in throwaway folders; the user's project and homes are never touched.

    A `copilot` reviewer runs with the user's own Copilot home (their login), and its session is
    forgotten there after each call, like every review's (omp.copilot_history): the user's
    history ends as it began."""
    plan = plan_reviewer(reviewer)
    backend = plan.backend
    folders = DemoFolders.create()
    try:
        try:
            entry = backends.lookup(backend)
            extra = copilot_reviewer_home() if entry.uses_copilot else {}
            extra.update(entry.throwaway_environment())  # the throwaway home has no reviewer.env
        except OmpError as exc:
            hint = (exc.hint or "").replace("omp demo without --reviewer", "omp eval --reviewer offline")
            raise OmpError(exc.message, hint or None) from exc
        with isolated_environment(folders, {**plan.settings, **extra, "OMP_MEMORY_MODE": "on"}):
            # The throwaway project lives under the temporary folder, never under $HOME.
            os.environ["OMP_MEMORY_REVIEWER"] = backend
            results = []
            for case in cases:
                result = _run_case(case, folders.base, folders.copilot_home, backend, model)
                results.append(result)
                if on_case is not None:
                    on_case(result)
    finally:
        if backends.lookup(backend).uses_copilot:
            hand_over_reviewer_sessions(folders)
        shutil.rmtree(folders.base, ignore_errors=True)
    return EvalReport(backend, model if backends.lookup(backend).runs_model else None, corpus, results)


# ---------------------------------------------------------------------------------------------
# the table


def _share(part: int, whole: int) -> str:
    return f"{part}/{whole} ({100 * part / whole:.0f}%)" if whole else "—"


def report_lines(report: EvalReport) -> list[str]:
    header = ("| category | cases | requests recalled | wrongly proposed | notes written, none expected "
              "| secrets / injections stopped | tokens in / out | time |")
    lines = [
        f"reviewer: {report.reviewer}" + (f", model {report.model}" if report.model else "")
        + f"; corpus: {', '.join(report.corpus)} ({len(report.results)} cases)",
        "",
        header,
        "|---|---|---|---|---|---|---|---|",
    ]
    for score in [*report.categories(), report.total()]:
        name = f"**{score.category}**" if score.category == "all" else score.category
        lines.append(
            f"| {name} | {score.cases} | {_share(score.recalled, score.expected)} | {score.wrongly_proposed} "
            f"| {score.notes_unexpected} | {_share(score.stopped, score.guarded)} | {score.tokens_in:,} / {score.tokens_out:,} "
            f"| {score.seconds:.1f} s |"
        )
    errors = [r for r in report.results if r.error]
    lines.append("")
    lines.append(f"explicit-request recall {100 * report.recall:.1f}%; rules proposed from pasted text, questions, "
                 f"one-off instructions and statements: {report.wrong_where_nothing_asked}; notes written without "
                 f"a human where none was expected: {report.total().notes_unexpected}")
    for result in errors[:10]:
        lines.append(f"error in {result.case.id}: {result.error}")
    misses = [r for r in report.results if r.missed or (r.unexpected and r.case.category in NOTHING_ASKED)
              or r.unexpected_notes or r.stopped is False]
    if misses:
        lines.append("")
        lines.append("cases to look at:")
        for result in misses[:30]:
            what = []
            if result.missed:
                what.append("missed " + "; ".join(repr(m) for m in result.missed))
            if result.unexpected and result.case.category in NOTHING_ASKED:
                what.append("proposed " + "; ".join(repr(u) for u in result.unexpected))
            if result.unexpected_notes:
                what.append("wrote notes " + "; ".join(repr(n) for n in result.unexpected_notes))
            if result.stopped is False:
                what.append("NOT stopped")
            lines.append(f"  {result.case.id} ({result.case.category}, {result.case.language}): {', '.join(what)}")
    return lines
