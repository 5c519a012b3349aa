"""Title normalisation: one lowercase, space-separated spelling for every way sellers write a GPU.

Everything downstream matches regular expressions against the normalised text, so the
spellings are unified here once ("RTX3090FE" -> "rtx 3090 fe", "2080S" -> "2080 super",
"4070TiS" -> "4070 ti super", "12G" -> "12gb", "A100-SXM4-80GB" -> "a100 sxm4 80gb").
"""

from __future__ import annotations

import re

# Order matters: each step relies on the ones before it.
_REWRITES: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(pattern), replacement)
    for pattern, replacement in (
        (r"[™®©]", " "),
        (r"[\u2010-\u2015\u2212]", "-"),
        # Protect hyphenated words whose meaning changes when the hyphen becomes a space.
        (r"\bas-is\b", " as is "),
        (r"\bnon-?(?=working|functional|ti\b|super\b)", "non "),
        (r"\bpci-?e\b|\bpci express\b", "pcie"),
        (r"\bpcie(?=\d)", "pcie "),
        (r"\bmax-q\b", "max q"),
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
