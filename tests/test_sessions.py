"""Finding and stream-reading Copilot sessions (docs/trust.md#session-discovery-never-blocks, docs/behaviour.md#sessions-and-the-packet)."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from helpers import run_omp
from sessions_support import (
    FIXTURE,
    FIXTURE_ID,
    assistant,
    conversation,
    event,
    hook,
    lines,
    session_dir,
    session_start,
    tool_request,
    tool_result,
    user,
    write_session,
)

from omp.errors import OmpError, UsageError
from omp.paths import ProjectPaths
from omp.reviewer_folder import reviewer_folder
from omp.sessions.discovery import find_session, list_project_sessions
from omp.sessions.events import SessionReader


def read_all(path: Path, cursor: int = 0) -> tuple[list, SessionReader]:
    reader = SessionReader(path, cursor)
    return list(reader.iter_messages()), reader


# --------------------------------------------------------------------------------------------
# Reading


def test_real_fixture_session_is_parsed_into_its_conversation() -> None:
    messages, reader = read_all(FIXTURE)
    assert [(m.origin, m.seq) for m in messages] == [("user", 0), ("assistant", 1), ("tool", 2), ("assistant", 3)]
    user_msg, request, output, reply = messages
    assert user_msg.text == "please USE_TOOL now"  # as typed, not transformedContent
    assert request.text == "[tool request] bash: echo test | echo hello-from-tool"
    assert output.text.startswith("(tool output: bash;")
    assert "hello-from-tool" in output.text
    assert reply.text == "MOCK REPLY: hello from the mock model."
    everything = "\n".join(m.text for m in messages)
    assert "system prompt" not in everything  # system.message skipped
    assert "CTX-MARKER" not in everything  # hook output and injected context skipped
    assert "current_datetime" not in everything
    assert reader.bad_lines == 0
    assert reader.skipped_events == 24
    assert reader.end_offset == FIXTURE.stat().st_size
    assert not reader.partial_tail


def test_tool_output_is_a_marked_head_and_tail_excerpt(tmp_path: Path) -> None:
    long_output = "\n".join(f"line {i:05d} of the test log" for i in range(5000))
    path = tmp_path / "events.jsonl"
    path.write_text(lines([
        assistant("Running the tests.", [tool_request("c1", command="pytest -q", description="run tests",
                                                      intention="run the tests")]),
        tool_result("c1", long_output, success=False),
        assistant("", [tool_request("c2", name="view", command="", description="", intention="read config")]),
        tool_result("c2", "", detailed="DETAILED-ONLY output"),
    ]))
    messages, _ = read_all(path)
    assert [m.origin for m in messages] == ["assistant", "tool", "assistant", "tool"]
    assert messages[0].text == "Running the tests.\n[tool request] bash: run the tests | run tests | pytest -q"
    excerpt = messages[1].text
    # Read by its ends (Copilot's layout), the output's length is an estimate, and says so; the
    # packet, which decodes the line whole, gives the exact count (tests/test_packet.py).
    header = re.match(r"\(tool output: bash, failed; about ([\d,]+) chars\)\n", excerpt)
    assert header, excerpt[:80]
    assert abs(int(header.group(1).replace(",", "")) - len(long_output)) < len(long_output) / 100
    assert "line 00000" in excerpt and "line 04999" in excerpt  # head and tail
    assert "line 02500" not in excerpt
    assert "characters omitted" in excerpt
    assert len(excerpt) < 2000
    assert messages[2].text == "[tool request] view: read config"
    assert "DETAILED-ONLY output" in messages[3].text  # detailedContent when content is empty


def test_generic_role_content_lines_are_accepted(tmp_path: Path) -> None:
    path = tmp_path / "events.jsonl"
    path.write_text(lines([
        {"role": "system", "content": "SYSTEM TEXT"},
        {"role": "user", "content": "generic user words"},
        {"role": "assistant", "content": [{"type": "text", "text": "generic assistant words"}]},
        {"role": "tool", "name": "grep", "content": "generic tool words"},
    ]))
    messages, reader = read_all(path)
    assert [(m.origin, m.text.splitlines()[-1]) for m in messages] == [
        ("user", "generic user words"),
        ("assistant", "generic assistant words"),
        ("tool", "generic tool words"),
    ]
    assert messages[2].text.startswith("(tool output: grep;")
    assert reader.skipped_events == 1  # the system line


def test_garbage_and_partial_lines_are_counted_not_fatal(tmp_path: Path) -> None:
    path = tmp_path / "events.jsonl"
    good = lines([user("first"), assistant("second")])
    path.write_text(
        "this is not json\n"
        + good
        + '{"type":"user.message","data":{"content":"torn\n'
        + "\n"
        + "[1, 2, 3]\n"
        + lines([user("third")])
        + '{"type":"user.message","data":{"content":"still being wr',  # no newline: in progress
        encoding="utf-8",
    )
    messages, reader = read_all(path)
    assert [m.text for m in messages] == ["first", "second", "third"]
    assert reader.bad_lines == 2  # "this is not json" and the torn line
    assert reader.partial_tail
    assert reader.end_offset == path.stat().st_size - len('{"type":"user.message","data":{"content":"still being wr')

    # The writer finishes the line: a read from the cursor picks it up, and only it.
    with path.open("a", encoding="utf-8") as handle:
        handle.write('itten"}}\n')
    resumed, again = read_all(path, reader.end_offset)
    assert [m.text for m in resumed] == ["still being written"]
    assert again.end_offset == path.stat().st_size and not again.partial_tail


def test_reading_from_a_cursor_returns_only_the_new_turns(tmp_path: Path) -> None:
    path = tmp_path / "events.jsonl"
    path.write_text(lines(conversation("/p", ["old one", "old two"])))
    first, reader = read_all(path)
    assert [m.text for m in first if m.origin == "user"] == ["old one", "old two"]
    cursor = reader.end_offset

    with path.open("a", encoding="utf-8") as handle:  # `copilot --resume` appends to the same file
        handle.write(lines([event("session.resume", {"resumeTime": "x"}), *hook(), user("new one"), assistant("new reply")]))
    resumed, reader2 = read_all(path, cursor)
    assert [(m.origin, m.text) for m in resumed] == [("user", "new one"), ("assistant", "new reply")]
    assert reader2.end_offset == path.stat().st_size

    nothing, reader3 = read_all(path, reader2.end_offset)
    assert nothing == [] and reader3.end_offset == reader2.end_offset


def test_a_huge_single_message_is_read_whole(tmp_path: Path) -> None:
    big = "x" * 600_000 + " END-OF-BIG"
    path = tmp_path / "events.jsonl"
    path.write_text(lines([user("small"), user(big), user("after")]))
    messages, _ = read_all(path)
    assert [len(m.text) for m in messages] == [5, len(big), 5]


# --------------------------------------------------------------------------------------------
# Finding


@pytest.fixture
def copilot(isolated_home: Path) -> Path:
    return Path(os.environ["COPILOT_HOME"])


def test_find_by_full_id_and_unique_prefix(project: Path, copilot: Path) -> None:
    write_session(copilot, "abcdef01-1111", conversation(str(project), ["hi"]))
    write_session(copilot, "abcdef02-2222", conversation(str(project), ["hi"]))
    paths = ProjectPaths(project)
    assert find_session("abcdef01-1111", paths).id == "abcdef01-1111"
    assert find_session("abcdef01", paths).id == "abcdef01-1111"
    with pytest.raises(OmpError) as ambiguous:
        find_session("abcdef0", paths)
    assert "ambiguous" in ambiguous.value.message
    assert "abcdef01-1111" in ambiguous.value.message and "abcdef02-2222" in ambiguous.value.message
    with pytest.raises(OmpError) as short:
        find_session("abcdef", paths)  # 6 characters: not a prefix
    assert "at least 7" in (short.value.hint or "")
    with pytest.raises(OmpError):
        find_session("0000000-none", paths)


def test_session_without_events_file_is_a_clear_error(project: Path, copilot: Path) -> None:
    session_dir(copilot, "failed-run-1").mkdir(parents=True)
    with pytest.raises(OmpError) as failed:
        find_session("failed-run-1", ProjectPaths(project))
    assert "no events.jsonl" in failed.value.message


def test_latest_is_this_projects_newest_session(project: Path, copilot: Path, tmp_path: Path) -> None:
    other = tmp_path / "other"
    sibling = tmp_path / (project.name + "2")  # shares a prefix with the project's path
    write_session(copilot, "mine-old", conversation(str(project), ["old"]), mtime=1_000)
    write_session(copilot, "mine-new", conversation(str(project / "src"), ["new"]), mtime=2_000)
    write_session(copilot, "others-newer", conversation(str(other), ["elsewhere"]), mtime=3_000)
    write_session(copilot, "sibling-newer", conversation(str(sibling), ["sibling"]), mtime=3_500)
    # omp's own reviewer ran in a folder omp made and marked: never this project's session, even
    # as the newest of all (a project folder merely *named* like one: tests/test_reviewer_folder.py).
    with reviewer_folder() as workdir:
        write_session(copilot, "reviewer-newest", conversation(workdir, ["review"]), mtime=4_000)
        paths = ProjectPaths(project)
        assert find_session("latest", paths).id == "mine-new"
        reviewer = find_session("reviewer-newest", paths)  # by id it is found, and flagged
        assert reviewer.is_reviewer
    # Copilot's lock folder, and a run that failed before its first turn.
    locks = session_dir(copilot, ".session-operation-locks")
    locks.mkdir(parents=True)
    (locks / "events.jsonl").write_text(lines([session_start(str(project))]))
    os.utime(locks / "events.jsonl", (5_000, 5_000))
    session_dir(copilot, "no-events").mkdir()

    paths = ProjectPaths(project)
    assert find_session("latest", paths).id == "mine-new"
    assert [s.id for s in list_project_sessions(paths)] == ["mine-new", "mine-old"]


def test_latest_uses_git_root_and_workspace_yaml(project: Path, copilot: Path, tmp_path: Path) -> None:
    write_session(copilot, "by-git-root", [session_start(str(tmp_path / "elsewhere"), git_root=str(project)), user("x")], mtime=1_000)
    folder = session_dir(copilot, "by-workspace")
    write_session(copilot, "by-workspace", [user("no session.start line")], mtime=500)
    (folder / "workspace.yaml").write_text(f"id: by-workspace\ncwd: {project}\ngit_root: {project}\n")
    paths = ProjectPaths(project)
    assert [s.id for s in list_project_sessions(paths)] == ["by-git-root", "by-workspace"]


def test_latest_reads_only_the_first_lines(project: Path, copilot: Path) -> None:
    """Sessions are judged by their session.start line, never read whole: an 8 GB (sparse)
    events file is chosen at once."""
    path = write_session(copilot, "huge", [session_start(str(project))])
    with path.open("r+b") as handle:
        handle.truncate(8 * 1024**3)
    assert find_session("latest", ProjectPaths(project)).id == "huge"


def test_no_session_of_this_project_is_a_clear_error(project: Path, copilot: Path, tmp_path: Path) -> None:
    write_session(copilot, "elsewhere", conversation(str(tmp_path / "other"), ["x"]))
    with pytest.raises(OmpError) as none:
        find_session("latest", ProjectPaths(project))
    assert "no Copilot session of" in none.value.message


@pytest.mark.parametrize("bad", ["../x", "a/b", "..", "x/../../etc", "-rf", ".hidden", "a b", "x" * 129])
def test_unsafe_session_ids_are_refused_before_any_path_is_built(bad: str, project: Path, copilot: Path) -> None:
    # A real session sits where `session-state/../x` would lead: it must not be reached.
    write_session(copilot.parent, "x", conversation(str(project), ["escaped"]))
    with pytest.raises(UsageError) as refused:
        find_session(bad, ProjectPaths(project))
    assert "invalid session id" in refused.value.message


@pytest.mark.parametrize("bad", ["../x", "a/b", ".."])
def test_cli_refuses_unsafe_ids_with_exit_2(bad: str, project: Path, copilot: Path) -> None:
    (copilot / "x").mkdir(parents=True)
    (copilot / "x" / "events.jsonl").write_text(lines(conversation(str(project), ["escaped"])))
    result = run_omp(["memory-review", "--session", bad, "--dry-run"], cwd=project, env={"OMP_TOKENIZER": "estimate"})
    assert result.returncode == 2
    assert "invalid session id" in result.stderr
    assert "escaped" not in result.stdout


def test_fixture_found_as_latest_through_the_cli(project: Path, copilot: Path) -> None:
    text = FIXTURE.read_text(encoding="utf-8").replace("/home/dev/proj", str(project))
    write_session(copilot, FIXTURE_ID, text)
    result = run_omp(["memory-review", "--dry-run", "--json"], cwd=project / ".git" / "..", env={"OMP_TOKENIZER": "estimate"})
    assert result.returncode == 0, result.stderr
    data = result.json()
    assert data["session"] == FIXTURE_ID
    assert data["packet"]["kept"] == {"user": 1, "assistant": 2, "tool": 1}
