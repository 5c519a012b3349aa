"""Match marketplace listing titles to catalog GPUs.

`match_title` says which catalog card a listing sells and how many, or why the listing
is rejected; `resolve_gpu_name` maps a free-form GPU name (an API alias) to a catalog id.

Reason codes
------------
``matched``, or one rejection, checked in this order (the first that applies wins):

1. ``accessory`` when packaging is sold alone ("box only", "empty box"), a BIOS chip, a
   photo of a card ("photo only"), or an eGPU enclosure or dock that names a GPU (with
   a card or a mobile chip inside; an empty one naming no GPU is ``no_gpu``).
2. ``laptop``: a laptop/notebook, or a mobile GPU (Max-Q, "Laptop GPU", "1070M", MXM).
3. ``system``: a prebuilt PC, desktop, server, workstation or GPU bundled with CPU,
   RAM, SSD or motherboard (named as such, "mobo", or by its chipset: "X670E", "B650M").
   GPUs inside a system are not a lot. Where a card came from ("pulled from a working
   PC", "pulled from HP Omen 45L", "Dell Precision pull - card only"), what it is for
   ("desktop graphics card") and a trailing "Server" keyword after "Graphics Card" are
   not systems; "card only" means no computer is sold. HGX/DGX boards, Grace Blackwell
   racks and trays ("GB200 NVL72", "compute tray", "GB200 NVL4") are systems too; an
   edition name ("RTX PRO 6000 Blackwell Server Edition", "Max-Q Workstation") is not.
4. ``accessory``: backplate, water block, replacement fan(s), shroud, riser, SLI/NVLink
   bridge, cable, adapter, heatsink or cooler sold alone, a cooler shell without the
   board ("NO PCB"), "no GPU"; merchandise (keychain, poster, sticker, t-shirt, mug,
   mouse pad) and game or promo codes. "With"/"+"/"installed"/"included"/"missing" next
   to the part means it comes with (or without) a card. Phrases that sell the part
   ("bracket for", "fan kit", "support bracket", "thermal pads for") are accessories
   even after a cooler word ("Blower Fan Kit"); a bare "bracket" is the card's own and
   bare "NVLink" is the SXM interconnect, neither is an accessory.
5. ``for_parts``: for parts, "PARTS" opening a title, not working, stopped working,
   broken, as-is, faulty, defective, untested, artifacting, no display/post, "only
   DisplayPort works", fans not spinning, code 43, board/memory/power issues, ECC
   errors, overheating, scrap; also a lot that contains a broken card.
6. ``no_gpu``: no GPU model named.
7. ``not_in_catalog``: a GPU that is not a catalog card, notably the near relatives
   RX 7900 XT (vs XTX), RTX 4090 D, RTX 3060 8GB, Tesla V100S, V100 SXM3, P100 SXM2,
   RTX A2000 (vs A2), Quadro GV100 (vs V100), TITAN X (vs Xp), MI250 (vs MI250X),
   GTX 1050/1050 Ti, GTX 1650 and 1660 (only the Super/Ti cards are in the catalog).
8. ``ambiguous``: two different models named, several sizes offered ("16GB / 32GB -
   choose") or stated ("12GB ... 16GB"), or a name that fits more than one catalog card
   under the rules below.

Rules
-----
- A working card (new, used, open box, refurbished, ex-mining, re-pasted, "new thermal
  pads") is accepted. Negations are honoured: "NOT for parts", "non-Ti" (an "RTX 3080
  non-Ti" is the 3080), "no box", "no issues", "NO BRACKET", "w/o heatsink", and a
  model right after "not" ("RTX 3080 Ti (not 3080 12GB)") is not named. A card sold
  with its box, bracket, a fitted cooler or water block ("with EK water block
  installed"), a game code, or pulled from a computer and sold alone is accepted.
- Siblings are never confused: 3080 / 3080 Ti / 3080 12GB; 4070 / 4070 Super / 4070 Ti /
  4070 Ti Super; 4060 Ti 8/16 GB; RTX 6000 Ada / RTX A6000 / Quadro RTX 6000; A100
  40/80 GB PCIe/SXM4; V100 16/32 GB PCIe/SXM2; H100 PCIe/SXM5/NVL; L4/L40/L40S. A model
  repeated without its suffix ("RX 7900 XTX ... Radeon RX 7900", an 80-character eBay
  title cut after "RTX 5070") is the same card, unless "/", "or", "vs", "and" or "+"
  offers a choice.
- No memory size: RTX 3080 is the 10 GB card, RTX 3060 the 12 GB, RTX 4060 Ti the 8 GB.
  A card whose only catalog variant is not the common one (RTX 5060 Ti, Tesla P100) needs
  a stated size, else ``ambiguous``. A size no catalog variant has (RTX 3060 8GB, RTX 2060
  12GB, modded 2080 Ti 22GB) is ``not_in_catalog``.
- V100: PCIe or SXM2 as stated; a size without a form factor means PCIe; no size is
  ambiguous. A100/H100/H200 need a form factor and, where sizes differ, a size; an NVL
  token means the NVL card. nvidia-smi names (``A100-SXM4-80GB``) map directly. NVIDIA
  board numbers state the form ("900-21001-..." is the PCIe A100, "699-2G503-..." the
  V100 SXM2); a wattage or an OEM spare number does not. An SXM module "converted" to or
  sold on a PCIe adapter is the SXM card; PCIe and SXM both stated otherwise is ambiguous.
- RTX PRO 6000 Blackwell: "Server Edition" (or "Server" right after the model name) is
  the Server Edition, "Max-Q" the 300 W Max-Q card, otherwise the 600 W Workstation
  Edition, also when no edition is named; two editions named is ambiguous; the RTX PRO
  6000D is ``not_in_catalog``.
- A GB200 or GB300 is a superchip with two GPUs: the catalog cards are per GPU, so one
  superchip is a quantity of 2. B300 is the HGX (SXM) card; "288GB" is its 270 GB.
- "RTX 6000" alone is ambiguous; "Quadro RTX 6000", "RTX A6000" (or "A6000") and
  "RTX 6000 Ada" are three cards; a self-contradicting name ("RTX A6000 Ada") is
  ambiguous. The same holds for RTX 4000/5000; a bare "RTX 8000" is the Quadro.
- Spellings: "2080S"/"SUPER", "TiS"/"Ti Super", "12G"/"24G", "RTX3090", "3090FE",
  "TitanXp", "Tesla P 100", "SMX2" (SXM2), "PCle" (PCIe), "GeForce", brand prefixes and
  model names (TUF, Strix, Ventus, Gaming OC, FE). Part numbers are not models or sizes
  ("11322-02-20G", "900-2G509-A500-000", die marking "GV100-895-A1", stock code "L4-9").
- Quantity counts cards sold: "Lot of 4", "4x RTX 3090", "x2", "Pair", "Qty 3",
  "3 pcs"/"3 stk". Cooler and product names ("Dual", "Twin X2", "Ventus 3X"), ports
  ("4x DP"), "PCIe 4.0 x16"/"Gen4 x16" and the K80's "2x12GB" are not quantities.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from shared.catalog.specs import load_catalog
from shared.matching import amounts, context
from shared.matching.families import (
    AMBIGUOUS,
    FAMILIES,
    MATCHED,
    NOT_IN_CATALOG,
    Outcome,
    check_families,
    gpus_per_item,
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
        if outcome.reason == MATCHED and outcome.gpu_id is not None:
            count = amounts.quantity(text) * gpus_per_item(outcome.gpu_id)
            return TitleMatch(title, outcome.gpu_id, count, MATCHED)
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
    mentions = _without_short_repeats(mentions, text)
    if not mentions:
        return Outcome(NO_GPU)
    sizes, forms = amounts.sizes(text), amounts.forms(text)
    outcomes = {_outcome(mention, sizes, forms) for mention in mentions}
    if len(outcomes) == 1:
        return outcomes.pop()
    if all(outcome.reason == NOT_IN_CATALOG for outcome in outcomes):
        return Outcome(NOT_IN_CATALOG)
    return Outcome(AMBIGUOUS)


# Words that offer a choice between the models named: then both count.
_CHOICE = re.compile(r" (?:/|or|vs|and|plus|eller|og) ")


def _without_short_repeats(mentions: list[Mention], text: str) -> list[Mention]:
    """Drop "RTX 5070" where "RTX 5070 Ti" is also named: sellers repeat the model, and
    eBay cuts titles at 80 characters, so the repeat often loses its suffix."""
    if _CHOICE.search(text):
        return mentions
    models = {mention.model for mention in mentions}
    return [
        mention
        for mention in mentions
        if not mention.model or not any(m.startswith(f"{mention.model} ") for m in models)
    ]


def _outcome(mention: Mention, sizes: frozenset[int], forms: frozenset[str]) -> Outcome:
    if mention.family is None:
        return Outcome(mention.fixed or NOT_IN_CATALOG)
    return resolve(FAMILIES[mention.family], sizes, forms)
