"""Resolve common spellings of a GPU ("GeForce RTX 3090", "RTX3090") to catalog ids."""

from __future__ import annotations

import re
from functools import lru_cache

from shared.catalog.specs import load_catalog

_NOISE = re.compile(r"\b(nvidia|geforce|amd|radeon|tesla|generation|instinct)\b")


def normalize(text: str) -> str:
    lowered = _NOISE.sub(" ", text.lower().replace("ada lovelace", "ada"))
    return re.sub(r"[^a-z0-9]", "", lowered)


@lru_cache(maxsize=1)
def _alias_table() -> dict[str, str]:
    table: dict[str, str] = {}
    for gpu in load_catalog().gpus:
        for spelling in (gpu.id, gpu.name):
            table.setdefault(normalize(spelling), gpu.id)
    return table


def resolve_alias(text: str) -> str | None:
    """Catalog id for an id, a name or a common spelling; None if unknown or ambiguous."""
    catalog = load_catalog()
    if text in catalog.by_id:
        return text
    exact = _alias_table().get(normalize(text))
    if exact is not None:
        return exact
    # The listing-title matcher knows sizes, form factors and sibling rules.
    from shared.matching.titles import resolve_gpu_name

    return resolve_gpu_name(text)
