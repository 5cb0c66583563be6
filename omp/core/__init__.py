"""The rules the hook fast path and the library share, each defined once (STYLE.md).

The sessionStart / sessionEnd hooks (omp.hooks) must start within a few milliseconds of a bare
`python -c pass` (docs/performance.md#where-speed-matters), so they cannot import the library (dataclasses, pathlib, fsio,
click...). Whatever both sides need lives here instead, and the library wraps it with its richer
API (ProjectPaths, errors that name the fix):

- layout:        the names of state files and folders, the homes, project-root discovery and
                 the session-id rule;
- files:         reading a regular file without blocking, the best-effort atomic write;
- settings:      the config layers' order, the trust check and the two settings a hook reads;
- pending:       the pending checklist's grammar, the skill-draft count, the retry-queue summary;
- context_cache: the fingerprint and the file of the hook's rendered memory context;
- instructions:  the managed block's markers and "does the instruction file need a sync?";
- memory_on:     when memory mode was turned on for a project;
- notice:        the once-per-project "omp is not reviewing this project" notice's rules and words;
- jsonlite:      JSON without importing `json` (which imports `re`: measured over the budget).

Standard library only, and only its cheap modules (`os`, `sys`, `stat`, `time`, the builtin
sha256); nothing from omp outside this package (tests/test_architecture.py checks both).
"""
