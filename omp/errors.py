"""The one user-facing error type, and its exit codes.

Every fault a user can fix is raised as `OmpError` (or `UsageError`) with a message that says
what went wrong and a hint that names the fix. One handler (`omp.program.guarded`, used by the
`omp` command and the detached review) turns them into a message on stderr and an exit code;
anything else is a bug and gets a crash log.
"""

from __future__ import annotations

EXIT_OK = 0
EXIT_FAILURE = 1
EXIT_USAGE = 2


class OmpError(Exception):
    """A fault the user can act on. `hint` names the fix."""

    exit_code = EXIT_FAILURE

    def __init__(self, message: str, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def render(self) -> str:
        text = f"omp: error: {self.message}"
        if self.hint:
            text += f"\n  hint: {self.hint}"
        return text


class UsageError(OmpError):
    """Bad arguments or values: exit 2, nothing changed."""

    exit_code = EXIT_USAGE
