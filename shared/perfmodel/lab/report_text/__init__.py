"""The reports' prose, kept as Markdown beside the code that writes the tables.

A template names each computed figure or generated table as a `string.Template`
placeholder (`$name`, or `${name}` before a letter, digit or underscore); a literal dollar
sign is written `$$`. The code that writes a report passes one value per placeholder.
"""

from __future__ import annotations

from pathlib import Path
from string import Template

HERE = Path(__file__).parent


def placeholders(name: str) -> set[str]:
    """The placeholders of `name`.md (ValueError if one is malformed)."""
    template = Template(_read(name))
    if not template.is_valid():
        raise ValueError(f"{name}.md: a malformed placeholder (a literal $ is written $$)")
    return set(template.get_identifiers())


def report_text(name: str, **values: str | int) -> str:
    """The Markdown of `name`.md in this folder, without its trailing newline, with every
    placeholder replaced by its value. A placeholder without a value raises KeyError and
    a value without a placeholder raises TypeError, so a template and its caller cannot
    drift apart silently."""
    unused = set(values) - placeholders(name)
    if unused:
        raise TypeError(f"{name}.md has no placeholder for {', '.join(sorted(unused))}")
    try:
        return Template(_read(name)).substitute(values)
    except KeyError as missing:
        raise KeyError(f"{name}.md: no value for ${missing.args[0]}") from None


def _read(name: str) -> str:
    return (HERE / f"{name}.md").read_text().rstrip("\n")
