"""The CLI's entry point to the core: one Context per command, from the environment."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from shared.kit.context import Context
from shared.kit.settings import get_settings
from shared.wiring.runtime import close_context, open_context


@contextmanager
def cli_context() -> Iterator[Context]:
    """A context for one command. On the embedded default its in-process jobs (the
    recompute and alerts a change causes) finish before the command exits."""
    ctx = open_context(get_settings())
    try:
        yield ctx
    finally:
        close_context(ctx)
