"""`python -m omp` is the same program as the `omp` command."""

from omp.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
