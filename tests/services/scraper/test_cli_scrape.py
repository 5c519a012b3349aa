"""`gpu-advisor scrape` against the fixture server."""

from __future__ import annotations

import io

import typer
from rich.console import Console
from sqlmodel import Session, select
from typer.testing import CliRunner

from services.cli import scrape as scrape_cli
from shared.models import PriceObservation
from tests.services.scraper.fixture_server import reply
from tests.services.scraper.scrape_env import PATHS, ScrapeEnv


def test_run_scrape_prints_a_summary_table(scrape_env: ScrapeEnv) -> None:
    out = io.StringIO()
    reports = scrape_cli.run_scrape(
        ["ebay", "vast"],
        dry_run=False,
        ctx=scrape_env.ctx,
        scraper_settings=scrape_env.scraper,
        console=Console(file=out, width=200),
        fetcher_factory=scrape_env.fetcher,
    )
    assert [r.status for r in reports] == ["ok", "ok"]
    text = out.getvalue()
    assert "scrape summary" in text
    assert "normalize.for_parts 1" in text
    assert "ebay: ok, 2 pages" in text


def test_scrape_command(scrape_env: ScrapeEnv, monkeypatch) -> None:
    monkeypatch.setattr("services.cli.context.get_settings", lambda: scrape_env.settings)
    monkeypatch.setattr(scrape_cli, "get_scraper_settings", lambda: scrape_env.scraper)
    app = typer.Typer()
    app.command()(scrape_cli.scrape)
    app.command("noop")(lambda: None)  # two commands: `scrape` is then a subcommand
    runner = CliRunner()

    unknown = runner.invoke(app, ["scrape", "--source", "craigslist"])
    assert unknown.exit_code == 2 and "unknown source 'craigslist'" in unknown.output

    dry = runner.invoke(app, ["scrape", "--source", "newegg", "--dry-run"])
    assert dry.exit_code == 0, dry.output
    assert "dry run: nothing stored" in dry.output
    with Session(scrape_env.engine) as session:
        assert session.exec(select(PriceObservation)).first() is None

    scrape_env.server.route(PATHS["newegg"], reply(404, "gone"))
    failed = runner.invoke(app, ["scrape", "--source", "newegg"])
    assert failed.exit_code == 1


def test_the_summary_fits_80_columns_and_keeps_the_whole_error(scrape_env: ScrapeEnv) -> None:
    scrape_env.server.route(PATHS["newegg"], reply(404, "gone"))
    out = io.StringIO()
    reports = scrape_cli.run_scrape(
        ["ebay", "newegg"],
        dry_run=False,
        ctx=scrape_env.ctx,
        scraper_settings=scrape_env.scraper.model_copy(update={"max_retries": 0}),
        console=Console(file=out, width=80),
        fetcher_factory=scrape_env.fetcher,
    )
    failed = next(r for r in reports if r.source == "newegg")
    assert failed.error
    lines = out.getvalue().splitlines()
    assert max(len(line) for line in lines) <= 80
    # The error is printed whole (wrapped), not cut off by a table cell.
    assert failed.error.replace(" ", "") in "".join(lines).replace(" ", "")
    assert "ebay rejected:" in out.getvalue()
