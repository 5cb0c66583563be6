"""`python -m omp` is the same program as the `omp` command."""

from omp.cli import run

if __name__ == "__main__":
    run()
