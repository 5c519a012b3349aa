"""Resolve common spellings of a GPU ("GeForce RTX 3090", "RTX3090") to catalog ids."""

from __future__ import annotations

import difflib
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
    # Every H100 SXM is an SXM5 and every A100 SXM an SXM4: clients drop the generation.
    "h100sxm": "h100-sxm5",
    "a10040gbsxm": "a100-40gb-sxm4",
    "a10080gbsxm": "a100-80gb-sxm4",
}

# GeForce, RTX workstation and Radeon model numbers without their brand ("4090",
# "3090 Ti", "A6000", "7900 XTX"): what clients most often send. Only numbers that name
# one catalog card become aliases.
_BRANDED_MODEL = re.compile(r"^(?:rtx|gtx|rx)(a?\d{4}.*)$")
# "Did you mean" offers at most this many ids.
SUGGESTIONS = 5
# Shorter text ("a", "10") is part of too many spellings to suggest from.
MIN_PART = 3


@lru_cache(maxsize=1)
def _alias_table() -> dict[str, str]:
    table: dict[str, str] = {}
    for gpu in load_catalog().gpus:
        for spelling in (gpu.id, gpu.name):
            table.setdefault(normalize(spelling), gpu.id)
    for spelling, gpu_id in EXTRA_ALIASES.items():
        table.setdefault(spelling, gpu_id)
    for bare, gpu_id in _bare_models().items():
        table.setdefault(bare, gpu_id)
    return table


def _bare_models() -> dict[str, str]:
    owners: dict[str, set[str]] = {}
    for gpu in load_catalog().gpus:
        found = _BRANDED_MODEL.match(normalize(gpu.name))
        if found:
            owners.setdefault(found.group(1), set()).add(gpu.id)
    return {bare: ids.pop() for bare, ids in owners.items() if len(ids) == 1}


def exact_alias(text: str) -> str | None:
    """Catalog id for an id, a catalog name or a known alias, exactly (spacing, case and
    vendor words aside); never a guess from free text ("not a 4090" is no GPU)."""
    if text in load_catalog().by_id:
        return text
    return _alias_table().get(normalize(text))


@lru_cache(maxsize=1)
def accepted_spellings() -> tuple[str, ...]:
    """Every spelling `exact_alias` resolves, one of each: the ids, the catalog names, then
    the aliases (as `normalize` writes them). What the OpenAPI document enumerates for a
    GPU field; `exact_alias` also takes these with other spacing, case and vendor words."""
    gpus = load_catalog().gpus
    named = [gpu.id for gpu in gpus] + [gpu.name for gpu in gpus]
    aliases = sorted({*EXTRA_ALIASES, *_bare_models()} - {normalize(s) for s in named})
    return tuple(s for s in dict.fromkeys(named + aliases) if exact_alias(s) is not None)


def resolve_alias(text: str) -> str | None:
    """Catalog id for an id, a name or a common spelling, read as free text by the title
    matcher; None if unknown or ambiguous. For data we import (benchmark tables) and
    suggestions only: what users send goes through `exact_alias`."""
    exact = exact_alias(text)
    if exact is not None:
        return exact
    # The listing-title matcher knows sizes, form factors and sibling rules.
    from shared.matching.titles import resolve_gpu_name

    return resolve_gpu_name(text)


def closest_ids(text: str, limit: int = SUGGESTIONS) -> list[str]:
    """Catalog ids near `text`, best first: what a "did you mean" offers. The free-text
    matcher may suggest here, never decide (that is `exact_alias`)."""
    table, key = _alias_table(), normalize(text)
    found = [resolve_alias(text)]
    # A model without its variant ("A100", "H100") is in every variant's spelling.
    if len(key) >= MIN_PART:
        found += [table[s] for s in sorted((s for s in table if key in s), key=len)]
    found += [table[s] for s in difflib.get_close_matches(key, table, n=3 * limit)]
    return [gpu_id for gpu_id in dict.fromkeys(found) if gpu_id is not None][:limit]


class UnknownGpu(InputError):
    """A name that is no id, catalog name or known alias. `close`: the closest ids (maybe
    none); `valid`: those, or every id when none is close."""

    def __init__(self, field: str, text: str) -> None:
        self.close = closest_ids(text)
        guess = f"did you mean {', '.join(self.close)}? " if self.close else ""
        message = f"unknown GPU {text!r}; {guess}GET /gpus lists the ids"
        super().__init__(field, message, self.close or load_catalog().ids)


def catalog_id(field: str, text: str) -> str:
    """`exact_alias`, or UnknownGpu naming the field (a 422 in the API, exit 2 in the CLI)."""
    gpu_id = exact_alias(text)
    if gpu_id is None:
        raise UnknownGpu(field, text)
    return gpu_id
