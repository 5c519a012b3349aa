"""The CLI's entry point to the core: one Context per command, from the environment."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from shared.kit.context import Context
from shared.kit.settings import get_settings
from shared.wiring.bootstrap import prepare_database
from shared.wiring.runtime import close_context, open_context


@contextmanager
def cli_context(prepare: bool = True) -> Iterator[Context]:
    """A context for one command. On the embedded default its in-process jobs (the
    recompute and alerts a change causes) finish before the command exits.

    `prepare`: first bring the database to what the API serves from (schema, bundled
    data, scores of this model version), as the API does on start where
    `prepare_on_start` is set (the embedded default; deployments run the one-shot
    services instead): a command run on a fresh checkout, or after a model update, then
    answers instead of failing on a missing table or ranking stale scores. On an
    up-to-date database it only checks."""
    settings = get_settings()
    ctx = open_context(settings)
    try:
        if prepare and settings.prepare_on_start:
            prepare_database(ctx)
        yield ctx
    finally:
        close_context(ctx)
