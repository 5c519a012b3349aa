"""eBay adapter parse speed on the real captured result pages, per core.

Times the shipped adapter against the adapter as committed at earlier revisions, parsing
each page N times per variant, interleaved so that a noisy shared machine slows them
alike. Prints listings per CPU-second (median run) and each variant's ratio to the first
baseline, all measured in the same run. Nothing is asserted about time.

    .venv/bin/python bench/parse_speed.py                       # pages in real_full/
    .venv/bin/python bench/parse_speed.py --runs 20 page.html
    .venv/bin/python bench/parse_speed.py --against 666d627 --against 58cd930

Default baselines: 666d627, the adapter before it was checked against real pages
(BeautifulSoup with html.parser), and 58cd930 (the results
column cut out, BeautifulSoup over lxml). The shipped adapter builds the tree with lxml
directly. An older revision may read some cards by older rules; the script says so.

Each variant runs whole as committed: `services/` and `shared/` at its revision
(`git archive`, so the adapter's helpers are the ones it was written against; a helper
removed later cannot break it) in a process of its own, with the installed third-party
packages (constraints.txt). The shipped adapter runs the same way from the working tree.
The parent sends each parse request in turn and each process times only its parse
(`time.process_time`), so the pipes are not counted. Needs the git history of the
baselines (a full clone).
"""

from __future__ import annotations

import argparse
import dataclasses
import io
import json
import statistics
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path
from typing import IO, Any

ROOT = Path(__file__).resolve().parent.parent
PAGES = sorted((ROOT / "tests/services/scraper/samples/ebay/real_full").glob("*.html"))
ADAPTER_MODULE = "services.scraper.sources.ebay"
BASELINES = ("666d627", "58cd930")
SHIPPED = "shipped"
WORKER_FLAG = "--worker"


def tree_at(revision: str, into: Path) -> Path:
    """`services/` and `shared/` as committed at `revision`, extracted under `into`."""
    archive = subprocess.run(
        ["git", "archive", "--format=tar", revision, "services", "shared"],
        cwd=ROOT,
        capture_output=True,
        check=False,
    )
    if archive.returncode != 0:
        error = archive.stderr.decode(errors="replace").strip()
        raise SystemExit(f"cannot read revision {revision} (a full clone is needed): {error}")
    tree = into / revision
    with tarfile.open(fileobj=io.BytesIO(archive.stdout)) as tar:
        tar.extractall(tree, filter="data")
    return tree


