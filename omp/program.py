"""What every omp program does at its edges: errors become exit codes, a crash a log, the exit fast.

The `omp` command (`omp.cli`, click, which the detached review runs too):

- turns an `OmpError` into its message and hint on stderr and its exit code (1, or 2 for usage
  errors); anything unexpected is a bug: exit code 3, a one-line message, and the traceback in
  a crash log under `G/logs/` with omp's version, Python and the platform, redacted (docs/secrets-and-poisoning.md)
  (`guarded`);
- prints `--json` output in one form (`json_text`).
"""

from __future__ import annotations

import json
import os
import platform
import shlex
import sys
import traceback
from pathlib import Path
from typing import Any, Callable

from omp import __version__
from omp.errors import EXIT_BUG, EXIT_FAILURE, OmpError, storage_error

# A message for stderr: the program's own writer (click.echo for the command, print for a
# caller without click), so its output keeps its order with what else the program wrote.
ErrorWriter = Callable[[str], None]


def write_line(text: str, err: bool = False) -> None:
    """A line of output without click. Flushed at once, as click.echo
    flushes: stdout and stderr share one run log, and its lines stay in the order written."""
    print(text, flush=True, file=sys.stderr if err else sys.stdout)


def write_stderr(text: str) -> None:
    write_line(text, True)


def json_text(value: Any) -> str:
    """What `--json` prints: indented, and the user's words as they are (not `\\u` escapes)."""
    return json.dumps(value, indent=2, ensure_ascii=False)


def guarded(body: Callable[[], int], write_error: ErrorWriter = write_stderr) -> int:
    """`body()`'s exit code; the errors it raises as the module docstring says."""
    try:
        return body()
    except OmpError as exc:
        write_error(exc.render())
        return exc.exit_code
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return EXIT_FAILURE
    except OSError as exc:
        fault = storage_error(exc)  # a read-only `.omp`, a full disk: the user's to fix, not a bug
        if fault is None:
            return _crashed(exc, write_error)
        write_error(fault.render())
        return fault.exit_code
    except Exception as exc:  # a bug: keep the traceback for the report, show a short line
        return _crashed(exc, write_error)


def _crashed(exc: BaseException, write_error: ErrorWriter) -> int:
    log = crash_log(exc)
    where = f"; details in {log}" if log else ""
    write_error(f"omp: internal error: {type(exc).__name__}: {exc}{where}")
    return EXIT_BUG


def crash_report(exc: BaseException) -> str:
    """The crash log's text, secrets redacted (docs/secrets-and-poisoning.md).

    The command line is joined as a shell would show it before redaction, so `--password X`
    or `-p "PGPASSWORD=…"` are seen as what they are; the traceback (whose messages and source
    lines can quote a secret) is redacted too.
    """
    text = (
        f"omp {__version__}\npython: {platform.python_version()} ({sys.executable})\n"
        f"platform: {platform.platform()}\ncommand: {shlex.join(sys.argv)}\n\n"
        + "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    )
    try:
        from omp.safety.secrets import redact  # only a crash report: the secret rules cost 19 ms to import

        return redact(text)[0]
    except Exception:  # a broken detector must not leak: keep only what holds no user text
        return f"omp {__version__}\n(crash report withheld: redaction failed)\n{type(exc).__name__}\n"


def crash_log(exc: BaseException) -> Path | None:
    # Only a crash is logged: what the log needs is imported when there is one.
    import datetime

    from omp.paths import global_home

    try:
        folder = global_home() / "logs"
        folder.mkdir(parents=True, exist_ok=True)
        stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
        path = folder / f"crash-{stamp}-{os.getpid()}.log"
        path.write_text(crash_report(exc), encoding="utf-8")
        return path
    except OSError:
        return None
