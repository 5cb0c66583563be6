"""The one user-facing error type, and its exit codes.

Every fault a user can fix is raised as `OmpError` (or `UsageError`) with a message that says
what went wrong and a hint that names the fix. One handler (`omp.program.guarded`, used by the
`omp` command and the detached review) turns them into a message on stderr and an exit code;
anything else is a bug: exit code 3 and a crash log.
"""

from __future__ import annotations

EXIT_OK = 0
EXIT_FAILURE = 1
EXIT_USAGE = 2
EXIT_BUG = 3  # omp's own fault, never the user's: a crash log says where (omp.program)


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


# What the system says when omp cannot write its own files: no permission, a read-only file
# system, a full disk or quota, a file size limit. Each names a fix a person can make.
_WRITE_FAULTS = {
    "EACCES": ("permission denied", "give yourself write permission on {folder} (e.g. chmod u+w {folder})"),
    "EPERM": ("permission denied", "give yourself write permission on {folder} (e.g. chmod u+w {folder})"),
    "EROFS": ("the file system is read-only", "run omp where {folder} is writable (or remount it read-write)"),
    "ENOSPC": ("the disk is full", "free some space on the disk that holds {folder}"),
    "EDQUOT": ("your disk quota is used up", "free some space (or raise your quota) where {folder} is"),
    "EFBIG": ("the file is larger than this system allows (ulimit -f)",
              "raise the file size limit (ulimit -f) or free some space where {folder} is"),
}


def storage_error(exc: OSError, path: str | None = None) -> OmpError | None:
    """`exc` as the fault a user fixes (exit 1, the folder and the fix named), when it is one
    of the write faults above; None for any other OSError (a bug, which gets a crash log)."""
    import errno  # only an error needs it
    import os

    name = errno.errorcode.get(exc.errno or 0, "")
    if name not in _WRITE_FAULTS:
        return None
    where = path or exc.filename
    what, fix = _WRITE_FAULTS[name]
    if where is None:
        return OmpError(f"omp cannot write its files: {what}", fix.format(folder="the folder omp writes in")
                        + ", then run the command again")
    folder = os.path.dirname(os.path.abspath(os.fsdecode(where)))
    return OmpError(f"cannot write {os.fsdecode(where)}: {what}",
                    fix.format(folder=folder) + ", then run the command again; nothing else was changed")
