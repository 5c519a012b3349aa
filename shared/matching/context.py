"""What a normalised title says besides the GPU model: what is sold (laptop, system,
accessory), in which condition, how many cards, and the stated memory sizes and form factors.

Keyword lists are English plus the Norwegian words seen on finn.no. Every keyword that
rejects a title has a way out for the phrases that merely mention it ("with box",
"NOT for parts", "pulled from a working PC", "Twin Fan").
"""

from __future__ import annotations

import re

FOR_PARTS = "for_parts"
LAPTOP = "laptop"
SYSTEM = "system"
ACCESSORY = "accessory"


def _words(*alternatives: str) -> re.Pattern[str]:
    return re.compile(r"\b(?:" + "|".join(alternatives) + r")\b")


# Where a card came from is not what is sold: "pulled from a working gaming PC".
_ORIGIN = _words(
    r"(?:from|out of|fra|ut av|used in|pulled|removed|for|til)(?: \w+){0,4}? "
    r"(?:pc|computer|desktop|server|servers|workstation|rig|system|build|machine|setup|maskin)"
)

# "Desktop PC graphics card", "computer graphic card", "server GPU": the card, not a computer.
_CARD_TARGET = _words(
    r"(?:gaming |desktop |computer |pc |server |workstation )+"
    r"(?:gpu|graphics?|video|card|grafikkort|skjermkort)"
)

_LAPTOP = _words(
    r"laptop",
    r"notebook",
    r"macbook",
    r"mobile",
    r"mxm\w*",
    r"zephyrus",
    r"razer blade",
    r"predator helios",
    r"legion (?:5|7|pro|slim|y\d+)",
    r"alienware [mx]\d{2}",
    r"rog strix (?:g|scar) ?\d*",
    r"tuf gaming [af]\d{2}",
    r"msi (?:ge|gs|gp|gl|gf)\d{2}\w*",
    r"nitro 5",
    r"xps 1[57]",
    r"omen (?:15|16|17)",
    r"victus",
    r"g750",
    # Mobile chips: "880M", "1070M" (normalised to "880 m"); "256M" of memory is not one.
    r"(?:[6-9][4-8]\d|[1-5]0[5-9]0) m",
)

# Words that make a title a computer whether or not a GPU is named.
_SYSTEM = _words(
    r"(?:gaming|custom|complete|full|prebuilt|pre built|home built|selvbygd|kraftig) "
    r"(?:pc|computer|rig|desktop|tower|setup|system|build|maskin|datamaskin|pakke|oppsett)",
    r"pc (?:build|tower|bundle|komplett)",
    r"desktop(?! (?:gpu|graphics|video|card|grafikkort|skjermkort))",
    r"computer(?! (?:graphics|video|card|gpu))",
    r"workstation(?! (?:gpu|graphics|video|card|edition|grafikkort|skjermkort))",
    r"server(?! (?:gpu|graphics|video|card|edition|pulls?|pulled|grade))",
    r"datamaskin",
    r"arbeidsstasjon\w*",
    r"gamingpoint",
    r"gaming (?:pakke|oppsett|setup)",
    r"tower",
    r"rig",
    r"barebone",
    r"rackmount",
    r"[1-8]u",
    r"optiplex",
    r"pre[sc]ision (?:t ?)?\d{4}",
    r"alienware aurora",
    r"aurora r\d+",
    r"omen (?:obelisk|\d{2}l|\d{3})",
    r"hp z\d{1,3}\w*",
    r"z[468] g\d",
    r"thinkstation",
    r"thinkcentre",
    r"prodesk",
    r"elitedesk",
    r"pavilion",
    r"legion t\d",
    r"poweredge",
    r"proliant",
    r"supermicro",
    r"dgx",
    r"hgx",
    r"ibuypower",
    r"cyberpower\w*",
    r"skytech",
    r"komplett (?:gamer|epic|battlebox)",
    r"predator orion",
    r"acer nitro n\d+",
    r"aspire",
    r"zbox",
    r"msi (?:codex|trident|nightblade|aegis|infinite)",
)

# Computer parts: a GPU sold together with them is part of a system, not a card on its own.
_COMPONENTS = _words(
    r"(?:core )?i[3579] \d{4,5}\w*",
    r"ryzen [3579]",
    r"ryzen \d{4}\w*",
    r"xeon",
    r"threadripper",
    r"epyc",
    r"(?:[89]|\d{2,3})gb (?:ram|ddr\d)(?! (?:graphics|video|gpu|card))",
    # "GDDR6 RAM" is the card's own memory.
    r"(?<!gddr\d )(?<!v)ram",
    r"ssd",
    r"hdd",
    r"nvme",
    r"cpu",
    r"motherboard",
    r"mainboard",
    r"hovedkort",
)

