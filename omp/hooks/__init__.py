"""Copilot's sessionStart / sessionEnd hooks: the fast path (docs/trust.md#hooks-create-nothing-outside-a-git-project, docs/behaviour.md#copilot-integration, docs/performance.md#where-speed-matters).

    python -m omp.hooks session-start   <  {"sessionId", "cwd", "source", ...}
    python -m omp.hooks session-end     <  {"sessionId", "cwd", "reason", ...}

Copilot runs these around every session, so they must be quick and must never break one:
- stdout is always one JSON object (`{}` when there is nothing to say) and the exit status is
  always 0, whatever arrives on stdin; a problem is one line on stderr and in `G/logs/hooks.log`
  (entry.py, outcome.py);
- the review itself never runs here: sessionEnd detaches `omp memory-review` (omp.detach) and
  returns, so Copilot exits at once while the review goes on (end.py);
- a reviewer's own Copilot session (`OMP_REVIEWER` set, or `OMP_MEMORY_MODE=off`) gets
  nothing: no review, no context;
- sessionStart's nudge names what waits for the user and asks the model to pass it on, since
  the user never sees it; it injects the block's content in `memory-inject=hook` mode, and
  brings the instruction file to what the mode demands when it is out of step (start.py).

docs/performance.md#where-speed-matters allows sessionEnd 25 ms over a bare `python -c pass`; importing the library
(dataclasses, pathlib, fsio, the stores) costs several times that. So at module level these
modules import only the standard library's cheap parts and `omp.core`, where every rule they
share with the library lives once. The library runs only when something is unusual (a setting
only it can judge, a cache to render, an instruction file to sync) — imported inside the
function that needs it.

Hooks act only inside a git repository, and sessionEnd only for a session whose
`events.jsonl` is a regular file: a hook never creates anything anywhere else (docs/trust.md#hooks-create-nothing-outside-a-git-project).
"""

from omp.hooks.entry import main, run
from omp.hooks.end import session_end
from omp.hooks.start import session_start

__all__ = ["main", "run", "session_end", "session_start"]
