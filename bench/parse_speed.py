"""eBay adapter parse speed on the real captured result pages, per core.

Parses each page N times with each variant, interleaved so that a noisy shared machine
slows them alike, and prints listings per CPU-second (median run) and each variant's
ratio to the html.parser baseline measured in the same run. The variants must give the
same listings (the --against revision may read cards by older rules); the script stops
if they do not. Nothing is asserted about time.

    .venv/bin/python bench/parse_speed.py                 # the pages in real_full/
    .venv/bin/python bench/parse_speed.py --runs 20 page.html
    .venv/bin/python bench/parse_speed.py --against 666d627   # also the adapter at a commit

Variants: "html.parser" the whole page through html.parser (the baseline), "lxml" the
whole page through lxml, "shipped" `ebay.parse` (results cut out of the page, then lxml);
with --against, "REV" is `ebay.parse` as it was at that git revision.
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

from bs4 import BeautifulSoup

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from services.scraper.listing import RawListing  # noqa: E402
from services.scraper.sources import ebay  # noqa: E402
from services.scraper.sources._common import decode_markup, fast_soup  # noqa: E402

PAGES = sorted((ROOT / "tests/services/scraper/samples/ebay/real_full").glob("*.html"))
ADAPTER = "services/scraper/sources/ebay.py"
Parse = Callable[[bytes, str], list[RawListing]]


def _html_parser(body: bytes, url: str) -> list[RawListing]:
    return ebay.parse_soup(BeautifulSoup(decode_markup(body), "html.parser"), url)


def _lxml(body: bytes, url: str) -> list[RawListing]:
    return ebay.parse_soup(fast_soup(decode_markup(body)), url)


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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pages", nargs="*", type=Path, default=PAGES)
    parser.add_argument("--runs", type=int, default=10, help="parses per page and variant")
    parser.add_argument("--against", metavar="REV", help="also time the adapter at REV")
    args = parser.parse_args()

    variants: dict[str, Parse] = {
        "html.parser": _html_parser,
        "lxml": _lxml,
        "shipped": ebay.parse,
    }
    if args.against:
        variants[args.against] = _adapter_at(args.against)

    totals = dict.fromkeys(variants, 0.0)
    listed = 0
    for page in args.pages:
        body = page.read_bytes()
        url = _url(page, body)
        found = {name: parse(body, url) for name, parse in variants.items()}
        reference = found["html.parser"]
        for name in ("lxml", "shipped"):
            if found[name] != reference:
                sys.exit(f"{page.name}: {name} gives other listings than html.parser")
        times: dict[str, list[float]] = {name: [] for name in variants}
        for _ in range(args.runs):
            for name, parse in variants.items():
                start = time.process_time()
                parse(body, url)
                times[name].append(time.process_time() - start)
        count = len(reference)
        listed += count
        print(f"{page.name}: {len(body) / 1e6:.2f} MB, {count} listings (same in every variant)")
        if args.against and found[args.against] != reference:
            print(f"  ({args.against} reads these cards differently: older rules)")
        base = statistics.median(times["html.parser"])
        for name, samples in times.items():
            median = statistics.median(samples)
            totals[name] += median
            print(
                f"  {name:12} {median * 1000:7.1f} ms  {count / median:7.0f} listings/s"
                f"  x{base / median:5.2f} vs html.parser"
            )
    if len(args.pages) > 1:
        print(f"all pages: {listed} listings")
        for name, total in totals.items():
            ratio = totals["html.parser"] / total
            print(f"  {name:12} {listed / total:7.0f} listings/s  x{ratio:5.2f} vs html.parser")


if __name__ == "__main__":
    main()
