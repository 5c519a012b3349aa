"""Bot-check pages: a site refusing us, served in place of the page asked for.

A block page is neither a page without listings nor a changed layout: the source is
refusing the scraper. The fetch layer raises `Blocked` for one (whatever its HTTP
status), the run is recorded as `blocked` (GET /sources), and `gpu-advisor parse-page`
says so for a saved one. Recognized by the page title, which is all a block page is
sure to keep; each title below was read on a real captured block page
(tests/services/scraper/samples/blocks/PROVENANCE.md).
"""

from __future__ import annotations

import re

# <title>, lower case and without a trailing ellipsis -> who is blocking.
BLOCK_TITLES = {
    # eBay's own bot check ("Checking your browser before you access eBay.").
    "pardon our interruption": "eBay's bot check",
    # PerimeterX (HUMAN) "press and hold" challenge, as served by Walmart.
    "robot or human?": "a PerimeterX bot check",
}
# Block pages are small; a title further in than this belongs to a real page.
_HEAD_BYTES = 65536
_TITLE = re.compile(rb"<title\b[^>]*>(.*?)</title\s*>", re.IGNORECASE | re.DOTALL)


def block_page(body: bytes | str) -> str | None:
    """What refused us ('eBay's bot check page "Pardon Our Interruption..."'), or None
    when the page is not a known block page."""
    head = body[:_HEAD_BYTES]
    data = head.encode("utf-8", "replace") if isinstance(head, str) else head
    match = _TITLE.search(data)
    if match is None:
        return None
    title = " ".join(match.group(1).decode("utf-8", "replace").split())
    who = BLOCK_TITLES.get(title.lower().rstrip(".… "))
    return None if who is None else f'{who} page "{title}"'
