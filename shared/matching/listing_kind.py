"""What a title sells: a laptop, a computer, an accessory, or a card.

Keyword lists are English plus the Norwegian words seen on finn.no. Every keyword that
rejects a title has a way out for the phrases that merely mention it ("with box",
"pulled from a working PC", "Twin Fan").
"""

from __future__ import annotations

import re

from shared.matching.patterns import words

# Where a card came from is not what is sold: "pulled from a working gaming PC".
_ORIGIN = words(
    r"(?:from|out of|fra|ut av|used in|pulled|removed|for|til)(?: \w+){0,4}? "
    r"(?:pc|computer|desktop|server|servers|workstation|rig|system|build|machine|setup|maskin)",
    # "Pulled from HP Omen 45L": the machine may be named by its model alone.
    r"(?:pulled|removed|taken|pull|pulls) (?:from|out of|fra|ut av)(?: \w+){1,5}",
)
# "Card only" says the computer it came from is not part of the sale.
_CARD_ONLY = words(
    r"(?:card|gpu|graphics card|video card) only",
    r"only (?:the )?(?:card|gpu|graphics card|video card)",
)
# Sellers of bare cards append "Server" as a keyword: "... Graphics Card Computing Server".
_TRAILING_SERVER = re.compile(r"(\b(?:graphics|video|gpu|accelerator) card\b.*) server $")

# Edition names of a card, not computers: "RTX PRO 6000 Blackwell Server (Edition)",
# "RTX PRO 6000 Blackwell Workstation 96GB", "Max-Q Workstation Edition".
_EDITION = words(
    r"rtx pro \d{4}(?: blackwell)?(?: \d+gb)? (?:server|workstation)",
    r"max q (?:server|workstation)",
)

# "Desktop PC graphics card", "computer graphic card", "server GPU": the card, not a computer.
_CARD_TARGET = words(
    r"(?:gaming |desktop |computer |pc |server |workstation )+"
    r"(?:gpu|graphics?|video|card|grafikkort|skjermkort)"
)

