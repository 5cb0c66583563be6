"""`python -m omp.review` is the `omp` command. An earlier omp started its detached reviews as
`python -c "from omp.review.__main__ import run; run()" ARGS`; a start of that kind still pending
across an upgrade runs the command all the same."""

from omp.cli import run

if __name__ == "__main__":
    run()
