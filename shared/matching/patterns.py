"""The regular-expression helper the title keyword lists are written with."""

from __future__ import annotations

import re


def words(*alternatives: str) -> re.Pattern[str]:
    return re.compile(r"\b(?:" + "|".join(alternatives) + r")\b")
