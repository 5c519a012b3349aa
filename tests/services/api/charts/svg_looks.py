"""Reading a chart SVG's series back (both renderers' images name them alike)."""

from __future__ import annotations

import xml.etree.ElementTree as ET

SVG = "{http://www.w3.org/2000/svg}"


def style(element: ET.Element) -> dict[str, str]:
    """An element's inline style as a dict."""
    pairs = (item.split(":", 1) for item in element.get("style", "").split(";") if ":" in item)
    return {key.strip(): value.strip() for key, value in pairs}


def series_look(root: ET.Element, index: int, condition: str = "used") -> tuple[str, str]:
    """(stroke colour, dash pattern or "solid") of series `index`'s line."""
    group = root.find(f".//{SVG}g[@id='series-{index}-{condition}']")
    assert group is not None
    path = group.find(f"{SVG}path")
    assert path is not None
    looks = style(path)
    return looks["stroke"], looks.get("stroke-dasharray", "solid")
