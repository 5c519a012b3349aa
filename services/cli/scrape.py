"""`gpu-advisor scrape`: scrape sources now, with a progress bar and a summary table."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Annotated

import typer

from shared.sources.specs import SOURCE_INFO

# The scraper (every adapter, the fetch layer), rich's progress display and the database
# layer are imported when a scrape runs: `scrape --help` needs none of them.
if TYPE_CHECKING:
    from rich.console import Console
    from rich.table import Table

    from services.scraper.runner import FetcherFactory, RunReport
    from services.scraper.settings import ScraperSettings
    from shared.kit.context import Context

SUMMARY_COLUMNS = ("source", "status", "pages", "listings", "matched", "stored", "quarantined")


def scrape(
    source: Annotated[
        list[str] | None,
        typer.Option(
            "--source",
            help=f"source to scrape; repeat for several; default all ({', '.join(SOURCE_INFO)})",
        ),
    ] = None,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="fetch, parse and validate; store nothing")
    ] = False,
) -> None:
    """Scrape prices now and store them (scores are recomputed after each source commits)."""
    from services.cli.context import cli_context
    from services.scraper.page_cache import persistent_fetchers
    from services.scraper.registry import UnknownSource, get_source
    from services.scraper.runner import DRY_RUN, NOT_CONFIGURED, OK

    names = list(source or SOURCE_INFO)
    try:
        for name in names:
            get_source(name)
    except UnknownSource as exc:
        raise typer.BadParameter(str(exc), param_hint="--source") from exc
    scraper = get_scraper_settings()
    with cli_context() as ctx:
        reports = run_scrape(
            names,
            dry_run=dry_run,
            ctx=ctx,
            scraper_settings=scraper,
            fetcher_factory=persistent_fetchers(ctx.settings, scraper),
        )
    # A source left unconfigured (no API key) fails the command only when asked for by name.
    passing = {OK, DRY_RUN} if source else {OK, DRY_RUN, NOT_CONFIGURED}
    if any(report.status not in passing for report in reports):
        raise typer.Exit(code=1)


def get_scraper_settings() -> ScraperSettings:
    """The scraper's settings from the environment (tests replace this function)."""
    from services.scraper.settings import get_scraper_settings as from_environment

    return from_environment()


def run_scrape(
    names: Sequence[str],
    *,
    dry_run: bool,
    ctx: Context,
    scraper_settings: ScraperSettings,
    console: Console | None = None,
    fetcher_factory: FetcherFactory | None = None,
) -> list[RunReport]:
    """Run `names` with a live progress line each; print the summary table and notes."""
    from rich.console import Console
    from rich.progress import Progress, SpinnerColumn, TaskID, TextColumn, TimeElapsedColumn

    from services.scraper.fetch import Fetcher
    from services.scraper.runner import run_sources

    console = console or Console()
    columns = (SpinnerColumn(), TextColumn("{task.description}"), TimeElapsedColumn())
    with Progress(*columns, console=console, transient=False) as progress:
        tasks: dict[str, TaskID] = {
            name: progress.add_task(f"{name}: starting", total=None) for name in names
        }
        pages = dict.fromkeys(names, 0)

        def on_page(name: str, _url: str) -> None:
            pages[name] += 1
            progress.update(tasks[name], description=f"{name}: {pages[name]} pages")

        def on_done(report: RunReport) -> None:
            progress.update(
                tasks[report.source],
                description=f"{report.source}: {report.status}, {report.pages} pages",
                total=1,
                completed=1,
            )

        reports = run_sources(
            names,
            ctx=ctx,
            scraper_settings=scraper_settings,
            dry_run=dry_run,
            fetcher_factory=fetcher_factory or Fetcher,
            on_page=on_page,
            on_done=on_done,
        )
    console.print(summary_table(reports, dry_run=dry_run))
    for note in summary_notes(reports):
        console.print(note, highlight=False, markup=False)
    return reports


def summary_table(reports: Sequence[RunReport], *, dry_run: bool = False) -> Table:
    """Counts only, so the table fits 80 columns; errors and rejections follow it as
    lines that wrap (summary_notes)."""
    from rich.table import Table

    title = "scrape summary (dry run: nothing stored)" if dry_run else "scrape summary"
    table = Table(title=title)
    for column in SUMMARY_COLUMNS:
        table.add_column(column, justify="left" if column in ("source", "status") else "right")
    for r in reports:
        stored = r.cloud_offers if r.cloud_offers else r.stored
        table.add_row(
            r.source,
            r.status,
            str(r.pages),
            str(r.listings),
            str(r.matched),
            str(stored),
            str(r.quarantined),
        )
    return table


def summary_notes(reports: Sequence[RunReport]) -> list[str]:
    """One line per failed source (its error, which says what to fix), per source with
    stored auction bids and per source with rejected listings (counts by reason)."""
    notes = [_failure_note(r) for r in reports if r.error is not None]
    for r in reports:
        if r.bids:
            notes.append(
                f"{r.source}: {r.bids} of the stored prices are live auctions' current bids "
                "(measure bid: never a market price, never an alert)"
            )
        if r.rejected:
            reasons = ", ".join(f"{reason} {n}" for reason, n in sorted(r.rejected.items()))
            notes.append(f"{r.source} rejected: {reasons}")
    return notes


def _failure_note(report: RunReport) -> str:
    from services.scraper.runner import BLOCKED

    if report.status == BLOCKED:
        return (
            f"{report.source}: blocked: the site refused the scraper with a bot-check page; "
            f"nothing was read (this is not an empty search): {report.error}"
        )
    return f"{report.source}: {report.status}: {report.error}"
