"""The parse-speed bench runs each baseline adapter whole, as committed (no timings).

Its baselines once ran in today's tree and broke when a helper they imported was removed
(`_common.fast_soup`, an ImportError): each now imports its own revision's code only.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.parse_speed import PAGES, ROOT, SHIPPED, Variant, main, same_reading, tree_at

# The smaller real page: 60 listings in both readings.
PAGE = min(PAGES, key=lambda page: page.stat().st_size)


def _url(page: Path) -> str:
    from services.scraper.sources import ebay

    url = ebay.canonical_search_url(page.read_bytes())
    assert url is not None
    return ebay.as_sold_search(url) if "_sold_" in page.name else url


def test_a_baseline_imports_its_own_revisions_helpers(tmp_path: Path) -> None:
    """58cd930's adapter imports `fast_soup`, which today's `_common` no longer has; from
    its own tree it loads and reads the page as the shipped adapter does."""
    tree = tree_at("58cd930", tmp_path)
    assert "def fast_soup" in (tree / "services/scraper/sources/_common.py").read_text()
    old, new = Variant("58cd930", tree), Variant(SHIPPED, ROOT)
    try:
        theirs = old.parse(PAGE, _url(PAGE), listings=True)
        ours = new.parse(PAGE, _url(PAGE), listings=True)
    finally:
        old.close()
        new.close()
    assert theirs["count"] == ours["count"] == 60
    assert same_reading(theirs["listings"], ours["listings"])
    assert theirs["seconds"] > 0 and ours["seconds"] > 0


def test_an_unknown_revision_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(SystemExit, match="cannot read revision 0000000"):
        tree_at("0000000", tmp_path)


def test_readings_differ_on_a_shared_field_or_a_count_only() -> None:
    old = [{"title": "RTX 3090", "price": "700"}]
    assert same_reading(old, [{"title": "RTX 3090", "price": "700", "new_field": 1}])
    assert not same_reading(old, [{"title": "RTX 3090", "price": "701"}])
    assert not same_reading(old, old * 2)


def test_one_quick_run_reports_every_adapter(capsys: pytest.CaptureFixture[str]) -> None:
    main(["--runs", "1", str(PAGE)])
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == f"{PAGE.name}: {PAGE.stat().st_size / 1e6:.2f} MB, 60 listings"
    timed = [line.split()[0] for line in lines if "listings/s" in line]
    assert timed == ["666d627", "58cd930", SHIPPED]
    # The oldest adapter predates the real pages: the bench says it reads them otherwise.
    assert "  (666d627 reads some of these cards differently: older rules)" in lines
