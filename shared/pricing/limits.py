"""Bounds of a price, in a module of its own: request schemas (quotes, the price check)
state them without importing the intake's database layer."""

from __future__ import annotations

from decimal import Decimal

# The largest price per GPU the product accepts (a price, a quote, a check).
MAX_USD = Decimal("500000")
