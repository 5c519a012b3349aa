"""CSV cells that a spreadsheet would run as formulas are written as text."""

from __future__ import annotations

import csv
import io
from decimal import Decimal

import pytest

from shared.kit.spreadsheet import csv_text, safe_cell


@pytest.mark.parametrize(
    "text",
    ["=1+1", '=HYPERLINK("http://x","y")', "+1", "-2+3", "@SUM(A1)", "\t=1", "\r=1"],
)
def test_formula_starts_are_quoted(text: str) -> None:
    assert safe_cell(text) == "'" + text


@pytest.mark.parametrize("value", ["RTX 3090", "a=b", "", -3, -2.5, Decimal("-1.00"), None])
def test_plain_text_and_numbers_are_unchanged(value: object) -> None:
    assert safe_cell(value) == value


def test_csv_text_reads_back_with_every_cell_inert() -> None:
    text = csv_text(("item", "total_usd"), [{"item": "=cmd|'/c calc'!A0", "total_usd": -5}, {}])
    rows = list(csv.DictReader(io.StringIO(text)))
    assert rows == [
        {"item": "'=cmd|'/c calc'!A0", "total_usd": "-5"},
        {"item": "", "total_usd": ""},
    ]
