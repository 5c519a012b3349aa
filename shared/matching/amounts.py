"""How many cards a title sells, and the memory sizes and form factors it states."""

from __future__ import annotations

import re

from shared.matching.patterns import words

_WORD_NUMBERS = {
    "pair": 2,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "ten": 10,
}
_NUMBER = r"(?P<n>\d{1,2}|" + "|".join(_WORD_NUMBERS) + ")"
_GPU_WORD = (
    r"(?:rtx|gtx|geforce|nvidia|tesla|quadro|amd|radeon|rx|instinct|evga|asus|msi|gigabyte|"
    r"zotac|pny|palit|gainward|sapphire|xfx|inno3d|kfa2|galax|dell|hp|lenovo|"
    r"[a-z]{0,2}\d{2,4}[a-z]?\b)"
)
_COOLER_NAMES = r"(?<!ventus )(?<!windforce )(?<!twin )(?<!trio )(?<!dual )(?<!triple )"
_QUANTITY = (
    words(rf"(?:lot|set|bundle|pack) of {_NUMBER}"),
    words(rf"lot (?:x )?{_NUMBER}"),
    # "2 pcs available, price per card" is stock, not a lot.
    words(rf"{_NUMBER} (?:lot|pack|pcs|pieces|units|cards|gpus|stk|stykk)(?! available| in stock)"),
    words(rf"(?:qty|quantity|antall) {_NUMBER}"),
    words(r"(?:a )?pair(?: of)?"),
    re.compile(rf"^ {_NUMBER} ?x? (?={_GPU_WORD}\b)"),
    re.compile(rf"{_COOLER_NAMES}\b{_NUMBER} ?x (?={_GPU_WORD}\b)"),
    # Inno3D "X3 OC"/"iChill X4 Ultra" are product names.
    re.compile(
        r"(?<!pcie )(?<!ichill )(?<!gen )(?<!gen\d )(?<!twin )(?<!\d\.\d )"
        r"\bx ?(?P<n>[2-9]|[1-5]\d)\b(?! slot| lane| oc| ultra)"
    ),
    re.compile(rf"{_NUMBER} (?:x )?(?:matched )?(?:{_GPU_WORD} )?(?:cards|gpus)\b"),
)


def quantity(text: str) -> int:
    """Cards sold: the largest lot size stated, 1 when none is."""
    found = [1]
    for pattern in _QUANTITY:
        for match in pattern.finditer(text):
            word = match.groupdict().get("n") or "pair"
            found.append(_WORD_NUMBERS.get(word) or int(word))
    return max(found)


_SIZE = re.compile(
    r"(?<!\dx)\b(?P<gb>\d{1,3})gb\b(?! ?(?:ram|ddr\d?|lpddr\d?|ssd|hdd|nvme|emmc|storage|system))"
)
_FORMS = {
    "sxm": re.compile(r"\bsxm ?[124-6]?\b"),
    # SXM3 is the V100 board of the DGX-2, a different card from the SXM2 one.
    "sxm3": re.compile(r"\bsxm ?3\b"),
    "pcie": re.compile(r"\bpcie\b"),
    "nvl": words("nvl"),
}
_NEGATED_FORM = re.compile(r"\b(?:not|non|no) (?:pcie|sxm ?\d?)\b")
# An SXM module "converted" to or sold on a PCIe adapter is still the SXM card.
_ON_ADAPTER = words(r"convert\w*", r"adapter", r"to pcie")


def sizes(text: str) -> frozenset[int]:
    """Memory sizes (GB) stated for the card; RAM and storage sizes are skipped."""
    return frozenset(int(m["gb"]) for m in _SIZE.finditer(text) if 0 < int(m["gb"]) <= 256)


def forms(text: str) -> frozenset[str]:
    """Form factors stated: "pcie", "sxm" (any generation but 3), "sxm3", "nvl"."""
    text = _NEGATED_FORM.sub(" ", text)
    found = frozenset(name for name, pattern in _FORMS.items() if pattern.search(text))
    if "sxm" in found and "pcie" in found and _ON_ADAPTER.search(text):
        return found - {"pcie"}
    return found
