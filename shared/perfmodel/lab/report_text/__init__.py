"""The reports' prose, kept as Markdown beside the code that writes the tables."""

from __future__ import annotations

from pathlib import Path

HERE = Path(__file__).parent


def report_text(name: str) -> str:
    """The Markdown of `name`.md in this folder, without its trailing newline."""
    return (HERE / f"{name}.md").read_text().rstrip("\n")
