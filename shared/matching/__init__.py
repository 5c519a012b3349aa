"""Listing-title matching: which catalog GPU a marketplace listing sells."""

from shared.matching.titles import TitleMatch, match_title, resolve_gpu_name

__all__ = ["TitleMatch", "match_title", "resolve_gpu_name"]
