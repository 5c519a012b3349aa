"""Text that may not be stored, one rule each for what users send and what we scrape."""

from __future__ import annotations

import re

# NUL (PostgreSQL refuses it in text) and the UTF-16 surrogates that are not characters
# on their own (lone ones cannot be encoded or stored).
UNSTORABLE = re.compile("[\x00\ud800-\udfff]")
# Scraped titles, ids and URLs: that, and every other C0 and C1 control character but
# tab, newline and carriage return (none belongs there; seen only in broken pages).
UNSAFE_SCRAPED = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff]")
