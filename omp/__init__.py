"""omp: makes GitHub Copilot CLI remember.

Importing this package must stay cheap: the hook fast path (omp.hooks) imports it, so nothing
here may pull in click, tiktoken, psutil or filelock.

`__version__` is omp's only version: pyproject.toml reads it (`dynamic = ["version"]`), and
`omp install` writes it into the plugin manifest it registers. The committed plugin manifests
carry none (Copilot CLI does not require one).
"""

__version__ = "0.1.0"
