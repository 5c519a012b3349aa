"""Find the GPU models a normalised title names.

Each rule is a regular expression plus a function turning its match into a mention: a
family key of `families.FAMILIES`, or a fixed outcome for names that are known GPUs but
not catalog cards (near relatives such as "rx 7900 xt" must not fall through to a
sibling) or that cannot be told apart ("rtx 6000"). Rules run in order and blank out
what they matched, so "quadro rtx 6000" is not seen again as "rtx 6000". A name right
after "not" is what the card is not ("RTX 3080 Ti (not 3080 12GB)") and is skipped.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from shared.matching.families import AMBIGUOUS, FAMILIES, NOT_IN_CATALOG


@dataclass(frozen=True)
class Mention:
    family: str | None = None
    # Set instead of `family` for names that resolve without the catalog.
    fixed: str | None = None
    # GeForce and Radeon model as written ("5070 ti", "7900"), to spot a name repeated
    # without its suffix.
    model: str = ""


_NIC = Mention(fixed=NOT_IN_CATALOG)
_AMBIGUOUS = Mention(fixed=AMBIGUOUS)

Handler = Callable[[re.Match[str], str], Mention | None]

# GeForce numbers read even without a "GTX"/"RTX" in front ("Msi 2060 Gaming Z").
_BARE_GEFORCE = frozenset(
    "1030 1050 1060 1070 1080 1630 1650 1660 2050 2060 2070 2080 3050 3060 3070 3080 3090 "
    "4050 4060 4070 4080 4090 5050 5060 5070 5080 5090".split()
)
_SUFFIX = r"(?:(?P<suffix>ti super|super|ti|d|xt)\b)?"
# Short datacenter names ("a2", "t4", "l4") count only next to words that make a GPU likely.
_GPU_CONTEXT = re.compile(
    r"\b(nvidia|tesla|gpu|tensor|graphics|accelerator|card|pcie|hbm\w*|gddr\w*|\d+gb|"
    r"datacenter|data center|skjermkort|grafikkort)\b"
)


def _family(key: str, model: str = "") -> Mention:
    if key in FAMILIES:
        return Mention(family=key, model=model)
    return Mention(fixed=NOT_IN_CATALOG, model=model)


def _geforce(match: re.Match[str], text: str) -> Mention | None:
    number, suffix = match["number"], (match["suffix"] or "").strip()
    if not match["prefix"] and number not in _BARE_GEFORCE:
        return None
    model = f"{number} {suffix}".strip()
    if suffix in ("d", "xt"):
        # "4090 d" is the China-only card; "xt" means an AMD card named without "rx".
        return Mention(fixed=NOT_IN_CATALOG, model=model)
    return _family(f"geforce {model}", model)


def _reversed_geforce(match: re.Match[str], text: str) -> Mention:
    # "1080 GTX" is a 1080; "7900 GTX" and "8800 GT" are old GeForce cards.
    number = match["number"]
    return _family(f"geforce {number}") if number in _BARE_GEFORCE else _NIC


def _amd(match: re.Match[str], text: str) -> Mention:
    model = f"{match['number']} {match['suffix'] or ''}".strip()
    return _family(f"rx {model}", model)


def _instinct(match: re.Match[str], text: str) -> Mention:
    return _family(f"mi{match['number']}{match['suffix'] or ''}")


def _titan(match: re.Match[str], text: str) -> Mention:
    return _family(f"titan {match['model'] or ''}".strip())


def _quadro(match: re.Match[str], text: str) -> Mention:
    if not match["rtx"]:
        return _NIC
    if match["ada"]:
        return _AMBIGUOUS
    return _family(f"quadro rtx {match['number']}")


def _rtx_a(match: re.Match[str], text: str) -> Mention:
    if match["ada"]:
        return _AMBIGUOUS
    return _family(f"rtx a{match['number']}")


# "Server Edition", or "Server" right after the model name ("RTX PRO 6000 Blackwell Server
# 96GB"), or Azure's "BSE" (Blackwell Server Edition) split into words; a "Server" keyword
# elsewhere in a card title is not the edition.
_RTX_PRO_SERVER = re.compile(
    r" server edition | rtx pro 6000(?: blackwell)?(?: \d+gb)? server | rtx pro 6000 b?se "
)
_RTX_PRO_WORKSTATION = re.compile(
    r" workstation edition | rtx pro 6000(?: blackwell)?(?: \d+gb)? workstation "
)


def _rtx_pro(match: re.Match[str], text: str) -> Mention:
    number = match["number"]
    if number != "6000":
        return _family(f"rtx pro {number}")
    if text[match.end() :].startswith(" d "):
        return _NIC  # RTX PRO 6000D: the China-market card
    # Three editions of one GB202 card: Workstation (600 W, the bare name), Max-Q
    # Workstation (300 W) and the passive Server Edition. Two editions named: no choice.
    editions = set()
    if " max q " in text:
        editions.add("max q")
    elif _RTX_PRO_WORKSTATION.search(text):
        editions.add("")
    if _RTX_PRO_SERVER.search(text):
        editions.add("server")
    if len(editions) > 1:
        return _AMBIGUOUS
    edition = editions.pop() if editions else ""
    return _family(f"rtx pro 6000 {edition}".strip())


def _rtx_ada(match: re.Match[str], text: str) -> Mention:
    if " quadro " in text:
        return _AMBIGUOUS
    if " sff " in text:
        return _NIC
    return _family(f"rtx {match['number']} ada")


def _rtx_bare_pro(match: re.Match[str], text: str) -> Mention:
    number = match["number"]
    ada, quadro = " ada " in text, " quadro " in text
    if ada and quadro:
        return _AMBIGUOUS
    if ada:
        return _family(f"rtx {number} ada")
    if quadro or number == "8000":
        return _family(f"quadro rtx {number}")
    return _AMBIGUOUS


def _datacenter(match: re.Match[str], text: str) -> Mention | None:
    name = match["name"].replace(" ", "")
    if len(name) <= 3 and not _GPU_CONTEXT.search(text):
        return None
    if len(name) <= 3 and re.search(rf"\bamd {name}\b", text):
        return None
    return _family(name)


_RULES: tuple[tuple[re.Pattern[str], Handler], ...] = tuple(
    (re.compile(pattern), handler)
    for pattern, handler in (
        (r"\brtx pro (?P<number>\d{4})\b", _rtx_pro),
        (r"\b(?:quadro |nvidia |rtx )*a(?P<number>\d\d00|400|500)\b(?P<ada> ada)?", _rtx_a),
        (r"\brtx (?P<number>\d{4})(?: sff)? ada\b", _rtx_ada),
        (
            r"\b(?:quadro|quatro) (?P<rtx>rtx )?(?:[a-z]{1,3} ?)?(?P<number>\d{3,5})\b"
            r"(?P<ada> ada)?",
            _quadro,
        ),
        (r"\brtx (?P<number>2000|4000|4500|5000|6000|8000)\b", _rtx_bare_pro),
        (r"\b(?:gtx |geforce )?titan(?: (?P<model>xp|x|v|rtx|z|black))?\b", _titan),
        (r"\b(?:amd |radeon |instinct )*mi ?(?P<number>\d{2,3})(?P<suffix>x|a)?\b", _instinct),
        (r"\b(?:radeon |amd )*rx (?P<number>\d{3,4})(?: (?P<suffix>xtx|xt|gre))?\b", _amd),
        (r"\b(?P<number>\d{4}) (?P<suffix>xtx|xt|gre)\b", _amd),
        (r"\bradeon (?P<number>\d{3,4})\b(?: (?P<suffix>xtx|xt|gre))?", _amd),
        (
            r"\b(?:radeon (?:vii|pro \w+|hd \d+)|vega \d+|r9 \d+|r7 \d+|firepro|arc [ab]\d{3}|"
            r"ati|jetson)\b",
            lambda m, t: _NIC,
        ),
        (
            r"\b(?P<name>v100s|gv100|a100x|a800|h800|h20|gb200|gb300|b100|b300|a16|l20|"
            r"k10|k20x?|k40|k520|m10|m40|m60|p6|p10|p102)\b",
            _datacenter,
        ),
        (
            r"\b(?:tesla |nvidia )*(?P<name>k80|p4|p40|p100|v100|t4|a2|a10g|a10|a30|a40|a100|"
            r"l4|l40 ?s|l40|h100|h200|gh200|b200)\b",
            _datacenter,
        ),
        (r"\b(?P<number>\d{3,4}) (?:gtx|gts|gt|gs|gto)\b(?! \d)", _reversed_geforce),
        (
            r"\b(?P<prefix>(?:gtx|rtx|gts|gt|geforce)(?: rtx| gtx| gt)? )?(?P<number>\d{3,4})\b"
            rf" ?{_SUFFIX}",
            _geforce,
        ),
    )
)


def find_mentions(title: str) -> list[Mention]:
    """Mentions in a normalised title, in rule order."""
    mentions: list[Mention] = []
    text = title
    for pattern, handler in _RULES:
        for match in pattern.finditer(text):
            mention = handler(match, title)
            if mention is None:
                continue
            start, end = match.span()
            if not text[:start].endswith(" not "):
                mentions.append(mention)
            text = text[:start] + " " * (end - start) + text[end:]
    return mentions
