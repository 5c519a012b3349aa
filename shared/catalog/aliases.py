"""Resolve common spellings of a GPU ("GeForce RTX 3090", "RTX3090") to catalog ids."""

from __future__ import annotations

import re
from functools import lru_cache

from shared.catalog.specs import load_catalog
from shared.kit.errors import InputError

_NOISE = re.compile(r"\b(nvidia|geforce|amd|radeon|tesla|generation|instinct)\b")


def normalize(text: str) -> str:
    lowered = _NOISE.sub(" ", text.lower().replace("ada lovelace", "ada"))
    return re.sub(r"[^a-z0-9]", "", lowered)


# Spellings the listing-title matcher cannot split or does not read as a model: product
# names glued into one token by clouds and marketplaces, and model numbers without the
# suffix no other card has. Keys are `normalize`d.
EXTRA_ALIASES: dict[str, str] = {
    # RunPod and Vast name the RTX PRO 6000 Blackwell editions this way; Azure's NCv6 SKUs
    # carry "RTXPRO6000BSE" (Blackwell Server Edition).
    "rtxpro6000ws": "rtx-pro-6000-blackwell",
    "rtxpro6000bws": "rtx-pro-6000-blackwell",
    "rtxpro6000workstation": "rtx-pro-6000-blackwell",
    "rtxpro6000se": "rtx-pro-6000-blackwell-server",
    "rtxpro6000bse": "rtx-pro-6000-blackwell-server",
    "rtxpro6000server": "rtx-pro-6000-blackwell-server",
    "rtxpro6000maxq": "rtx-pro-6000-blackwell-max-q",
    "rtxpro6000bmaxq": "rtx-pro-6000-blackwell-max-q",
    # AMD never sold an MI325 or MI355 without the X.
    "mi325": "mi325x",
    "mi355": "mi355x",
}


@lru_cache(maxsize=1)
def _alias_table() -> dict[str, str]:
    table: dict[str, str] = {}
    for gpu in load_catalog().gpus:
        for spelling in (gpu.id, gpu.name):
            table.setdefault(normalize(spelling), gpu.id)
    for spelling, gpu_id in EXTRA_ALIASES.items():
        table.setdefault(spelling, gpu_id)
    return table


def exact_alias(text: str) -> str | None:
    """Catalog id for an id, a catalog name or a known alias, exactly (spacing, case and
    vendor words aside); never a guess from free text ("not a 4090" is no GPU)."""
    if text in load_catalog().by_id:
        return text
    return _alias_table().get(normalize(text))


def resolve_alias(text: str) -> str | None:
    """Catalog id for an id, a name or a common spelling; None if unknown or ambiguous."""
    exact = exact_alias(text)
    if exact is not None:
        return exact
    # The listing-title matcher knows sizes, form factors and sibling rules.
    from shared.matching.titles import resolve_gpu_name

    return resolve_gpu_name(text)


def catalog_id(field: str, text: str) -> str:
    """`resolve_alias`, or an InputError naming the field and the catalog ids (a 422 in
    the API, exit 2 in the CLI)."""
    gpu_id = resolve_alias(text)
    if gpu_id is None:
        raise InputError(field, f"unknown GPU {text!r}", load_catalog().ids)
    return gpu_id
