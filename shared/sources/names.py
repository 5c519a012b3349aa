"""The names of the scraper's sources: the vocabulary of `source` filters and schedules.

Each is one module of services/scraper/sources/, which the scraper's registry discovers
(and orders as listed here); a test keeps the two in step. Kept here so the API can tell
a source that has no prices yet (an empty answer) from a misspelt one (a 422), without
importing the scraper.
"""

from __future__ import annotations

SCRAPED_SOURCES = ("ebay", "ebay_browse", "newegg", "bhphoto", "azure", "aws", "vast", "lambda")
