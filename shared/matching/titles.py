"""Match marketplace listing titles to catalog GPUs.

`match_title` says which catalog card a listing sells and how many, or why the listing
is rejected; `resolve_gpu_name` maps a free-form GPU name (an API alias) to a catalog id.

Reason codes
------------
``matched``, or one rejection, checked in this order (the first that applies wins):

1. ``accessory`` when packaging is sold alone ("box only", "empty box") or a BIOS chip.
2. ``laptop``: a laptop/notebook, or a mobile GPU (Max-Q, "Laptop GPU", "1070M", MXM).
3. ``system``: a prebuilt PC, desktop, server, workstation or GPU bundled with CPU,
   RAM, SSD or motherboard. GPUs inside a system are not a lot. Where a card came
   from ("pulled from a working PC") and what it is for ("desktop graphics card") are
   not systems.
4. ``accessory``: backplate, water block, replacement fan(s), shroud, bracket, riser,
   NVLink/SLI bridge, cable, adapter, heatsink or cooler sold alone, or "no GPU".
   "With"/"+"/"installed"/"included" next to the part means it comes with a card.
5. ``for_parts``: for parts, not working, broken, as-is, faulty, defective, untested,
   artifacting; also a lot that contains a broken card.
6. ``no_gpu``: no GPU model named.
7. ``not_in_catalog``: a GPU that is not a catalog card, notably the near relatives
   RX 7900 XT (vs XTX), RTX 4090 D, RTX 3060 8GB, Tesla V100S, RTX A2000 (vs A2),
   Quadro GV100 (vs V100), TITAN X (vs Xp), MI250 (vs MI250X), GTX 1050/1050 Ti,
   GTX 1650 and 1660 (only the Super/Ti cards are in the catalog).
8. ``ambiguous``: two different models named, several sizes offered ("16GB / 32GB -
   choose"), or a name that fits more than one catalog card under the rules below.

Rules
-----
- A working card (new, used, open box, refurbished, ex-mining) is accepted. Negations
  are honoured: "NOT for parts", "non-Ti" (an "RTX 3080 non-Ti" is the 3080), "no box".
  A card sold with its box, bracket, a fitted cooler or water block ("with EK water block
  installed"), or "pulled from a working PC" and sold alone is accepted.
- Siblings are never confused: 3080 / 3080 Ti / 3080 12GB; 4070 / 4070 Super / 4070 Ti /
  4070 Ti Super; 4060 Ti 8/16 GB; RTX 6000 Ada / RTX A6000 / Quadro RTX 6000; A100
  40/80 GB PCIe/SXM4; V100 16/32 GB PCIe/SXM2; H100 PCIe/SXM5/NVL; L4/L40/L40S.
- No memory size: RTX 3080 is the 10 GB card, RTX 3060 the 12 GB, RTX 4060 Ti the 8 GB.
  A card whose only catalog variant is not the common one (RTX 5060 Ti, Tesla P100) needs
  a stated size, else ``ambiguous``. A size no catalog variant has (RTX 3060 8GB, RTX 2060
  12GB, modded 2080 Ti 22GB) is ``not_in_catalog``.
- V100: PCIe or SXM2 as stated; a size without a form factor means PCIe; no size is
  ambiguous. A100/H100/H200 need a form factor and, where sizes differ, a size; an NVL
  token means the NVL card. nvidia-smi names (``A100-SXM4-80GB``) map directly.
- "RTX 6000" alone is ambiguous; "Quadro RTX 6000", "RTX A6000" (or "A6000") and
  "RTX 6000 Ada" are three cards; a self-contradicting name ("RTX A6000 Ada") is
  ambiguous. The same holds for RTX 4000/5000; a bare "RTX 8000" is the Quadro.
- Spellings: "2080S"/"SUPER", "TiS"/"Ti Super", "12G"/"24G", "RTX3090", "3090FE",
  "GeForce", brand prefixes and model names (TUF, Strix, Ventus, Gaming OC, FE).
- Quantity counts cards sold: "Lot of 4", "4x RTX 3090", "x2", "Pair", "Qty 3",
  "3 pcs"/"3 stk". Cooler and product names ("Dual", "Twin X2", "Ventus 3X"), ports
  ("4x DP"), "PCIe 4.0 x16" and the K80's "2x12GB" are not quantities.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from shared.catalog.specs import load_catalog
from shared.matching import context
from shared.matching.families import (
    AMBIGUOUS,
    FAMILIES,
    MATCHED,
    NOT_IN_CATALOG,
    Outcome,
    check_families,
    resolve,
)
from shared.matching.mentions import Mention, find_mentions
from shared.matching.normalize import normalize

NO_GPU = "no_gpu"


@dataclass(frozen=True)
class TitleMatch:
    title: str
    gpu_id: str | None
    quantity: int | None
    reason: str


def match_title(title: str) -> TitleMatch:
    """Catalog card and lot size of a listing title, or the reason it is rejected."""
    check_families()
    text = normalize(title)
    mentions = find_mentions(text)
    reason = context.rejection(text, names_gpu=bool(mentions))
    if reason is None:
        outcome = _identify(mentions, text)
        if outcome.reason == MATCHED:
            return TitleMatch(title, outcome.gpu_id, context.quantity(text), MATCHED)
        reason = outcome.reason
    return TitleMatch(title, None, None, reason)


def resolve_gpu_name(name: str) -> str | None:
    """Catalog id for a GPU name, id or alias; None when unknown or ambiguous."""
    check_families()
    known = _known_names().get(name.strip().lower())
    if known is not None:
        return known
    text = normalize(name)
    outcome = _identify(find_mentions(text), text)
    return outcome.gpu_id if outcome.reason == MATCHED else None


@lru_cache(maxsize=1)
def _known_names() -> dict[str, str]:
    names: dict[str, str] = {}
    for gpu in load_catalog().gpus:
        names[gpu.id] = gpu.id
        names[gpu.name.lower()] = gpu.id
    return names


def _identify(mentions: list[Mention], text: str) -> Outcome:
    if not mentions:
        return Outcome(NO_GPU)
    sizes, forms = context.sizes(text), context.forms(text)
    outcomes = {_outcome(mention, sizes, forms) for mention in mentions}
    if len(outcomes) == 1:
        return outcomes.pop()
    if all(outcome.reason == NOT_IN_CATALOG for outcome in outcomes):
        return Outcome(NOT_IN_CATALOG)
    return Outcome(AMBIGUOUS)


def _outcome(mention: Mention, sizes: frozenset[int], forms: frozenset[str]) -> Outcome:
    if mention.family is None:
        return Outcome(mention.fixed or NOT_IN_CATALOG)
    return resolve(FAMILIES[mention.family], sizes, forms)