_ACCESSORY = _words(
    r"back ?plate",
    r"water ?block",
    r"waterblock",
    r"vannblokk",
    r"eisblock",
    # Fans are named in most card titles ("Dual Fan", "Phoenix Fan Edition"); only these sell one.
    r"(?:replacement|cooling|spare) fans?",
    r"fans? (?:for|kit|set|replacement|assembly)",
    r"(?<=^ )fans?",
    r"shroud",
    r"bracket",
    r"riser",
    r"nvlink",
    r"sli bridge",
    r"bridge",
    r"cables?",
    r"adapter",
    r"heat ?sink",
    r"cooler",
    r"kjøleplate",
    r"thermal pads?",
)
_ACCESSORY_ONLY = _words(
    r"box only",
    r"empty box",
    r"only (?:the )?box",
    r"kun eske",
    r"tom eske",
    r"bios chip",
)
# Said of a part, "no GPU" means the card is missing; said of a computer it means no GPU fitted.
_NO_CARD = _words(
    r"(?:no|without|not including) (?:the )?(?:gpu|card|graphics card|video card)",
    r"(?:gpu|card) not included",
)
# Words before an accessory that mean it comes with (or is part of) the card.
_WITH_BEFORE = _words(
    r"with",
    r"med",
    r"incl",
    r"including",
    r"includes",
    r"and",
    r"plus",
    r"på",
    r"dual",
    r"twin",
    r"triple",
    r"tri",
    r"blower",
    r"stock",
    r"original",
    r"low profile",
    r"full height",
)
_WITH_AFTER = _words(
    r"installed",
    r"fitted",
    r"included",
    r"mounted",
    r"attached",
    r"inkludert",
    r"ready",
    r"capable",
)

_BROKEN_PHRASES = _words(
    r"not working",
    r"non working",
    r"non functional",
    r"(?:does not|doesn t|doesnt|dont|don t|won t) work",
    r"no (?:display|video|output|signal|post|image)",
    r"needs (?:repair|work)",
    r"for deler",
    r"virker ikke",
    r"fungerer ikke",
)
_BROKEN_WORDS = _words(
    r"for parts",
    r"parts only",
    r"for repairs?",
    r"parts (?:or |/ |and )?repairs?",
    r"broken",
    r"as is",
    r"faulty",
    r"defective",
    r"defekt",
    r"ødelagt",
    r"damaged",
    r"dead",
    r"artifact\w*",
    r"untested",
    r"cracked",
    r"burnt",
    r"bricked",
)
_NEGATION_BEFORE = re.compile(r"\b(?:not|no|never|non|without|isn t|wasn t|ikke)(?: \w+)? $")
_PACKAGING = re.compile(r"^ ?(?:box|packaging|eske)\b")


def _preceded(text: str, start: int, pattern: re.Pattern[str], tokens: int) -> bool:
    before = text[:start].split()[-tokens:]
    return bool(pattern.search(" ".join(before)))


def rejection(text: str, *, names_gpu: bool) -> str | None:
    """Rejection reason from what is sold and its condition, None for a working card."""
    # "Box only" or a BIOS chip is an accessory even when it lists laptop GPUs it fits.
    if _ACCESSORY_ONLY.search(text):
        return ACCESSORY
    if _is_laptop(text):
        return LAPTOP
    cleaned = _CARD_TARGET.sub(" ", _ORIGIN.sub(" ", text))
    if _SYSTEM.search(cleaned) or (names_gpu and _COMPONENTS.search(cleaned)):
        return SYSTEM
    if _is_accessory(text):
        return ACCESSORY
    if _is_broken(text):
        return FOR_PARTS
    return None


def _is_laptop(text: str) -> bool:
    if _LAPTOP.search(text):
        return True
    # The RTX PRO 6000 Max-Q is a desktop card; every other Max-Q GPU is a laptop chip.
    return " max q " in text and " rtx pro " not in text


def _is_accessory(text: str) -> bool:
    if _NO_CARD.search(text):
        return True
    for match in _ACCESSORY.finditer(text):
        if _preceded(text, match.start(), _WITH_BEFORE, 4):
            continue
        if _WITH_AFTER.match(text[match.end() :].strip()):
            continue
        return True
    return False


def _is_broken(text: str) -> bool:
    if _BROKEN_PHRASES.search(text):
        return True
    for match in _BROKEN_WORDS.finditer(text):
        if _NEGATION_BEFORE.search(text[: match.start()]):
            continue
        if _PACKAGING.match(text[match.end() :]) or text[: match.start()].endswith(" box "):
            continue
        return True
    return False


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
    _words(rf"(?:lot|set|bundle|pack) of {_NUMBER}"),
    _words(rf"lot (?:x )?{_NUMBER}"),
    # "2 pcs available, price per card" is stock, not a lot.
    _words(
        rf"{_NUMBER} (?:lot|pack|pcs|pieces|units|cards|gpus|stk|stykk)(?! available| in stock)"
    ),
    _words(rf"(?:qty|quantity|antall) {_NUMBER}"),
    _words(r"(?:a )?pair(?: of)?"),
    re.compile(rf"^ {_NUMBER} ?x? (?={_GPU_WORD}\b)"),
    re.compile(rf"{_COOLER_NAMES}\b{_NUMBER} ?x (?={_GPU_WORD}\b)"),
    # Inno3D "X3 OC"/"iChill X4 Ultra" are product names.
    re.compile(
        r"(?<!pcie )(?<!ichill )(?<!gen )(?<!twin )(?<!\d\.\d )"
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
_FORMS = {"sxm": re.compile(r"\bsxm ?\d?\b"), "pcie": re.compile(r"\bpcie\b"), "nvl": _words("nvl")}
_NEGATED_FORM = re.compile(r"\b(?:not|non|no) (?:pcie|sxm ?\d?)\b")


def sizes(text: str) -> frozenset[int]:
    """Memory sizes (GB) stated for the card; RAM and storage sizes are skipped."""
    return frozenset(int(m["gb"]) for m in _SIZE.finditer(text) if 0 < int(m["gb"]) <= 256)


def forms(text: str) -> frozenset[str]:
    """Form factors stated: "pcie", "sxm" (any generation), "nvl"."""
    text = _NEGATED_FORM.sub(" ", text)
    return frozenset(name for name, pattern in _FORMS.items() if pattern.search(text))
