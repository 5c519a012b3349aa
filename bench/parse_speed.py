"""eBay adapter parse speed on the real captured result pages, per core.

Times the shipped adapter against the adapter as committed at earlier revisions, parsing
each page N times per variant, interleaved so that a noisy shared machine slows them
alike. Prints listings per CPU-second (median run) and each variant's ratio to the first
baseline, all measured in the same run. Nothing is asserted about time.

    .venv/bin/python bench/parse_speed.py                       # pages in real_full/
    .venv/bin/python bench/parse_speed.py --runs 20 page.html
    .venv/bin/python bench/parse_speed.py --against 666d627 --against 58cd930

Default baselines: 666d627, the adapter before it was checked against real pages
(BeautifulSoup with html.parser, 296 ms for a 3 MB page), and 58cd930 (the results
column cut out, BeautifulSoup over lxml). The shipped adapter builds the tree with lxml
directly. An older revision may read some cards by older rules; the script says so.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
import types
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from services.scraper.listing import RawListing  # noqa: E402
from services.scraper.sources import ebay  # noqa: E402

PAGES = sorted((ROOT / "tests/services/scraper/samples/ebay/real_full").glob("*.html"))
ADAPTER = "services/scraper/sources/ebay.py"
BASELINES = ("666d627", "58cd930")
Parse = Callable[[bytes, str], list[RawListing]]


def _adapter_at(revision: str) -> Parse:
    """`parse` of the eBay adapter as committed at `revision` (imports from today's tree)."""
    source = subprocess.run(
        ["git", "show", f"{revision}:{ADAPTER}"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    module = types.ModuleType(f"ebay_at_{revision}")
    sys.modules[module.__name__] = module  # dataclasses look their module up by name
    exec(compile(source, f"{revision}:{ADAPTER}", "exec"), module.__dict__)
    parse: Parse = module.parse
    return parse


def _url(page: Path, body: bytes) -> str:
    """The page's own search URL, marked sold when its cards say "Sold"."""
    url = ebay.canonical_search_url(body) or "https://www.ebay.com/sch/i.html?_nkw=x"
    return ebay.as_sold_search(url) if "_sold_" in page.name else url


def _time_page(variants: dict[str, Parse], body: bytes, url: str, runs: int) -> dict[str, float]:
    times: dict[str, list[float]] = {name: [] for name in variants}
    for _ in range(runs):
        for name, parse in variants.items():
            start = time.process_time()
            parse(body, url)
            times[name].append(time.process_time() - start)
    return {name: statistics.median(samples) for name, samples in times.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pages", nargs="*", type=Path, default=PAGES)
    parser.add_argument("--runs", type=int, default=10, help="parses per page and variant")
    parser.add_argument("--against", metavar="REV", action="append", help="baseline revision")
    args = parser.parse_args()
    baselines = args.against or list(BASELINES)
    variants: dict[str, Parse] = {rev: _adapter_at(rev) for rev in baselines}
    variants["shipped"] = ebay.parse
    first = baselines[0]
    totals = dict.fromkeys(variants, 0.0)
    listed = 0
    for page in args.pages:
        body = page.read_bytes()
        url = _url(page, body)
        shipped = ebay.parse(body, url)
        listed += len(shipped)
        print(f"{page.name}: {len(body) / 1e6:.2f} MB, {len(shipped)} listings")
        for rev in baselines:
            if variants[rev](body, url) != shipped:
                print(f"  ({rev} reads some of these cards differently: older rules)")
        medians = _time_page(variants, body, url, args.runs)
        for name, median in medians.items():
            totals[name] += median
            print(
                f"  {name:8} {median * 1000:7.1f} ms  {len(shipped) / median:7.0f} listings/s"
                f"  x{medians[first] / median:5.2f} vs {first}"
            )
    if len(args.pages) > 1:
        print(f"all pages: {listed} listings")
        for name, total in totals.items():
            ratio = totals[first] / total
            print(f"  {name:8} {listed / total:7.0f} listings/s  x{ratio:5.2f} vs {first}")


if __name__ == "__main__":
    main()
