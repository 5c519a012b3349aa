"""The names of the scraper's sources: the vocabulary of `source` filters and schedules.

Kept apart from the sources' specs (shared/sources/specs.py, where they are written) for
the API, which tells a source that has no prices yet (an empty answer) from a misspelt one
(a 422) without importing the scraper.
"""

from __future__ import annotations

from shared.sources.specs import SOURCE_INFO

SCRAPED_SOURCES = tuple(SOURCE_INFO)
