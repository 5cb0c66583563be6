"""`python -m omp.hooks session-start|session-end`."""

from omp.hooks.entry import main

raise SystemExit(main())
