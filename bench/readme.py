"""Each bench rewrites its own section of bench/README.md, between `<!-- NAME:start -->` and
`<!-- NAME:end -->`; the prose around the sections is kept."""

from __future__ import annotations

from pathlib import Path

README = Path(__file__).resolve().parent / "README.md"


def write_section(name: str, body: str) -> None:
    start, end = f"<!-- {name}:start -->", f"<!-- {name}:end -->"
    text = README.read_text(encoding="utf-8") if README.exists() else "# Benchmarks\n"
    block = f"{start}\n{body.rstrip(chr(10))}\n{end}"
    if start in text and end in text:
        text = text[: text.index(start)] + block + text[text.index(end) + len(end):]
    else:
        text = text.rstrip("\n") + "\n\n" + block + "\n"
    README.write_text(text, encoding="utf-8")
