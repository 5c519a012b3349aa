"""Build input the product cannot use (a 422 naming the field, exit 2 in the CLI)."""

from __future__ import annotations

from shared.kit.errors import InputError


class BuildInputError(InputError):
    """A build that cannot be laid out, powered or timed as asked."""