_LAPTOP = words(
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
_SYSTEM = words(
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
    r"[1-8]u(?! (?:heat ?sink|cooler|passive))",
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
    # Rack-scale Grace Blackwell systems and their trays, and the GB200/GB300 NVL2/NVL4 boards.
    r"nvl ?(?:36|72|144|576)\w*",
    r"gb[23]00 nvl ?[24]",
    r"(?:compute|switch) trays?",
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
_COMPONENTS = words(
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
    r"mobo",
    r"hovedkort",
    # Chipsets name a motherboard ("X670E", "B650M", "Z790"); none is a GPU name.
    r"(?:[xb][3-8][5-7]0|z[3-8][79]0|[bh][67][1-7]0)[em]?",
    r"am[45]",
    r"lga ?\d{4}",
)

_ACCESSORY = words(
    r"back ?plate",
    r"water ?block",
    r"waterblock",
    r"vannblokk",
    r"eisblock",
    # Fans are named in most card titles ("Dual Fan", "Phoenix Fan Edition"); only these sell one.
    r"(?:replacement|cooling|spare)(?: turbine| blower)? fans?",
    r"turbine fans?",
    r"fans? (?:for|kit|set|replacement|assembly)",
    r"(?<=^ )fans?",
    r"shroud",
    r"riser",
    # "NVLink" alone is the SXM interconnect or a card feature; the bridge is the part.
    r"sli bridge",
    r"bridge",
    r"cables?",
    r"adapter",
    r"heat ?sink",
    r"cooler",
    r"kjøleplate",
    # Merchandise and promotions that name a card.
    r"key ?(?:chains?|rings?)",
    r"posters?",
    r"stickers?",
    r"decals?",
    r"t ?shirts?",
    r"hoodies?",
    r"mugs?",
    r"figurines?",
    r"lanyards?",
    r"mouse ?pads?",
    r"(?:game|promo|promotion|promotional|redemption|redeem|digital|steam|download|bundle) "
    r"(?:codes?|keys?|coupons?|vouchers?)",
    r"codes? only",
    r"coupons?",
    r"vouchers?",
)
# Phrases that sell the part itself ("bracket for", "fan kit"): only "with"/"+" before
# them makes them part of a card, not a cooler word ("Blower Fan Kit" is a fan kit).
# A bracket is only sold in these phrases; otherwise it is the card's own ("Passive Bracket").
_PART_FOR_SALE = words(
    r"(?:brackets?|shrouds?|heat ?sinks?|coolers?|fans?|adapters?|risers?|cables?|"
    r"back ?plates?|water ?blocks?) (?:for|only|kit)",
    r"fan (?:kit|shroud|adapter|attachment)",
    r"(?:cooling|mounting|blower) kit",
    r"(?:support|anti sag|mounting|vertical|holder) bracket",
    r"bracket (?:adjustable|holder|support)",
    # "New thermal pads" in a card title is maintenance done, not pads for sale.
    r"thermal (?:pads?|paste) (?:for|only|kit|set)",
    r"(?<=^ )thermal (?:pads?|paste)",
    r"sag (?:holder|support|bracket|stand)",
    r"brackets",
)
_ACCESSORY_ONLY = words(
    r"box only",
    r"empty box",
    r"only (?:the )?box",
    r"kun eske",
    r"tom eske",
    r"bios chip",
    # A listing selling a picture of a card.
    r"(?:photos?|pictures?|pics?|images?) only",
    r"only (?:a |the )?(?:photos?|pictures?|pics?|images?)",
)
# External GPU enclosures and docks, even with a card (or a mobile chip) inside; one that
# names no GPU is left to the ``no_gpu`` check.
_ENCLOSURE = words(
    r"e ?gpu",
    r"external (?:gpu|graphics)",
    r"(?:gpu|graphics card|pcie) (?:enclosure|dock)",
    r"enclosure",
    r"razer core",
    r"akitio node",
    r"mantiz",
)
# Said of a part, "no GPU" means the card is missing; said of a computer it means no GPU fitted.
_NO_CARD = words(
    r"(?:no|without|not including) (?:the )?(?:gpu|card|graphics card|video card)",
    r"(?:gpu|card) not included",
    # A cooler shell without the board ("NO PCB", often typed "NO PBC").
    r"(?:no|without) (?:the )?(?:pcb|pbc|board)",
    r"(?:pcb|pbc|board) not included",
    r"(?:housing|shell|shroud|cooler|heat ?sink|radiator) only",
    r"only (?:the )?(?:housing|shell|shroud|cooler|heat ?sink|radiator)",
)
# Words before an accessory that mean it comes with (or is part of) the card.
_WITH = words(
    r"with",
    r"med",
    r"incl",
    r"including",
    r"includes",
    r"and",
    r"plus",
    r"på",
)
# Cooler and size descriptors before a fan or bracket word: "Dual Fan", "low profile bracket".
_WITH_BEFORE = words(
    _WITH.pattern,
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
# A missing part: "NO BRACKET", "W/O Heatsink".
_MISSING_BEFORE = re.compile(r"\b(?:no|without|missing|minus)(?: the)? $")
_WITH_AFTER = words(
    # "adapter card with V100": the adapter carries the GPU.
    r"(?:card |board )?(?:with|plus) (?:\w+ ){0,2}?(?:gpu|card|[a-z]?\d{3,4})",
    r"installed",
    r"fitted",
    r"missing",
    r"not included",
    r"included",
    r"mounted",
    r"attached",
    r"inkludert",
    r"ready",
    r"capable",
)


def _preceded(text: str, start: int, pattern: re.Pattern[str], tokens: int) -> bool:
    before = text[:start].split()[-tokens:]
    return bool(pattern.search(" ".join(before)))


def is_accessory_only(text: str, *, names_gpu: bool) -> bool:
    """A box only, a BIOS chip or an eGPU enclosure: an accessory even when the title names a
    (laptop) GPU."""
    return bool(_ACCESSORY_ONLY.search(text) or (names_gpu and _ENCLOSURE.search(text)))


def is_laptop(text: str) -> bool:
    if _LAPTOP.search(text):
        return True
    # The RTX PRO 6000 Max-Q is a desktop card; every other Max-Q GPU is a laptop chip.
    return " max q " in text and " rtx pro " not in text


def is_system(text: str, *, names_gpu: bool) -> bool:
    if _CARD_ONLY.search(text):
        return False
    cleaned = _CARD_TARGET.sub(" ", _ORIGIN.sub(" ", _EDITION.sub(" ", text)))
    cleaned = _TRAILING_SERVER.sub(r"\1 ", cleaned)
    return bool(_SYSTEM.search(cleaned) or (names_gpu and _COMPONENTS.search(cleaned)))


def is_accessory(text: str) -> bool:
    if _NO_CARD.search(text):
        return True
    for pattern, exempt_before in ((_PART_FOR_SALE, _WITH), (_ACCESSORY, _WITH_BEFORE)):
        for match in pattern.finditer(text):
            if _sold_alone(text, match, exempt_before):
                return True
    return False


def _sold_alone(text: str, match: re.Match[str], exempt_before: re.Pattern[str]) -> bool:
    """An accessory word that is not part of a card ("with", "installed", "no ...")."""
    if _MISSING_BEFORE.search(text[: match.start()]):
        return False
    if _preceded(text, match.start(), exempt_before, 4):
        return False
    return not _WITH_AFTER.match(text[match.end() :].strip())