class Variant:
    """One adapter in a process of its own, importing its code from `tree` only."""

    def __init__(self, name: str, tree: Path) -> None:
        self.name = name
        self.tree = tree.resolve()
        self._process = subprocess.Popen(
            [sys.executable, str(Path(__file__).resolve()), WORKER_FLAG, str(self.tree)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        ready = self._read()
        adapter_file = Path(ready["adapter_file"]).resolve()
        if not adapter_file.is_relative_to(self.tree):
            self.close()
            raise RuntimeError(f"{name}: the adapter came from {adapter_file}, not {self.tree}")

    def parse(self, page: Path, url: str, *, listings: bool = False) -> dict[str, Any]:
        """{"seconds": CPU time of one parse, "count": listings, "listings": [...]}."""
        request = {"page": str(page), "url": url, "listings": listings}
        self._pipe(self._process.stdin).write(json.dumps(request) + "\n")
        self._pipe(self._process.stdin).flush()
        return self._read()

    def close(self) -> None:
        self._pipe(self._process.stdin).close()
        self._process.wait(timeout=30)
        self._pipe(self._process.stdout).close()

    def _read(self) -> dict[str, Any]:
        line = self._pipe(self._process.stdout).readline()
        if not line:
            code = self._process.wait(timeout=30)
            self._pipe(self._process.stdout).close()
            raise RuntimeError(f"the {self.name} adapter's process ended (exit {code})")
        found: dict[str, Any] = json.loads(line)
        return found

    @staticmethod
    def _pipe(stream: IO[str] | None) -> IO[str]:
        assert stream is not None
        return stream


def worker(tree: Path) -> None:
    """Parse the pages the parent names, one JSON request per line, timing each parse."""
    import importlib
    import time

    sys.path.insert(0, str(tree))
    adapter = importlib.import_module(ADAPTER_MODULE)
    print(json.dumps({"adapter_file": adapter.__file__}), flush=True)
    bodies: dict[str, bytes] = {}
    for line in sys.stdin:
        request = json.loads(line)
        body = bodies.get(request["page"])
        if body is None:
            body = bodies[request["page"]] = Path(request["page"]).read_bytes()
        start = time.process_time()
        parsed = adapter.parse(body, request["url"])
        seconds = time.process_time() - start
        answer: dict[str, Any] = {"seconds": seconds, "count": len(parsed)}
        if request["listings"]:
            answer["listings"] = [dataclasses.asdict(item) for item in parsed]
        print(json.dumps(answer, default=str), flush=True)


def _url(page: Path, body: bytes) -> str:
    """The page's own search URL, marked sold when its cards say "Sold"."""
    from services.scraper.sources import ebay

    url = ebay.canonical_search_url(body) or "https://www.ebay.com/sch/i.html?_nkw=x"
    return ebay.as_sold_search(url) if "_sold_" in page.name else url


def same_reading(old: list[dict[str, Any]], new: list[dict[str, Any]]) -> bool:
    """Whether two revisions read the page alike, on the fields both of them have."""
    if len(old) != len(new):
        return False
    for a, b in zip(old, new, strict=True):
        shared = a.keys() & b.keys()
        if any(a[key] != b[key] for key in shared):
            return False
    return True


def _time_page(variants: list[Variant], page: Path, url: str, runs: int) -> dict[str, float]:
    times: dict[str, list[float]] = {v.name: [] for v in variants}
    for _ in range(runs):
        for variant in variants:
            times[variant.name].append(variant.parse(page, url)["seconds"])
    return {name: statistics.median(samples) for name, samples in times.items()}


def measure(pages: list[Path], baselines: list[str], runs: int, scratch: Path) -> None:
    sys.path.insert(0, str(ROOT))
    variants: list[Variant] = []
    try:
        for rev in baselines:
            variants.append(Variant(rev, tree_at(rev, scratch)))
        variants.append(Variant(SHIPPED, ROOT))
        _report(variants, pages, baselines[0], runs)
    finally:
        for variant in variants:
            variant.close()


def _report(variants: list[Variant], pages: list[Path], first: str, runs: int) -> None:
    shipped = variants[-1]
    totals = {v.name: 0.0 for v in variants}
    listed = 0
    for page in pages:
        body = page.read_bytes()
        url = _url(page, body)
        reading = shipped.parse(page, url, listings=True)
        listed += reading["count"]
        print(f"{page.name}: {len(body) / 1e6:.2f} MB, {reading['count']} listings")
        for variant in variants[:-1]:
            theirs = variant.parse(page, url, listings=True)
            if not same_reading(theirs["listings"], reading["listings"]):
                print(f"  ({variant.name} reads some of these cards differently: older rules)")
        medians = _time_page(variants, page, url, runs)
        for name, median in medians.items():
            totals[name] += median
            print(
                f"  {name:8} {median * 1000:7.1f} ms"
                f"  {reading['count'] / median:7.0f} listings/s"
                f"  x{medians[first] / median:5.2f} vs {first}"
            )
    if len(pages) > 1:
        print(f"all pages: {listed} listings")
        for name, total in totals.items():
            ratio = totals[first] / total
            print(f"  {name:8} {listed / total:7.0f} listings/s  x{ratio:5.2f} vs {first}")


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == [WORKER_FLAG]:
        worker(Path(argv[1]))
        return
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("pages", nargs="*", type=Path, default=PAGES)
    parser.add_argument("--runs", type=int, default=10, help="parses per page and variant")
    parser.add_argument("--against", metavar="REV", action="append", help="baseline revision")
    args = parser.parse_args(argv)
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    baselines = args.against or list(BASELINES)
    pages = [page.resolve() for page in args.pages]
    with tempfile.TemporaryDirectory(prefix="parse-speed-") as scratch:
        measure(pages, baselines, args.runs, Path(scratch))


if __name__ == "__main__":
    main()
