"""What a normalised title says besides the GPU model: what is sold (laptop, system,
accessory), in which condition, how many cards, and the stated memory sizes and form factors.

Each is read by its own module: what is sold (`listing_kind.py`), its condition
(`condition.py`), how many cards and the stated sizes and forms (`amounts.py`); this one
turns the first two into a rejection reason.
"""

from __future__ import annotations

from shared.matching.condition import is_broken
from shared.matching.listing_kind import is_accessory, is_accessory_only, is_laptop, is_system

FOR_PARTS = "for_parts"
LAPTOP = "laptop"
SYSTEM = "system"
ACCESSORY = "accessory"


def rejection(text: str, *, names_gpu: bool) -> str | None:
    """Rejection reason from what is sold and its condition, None for a working card."""
    if is_accessory_only(text, names_gpu=names_gpu):
        return ACCESSORY
    if is_laptop(text):
        return LAPTOP
    if is_system(text, names_gpu=names_gpu):
        return SYSTEM
    if is_accessory(text):
        return ACCESSORY
    if is_broken(text):
        return FOR_PARTS
    return None
