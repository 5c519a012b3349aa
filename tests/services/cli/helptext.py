"""Reading typer's rich help panels in tests."""

from __future__ import annotations


def option_help(output: str) -> dict[str, str]:
    """Option -> its row of the help panel, wrapped lines joined, borders dropped."""
    rows: dict[str, str] = {}
    option = ""
    for line in output.splitlines():
        words = line.replace("│", " ").split()
        named = [word for word in words if word.startswith("--")]
        if named:
            option = named[0]
        if option:
            rows[option] = " ".join([rows.get(option, ""), *words]).strip()
    return rows
