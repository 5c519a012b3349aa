"""GPU families: the catalog ids a model name can stand for, and how memory size and form
factor pick one of them.

A family is what a title names before variants are considered ("rtx 3080", "a100",
"quadro rtx 6000"). The table is written by hand because the conventions (which variant
a bare name means, which cards need a stated form factor) are product decisions, not
something the catalog can tell; `check_families` keeps it in step with the catalog.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

from shared.catalog.specs import GpuSpec, load_catalog

AMBIGUOUS = "ambiguous"
NOT_IN_CATALOG = "not_in_catalog"
MATCHED = "matched"


@dataclass(frozen=True)
class Family:
    ids: tuple[str, ...]
    # Id meant when the title gives no size and several ids remain.
    default: str | None = None
    # The title must state a size: other sizes of this card exist outside the catalog.
    size_required: bool = False
    # A100/H100/H200: the same size exists as PCIe and SXM, so a size alone decides nothing.
    requires_form: bool = False
    # V100: a size without a form factor means the PCIe card.
    default_form: str | None = None
    # K80: "24GB" and "2x12GB" both describe the one board.
    ignore_size: bool = False
    # Marketing sizes other than the catalog's (H100 NVL is sold as 94 GB and as 96 GB).
    size_aliases: tuple[tuple[int, int], ...] = ()
    # Catalog GPUs in one item the title names: a GB200/GB300 superchip carries two
    # Blackwell GPUs, and the catalog rows (and prices) are per GPU.
    gpus_per_item: int = 1

    @property
    def uses_form(self) -> bool:
        """Datacenter NVIDIA cards, where a stated PCIe/SXM/NVL must agree with the card."""
        if self.requires_form or self.default_form is not None:
            return True
        return any(
            _spec(gpu_id).segment == "datacenter" and _spec(gpu_id).form_factor in ("pcie", "sxm")
            for gpu_id in self.ids
        )

    @property
    def forms(self) -> frozenset[str]:
        return frozenset(form_of(_spec(gpu_id)) for gpu_id in self.ids)


def _one(gpu_id: str, *, size_required: bool = False) -> Family:
    return Family((gpu_id,), size_required=size_required)


def _geforce(pairs: Iterable[tuple[str, str]]) -> dict[str, Family]:
    return {f"geforce {name}": _one(gpu_id) for name, gpu_id in pairs}


FAMILIES: dict[str, Family] = {
    **_geforce(
        [
            ("1060", "gtx-1060-6gb"),
            ("1070", "gtx-1070"),
            ("1070 ti", "gtx-1070-ti"),
            ("1080", "gtx-1080"),
            ("1080 ti", "gtx-1080-ti"),
            ("1650 super", "gtx-1650-super"),
            ("1660 super", "gtx-1660-super"),
            ("1660 ti", "gtx-1660-ti"),
            ("2060", "rtx-2060"),
            ("2060 super", "rtx-2060-super"),
            ("2070", "rtx-2070"),
            ("2070 super", "rtx-2070-super"),
            ("2080", "rtx-2080"),
            ("2080 super", "rtx-2080-super"),
            ("2080 ti", "rtx-2080-ti"),
            ("3060", "rtx-3060-12gb"),
            ("3060 ti", "rtx-3060-ti"),
            ("3070", "rtx-3070"),
            ("3070 ti", "rtx-3070-ti"),
            ("3080 ti", "rtx-3080-ti"),
            ("3090", "rtx-3090"),
            ("3090 ti", "rtx-3090-ti"),
            ("4060", "rtx-4060"),
            ("4070", "rtx-4070"),
            ("4070 super", "rtx-4070-super"),
            ("4070 ti", "rtx-4070-ti"),
            ("4070 ti super", "rtx-4070-ti-super"),
            ("4080", "rtx-4080"),
            ("4080 super", "rtx-4080-super"),
            ("4090", "rtx-4090"),
            ("5070", "rtx-5070"),
            ("5070 ti", "rtx-5070-ti"),
            ("5080", "rtx-5080"),
            ("5090", "rtx-5090"),
        ]
    ),
    "geforce 3080": Family(("rtx-3080-10gb", "rtx-3080-12gb"), default="rtx-3080-10gb"),
    "geforce 4060 ti": Family(("rtx-4060-ti-8gb", "rtx-4060-ti-16gb"), default="rtx-4060-ti-8gb"),
    # Only the 16 GB card is in the catalog, but the 8 GB one sells just as often.
    "geforce 5060 ti": _one("rtx-5060-ti-16gb", size_required=True),
    "titan xp": _one("titan-xp"),
    "titan v": _one("titan-v"),
    "titan rtx": _one("titan-rtx"),
    "quadro rtx 4000": _one("quadro-rtx-4000"),
    "quadro rtx 5000": _one("quadro-rtx-5000"),
    "quadro rtx 6000": _one("quadro-rtx-6000"),
    "quadro rtx 8000": _one("quadro-rtx-8000"),
    "rtx a4000": _one("rtx-a4000"),
    "rtx a4500": _one("rtx-a4500"),
    "rtx a5000": _one("rtx-a5000"),
    "rtx a5500": _one("rtx-a5500"),
    "rtx a6000": _one("rtx-a6000"),
    "rtx 2000 ada": _one("rtx-2000-ada"),
    "rtx 4000 ada": _one("rtx-4000-ada"),
    "rtx 4500 ada": _one("rtx-4500-ada"),
    "rtx 5000 ada": _one("rtx-5000-ada"),
    "rtx 6000 ada": _one("rtx-6000-ada"),
    # The RTX PRO 6000 Blackwell comes in three editions; a bare name is the Workstation
    # Edition (the boxed retail card), Server Edition and Max-Q are named as such.
    "rtx pro 6000": _one("rtx-pro-6000-blackwell"),
    "rtx pro 6000 server": _one("rtx-pro-6000-blackwell-server"),
    "rtx pro 6000 max q": _one("rtx-pro-6000-blackwell-max-q"),
    "k80": Family(("tesla-k80",), ignore_size=True),
    "p4": _one("tesla-p4"),
    "p40": _one("tesla-p40"),
    # The 12 GB P100 PCIe is as common as the 16 GB one the catalog has.
    "p100": _one("tesla-p100-16gb", size_required=True),
    "v100": Family(
        ("v100-16gb-pcie", "v100-32gb-pcie", "v100-16gb-sxm2", "v100-32gb-sxm2"),
        default_form="pcie",
    ),
    "t4": _one("t4"),
    "a2": _one("a2"),
    "a10": _one("a10"),
    "a10g": _one("a10g"),
    "a30": _one("a30"),
    "a40": _one("a40"),
    "a100": Family(
        ("a100-40gb-pcie", "a100-40gb-sxm4", "a100-80gb-pcie", "a100-80gb-sxm4"),
        requires_form=True,
    ),
    "l4": _one("l4"),
    "l40": _one("l40"),
    "l40s": _one("l40s"),
    "h100": Family(
        ("h100-pcie", "h100-sxm5", "h100-nvl"),
        requires_form=True,
        size_aliases=((96, 94),),
    ),
    "h200": Family(("h200-sxm", "h200-nvl"), requires_form=True),
    "gh200": _one("gh200"),
    "b200": Family(("b200",), size_aliases=((192, 180),)),
    # The catalog states the usable memory (270 GB) of the 288 GB HBM3e B300.
    "b300": Family(("b300",), size_aliases=((288, 270),)),
    # Superchips: one GB200/GB300 is two GPUs; sizes may be per GPU, physical or per superchip.
    "gb200": Family(("gb200",), size_aliases=((192, 186), (372, 186), (384, 186)), gpus_per_item=2),
    "gb300": Family(("gb300",), size_aliases=((576, 288),), gpus_per_item=2),
    "mi210": _one("mi210"),
    "mi250x": _one("mi250x"),
    "mi300x": _one("mi300x"),
    "mi325x": _one("mi325x"),
    "mi350x": _one("mi350x"),
    "mi355x": _one("mi355x"),
    "rx 7900 xtx": _one("rx-7900-xtx"),
}


@dataclass(frozen=True)
class Outcome:
    reason: str
    gpu_id: str | None = None


def gpus_per_item(gpu_id: str) -> int:
    """Catalog GPUs in one item of this card (2 for a GB200/GB300 superchip)."""
    return max(
        (family.gpus_per_item for family in FAMILIES.values() if gpu_id in family.ids),
        default=1,
    )


def _spec(gpu_id: str) -> GpuSpec:
    spec = load_catalog().get(gpu_id)
    if spec is None:
        raise KeyError(f"matching table names {gpu_id!r}, which is not in the catalog")
    return spec


def form_of(spec: GpuSpec) -> str:
    """Form label as sellers write it: the NVL cards are PCIe boards but named apart."""
    if "nvl" in spec.id:
        return "nvl"
    return spec.form_factor


def _size_of(spec: GpuSpec) -> int:
    return round(spec.memory_gb)


def resolve(family: Family, sizes: frozenset[int], forms: frozenset[str]) -> Outcome:
    """Pick the catalog card from the sizes and form factors stated in the title."""
    specs = [_spec(gpu_id) for gpu_id in family.ids]
    if not family.ignore_size and sizes:
        aliases = dict(family.size_aliases)
        sizes = frozenset(aliases.get(size, size) for size in sizes)
        known = sizes & {_size_of(spec) for spec in specs}
        if not known:
            return Outcome(NOT_IN_CATALOG)
        # "12GB ... 16GB" contradicts itself, as does a choice of sizes.
        if len(known) > 1 or known != sizes:
            return Outcome(AMBIGUOUS)
        specs = [spec for spec in specs if _size_of(spec) in known]
    if family.uses_form:
        outcome_or_specs = _filter_forms(family, specs, forms, sized=bool(sizes))
        if isinstance(outcome_or_specs, Outcome):
            return outcome_or_specs
        specs = outcome_or_specs
    if family.size_required and not sizes:
        return Outcome(AMBIGUOUS)
    if len(specs) == 1:
        return Outcome(MATCHED, specs[0].id)
    if not sizes and family.default is not None:
        return Outcome(MATCHED, family.default)
    return Outcome(AMBIGUOUS)


def _filter_forms(
    family: Family, specs: list[GpuSpec], forms: frozenset[str], *, sized: bool
) -> list[GpuSpec] | Outcome:
    if "nvl" in forms:
        forms = frozenset({"nvl"})
    if len(forms) > 1:
        return Outcome(AMBIGUOUS)
    if not forms:
        if family.requires_form:
            return Outcome(AMBIGUOUS)
        if family.default_form is None or not sized:
            return specs
        forms = frozenset({family.default_form})
    if not forms & family.forms:
        return Outcome(NOT_IN_CATALOG)
    kept = [spec for spec in specs if form_of(spec) in forms]
    return kept if kept else Outcome(NOT_IN_CATALOG)


@lru_cache(maxsize=1)
def check_families() -> None:
    """Fail loudly if the table and the catalog disagree (an id renamed or added)."""
    named = [gpu_id for family in FAMILIES.values() for gpu_id in family.ids]
    for gpu_id in named:
        _spec(gpu_id)
    missing = set(load_catalog().ids) - set(named)
    if missing:
        raise KeyError(f"catalog ids without a matching family: {sorted(missing)}")
