"""omp: makes GitHub Copilot CLI remember.

Importing this package must stay cheap: the hook fast path (omp.hooks) imports it, so nothing
here may pull in click, tiktoken, psutil or filelock.
"""

__version__ = "0.1.0"
