"""CSV that a spreadsheet opens as data, never as formulas (CSV/formula injection).

Excel, LibreOffice and Google Sheets evaluate a cell whose text starts with = + - or @
(and, in some, after a leading tab or carriage return) as a formula, so free text a user
typed (a quote's label) could run as one when a buyer opens the export. OWASP's remedy:
prefix such a text cell with a single quote, which spreadsheets show as text. Numbers are
written as they are: a negative price is a number, not a formula.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def safe_cell(value: Any) -> Any:
    """The value, with a text cell that a spreadsheet would read as a formula quoted."""
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value


def csv_text(columns: Sequence[str], rows: Iterable[Mapping[str, Any]]) -> str:
    """A header and one line per row (missing keys and None empty), every cell safe."""
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=list(columns), extrasaction="ignore")
    writer.writeheader()
    for row in rows:
        writer.writerow({k: safe_cell("" if row.get(k) is None else row[k]) for k in columns})
    return buffer.getvalue()
