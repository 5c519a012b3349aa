"""Title normalisation: one lowercase, space-separated spelling for every way sellers write a GPU.

Everything downstream matches regular expressions against the normalised text, so the
spellings are unified here once ("RTX3090FE" -> "rtx 3090 fe", "2080S" -> "2080 super",
"4070TiS" -> "4070 ti super", "12G" -> "12gb", "A100-SXM4-80GB" -> "a100 sxm4 80gb",
"TitanXp" -> "titan xp", "SMX2" -> "sxm2"). Part numbers are dropped, because their
digits read as models and sizes ("11322-02-20G" is no 20 GB card, "900-2G509-A500-000"
no RTX A500); NVIDIA board numbers leave the form factor they encode behind.
"""

from __future__ import annotations

import re
from collections.abc import Callable

# NVIDIA board numbers ("699-2G503-0201-200", "900-21001-0000-000"): the second group
# names the board, and for these boards the form factor.
_BOARD_FORMS = {
    "21001": "pcie",  # A100 PCIe
    "21010": "pcie",  # H100 PCIe
    "2g500": "pcie",  # V100 PCIe
    "2g503": "sxm2",  # V100 SXM2
    "2g504": "sxm3",  # V100 SXM3 (DGX-2)
    "2g506": "sxm4",  # A100 SXM4 (PG506)
    "2g509": "sxm4",  # A100 SXM4 (PG509)
    "2h400": "pcie",  # P100 PCIe
    "2h403": "sxm2",  # P100 SXM2
}


def _board(match: re.Match[str]) -> str:
    return f" {_BOARD_FORMS.get(match['board'], '')} "


Rewrite = str | Callable[[re.Match[str]], str]

# Order matters: each step relies on the ones before it.
_REWRITES: tuple[tuple[re.Pattern[str], Rewrite], ...] = tuple(
    (re.compile(pattern), replacement)
    for pattern, replacement in (
        (r"[™®©]", " "),
        (r"[\u2010-\u2015\u2212]", "-"),
        # Emoji and other symbols ("⚠️PARTS⚠️", "RTX� 4090") would glue to the words.
        (r"[^\w\s!-~]", " "),
        (r"\b[69]\d\d-(?P<board>\d[0-9a-z]\d{3})(?:-[\w*]*)*", _board),
        # GPU die markings ("GV100-895-A1") and AIB part numbers ("11322-02-20G").
        (r"\bg[a-z]\d{3}-\d{3}\w?-\w\d\b", " "),
        (r"\b\d{4,6}(?:-\d{1,3}){1,2}g\b", " "),
        # Stock and port codes glued to a short datacenter name ("L4-9", "A2-4/A4905-1")
        # are not the GPU; a size ("T4-16GB") or a model ("p6-b200") is kept apart.
        (r"\b([atlp]\d)-(?=\d+\b)(?!\d{1,3} ?g)", r"\1"),
        (r"\bsmx(?=\d?\b)", "sxm"),
        (r"\btitan(?=(?:xp|x|v|rtx)\b)", "titan "),
        (r"\btesla ([kmpv]) (\d{2,3})\b", r"tesla \1\2"),
        # Protect hyphenated words whose meaning changes when the hyphen becomes a space.
        (r"\bas-is\b", " as is "),
        (r"\bnon-?(?=working|functional|ti\b|super\b)", "non "),
        (r"\bpci-?e\b|\bpci express\b|\bpcle\b", "pcie"),
        (r"\bpcie(?=\d)", "pcie "),
        (r"\bmax-?q\b", "max q"),
        (r"\bex-mining\b", "ex mining"),
        (r"\bw/o\b", " without "),
        (r"\bw/", " with "),
        (r"[()\[\]{}\"'!?*#:;|_]", " "),
        (r",", " , "),
        (r"/", " / "),
        (r"\+", " plus "),
        (r"&", " and "),
        (r"-", " "),
        # Brand prefix glued to the model number: "rtx3090", "gtx1080ti", "rx580".
        (r"\b(rtx|gtx|gts|gt|rx|quadro|titan|geforce|radeon|igame)(?=\d)", r"\1 "),
        # Suffix glued to a model number: "3090fe", "2080ti", "4070tis", "7900xtx", "1070m",
        # and the China-only "1050de".
        (r"\b(\d{3,4})(tis|ti|super|s|fe|xtx|xt|gre|m|d|de)\b", r"\1 \2"),
        (r"\b(\d{3,4}) tis\b", r"\1 ti super"),
        (r"\b(\d{3,4}) s\b", r"\1 super"),
        (r"\b(\d{3,4}) ti s\b", r"\1 ti super"),
        (r"\s+", " "),
        # Memory sizes in part numbers: ASUS "O12G", Gigabyte "10GD".
        (r"\bo(\d{1,2})g\b", r"\1gb"),
        (r"\b(\d{1,2})gd\b", r"\1gb"),
        # A size glued to the next word ("16GBWithout"), but not a data rate ("18Gbps").
        (r"\b(\d{1,3})gb(?!ps\b)(?=[a-z])", r"\1gb "),
        # Memory sizes: "12 gb", "12g", "12gig" -> "12gb".
        (r"\b(\d{1,3})\s?(?:gb|g|gig|gigs|go)\b", r"\1gb"),
        (r"\s+", " "),
    )
)


def normalize(title: str) -> str:
    """Lowercase title with unified spellings, tokens separated by single spaces."""
    text = title.lower()
    for pattern, replacement in _REWRITES:
        text = pattern.sub(replacement, text)
    return f" {text.strip()} "
