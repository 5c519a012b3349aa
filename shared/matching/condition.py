"""Whether a title sells a broken card or one for parts.

Negated or packaging phrases do not count: "NOT for parts", "damaged box".
"""

from __future__ import annotations

import re

from shared.matching.patterns import words

_BROKEN_PHRASES = words(
    r"not working",
    r"non working",
    r"non functional",
    r"stopped working",
    r"not spinning",
    r"(?:does not|doesn t|doesnt|dont|don t|won t) work",
    r"(?:does not|doesn t|doesnt|won t|wont|will not) (?:boot|post|display|power on|turn on)",
    r"no (?:display|video|output|signal|post|image)",
    # "Only DisplayPort works": the other outputs do not.
    r"only (?:the |one |1 )?(?:\w+ )?(?:ports?|hdmi|dp|displayport|display port|dvi|vga|outputs?) "
    r"(?:works?|working)",
    r"code 43",
    r"black screen",
    r"not (?:detected|recognized|recognised|posting|booting)",
    r"needs (?:repair|work)",
    r"for deler",
    r"virker ikke",
    r"fungerer ikke",
)
_BROKEN_WORDS = words(
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
    r"scrap",
    r"overheat\w*",
    r"ecc errors?",
    r"(?:board|power|memory|vram|fan|fans|display|video|port|hdmi|driver|boot|pcb|core|gpu|card) "
    r"(?:issues?|problems?|faults?|errors?)",
    r"(?:has|with|having) (?:some |minor )?(?:issues?|problems?)",
    # "PARTS" opening a title: "⚠️PARTS⚠️ NVIDIA Tesla V100".
    r"(?<=^ )parts",
)
_NEGATION_BEFORE = re.compile(r"\b(?:not|no|never|non|without|isn t|wasn t|ikke)(?: \w+)? $")
_PACKAGING = re.compile(r"^ ?(?:box|packaging|eske)\b")


def is_broken(text: str) -> bool:
    if _BROKEN_PHRASES.search(text):
        return True
    for match in _BROKEN_WORDS.finditer(text):
        if _NEGATION_BEFORE.search(text[: match.start()]):
            continue
        if _PACKAGING.match(text[match.end() :]) or text[: match.start()].endswith(" box "):
            continue
        return True
    return False
