"""The `gpu-advisor` command line.

Starting it imports typer and little else: commands import what they use when they run,
and the subcommands whose options come from request schemas (or whose modules import the
scraper) are loaded only when invoked (services/cli/lazy.py).
"""

from __future__ import annotations

import json
import logging
from typing import Annotated

import typer

from services.cli import parse_page
from services.cli.lazy import Group, Lazy, lazy_group
from services.cli.match import match_titles

LAZY = {
    "scrape": Lazy(
        "services.cli.scrape",
        "scrape",
        "Scrape prices now and store them (scores are recomputed after each source commits).",
    ),
    "recommend": Lazy(
        "services.cli.recommend",
        "recommend",
        "The GPUs with the best performance per dollar for a workload, as GET /recommend "
        "ranks them.",
    ),
    "model": Lazy("services.cli.model", "app", "The calibrated performance model."),
    "prices": Lazy("services.cli.prices", "app", "Prices that do not come from the scraper."),
    "api-keys": Lazy(
        "services.cli.api_keys", "app", "API keys for write endpoints (alerts, prices)."
    ),
    "tco": Lazy("services.cli.tco", "app", "Total cost of owning GPUs versus renting them."),
    "quotes": Lazy(
        "services.cli.quotes", "app", "Cluster quotes: bills of materials for multi-GPU builds."
    ),
}
# The order of `gpu-advisor --help`: commands, then groups, as typer listed them.
ORDER = (
    "scrape",
    "parse-page",
    "match-titles",
    "recommend",
    "serve",
    "recompute",
    "db",
    "model",
    "prices",
    "api-keys",
    "tco",
    "quotes",
)

app = typer.Typer(
    help="GPU Advisor: which GPUs to buy or rent, and what they cost.",
    no_args_is_help=True,
    cls=lazy_group(LAZY, ORDER),
)
db_app = typer.Typer(help="Database schema and bundled data.", no_args_is_help=True, cls=Group)
app.add_typer(db_app, name="db")
app.command("parse-page", help=parse_page.HELP)(parse_page.parse_page)
app.command("match-titles", help="Match listing titles (one per line on stdin) to GPU ids.")(
    match_titles
)


@app.command()
def serve(
    host: Annotated[str, typer.Option(help="interface to bind")] = "127.0.0.1",
    port: Annotated[int, typer.Option(envvar="PORT", help="TCP port")] = 8000,
    workers: Annotated[int, typer.Option(help="uvicorn worker processes")] = 1,
) -> None:
    """Serve the API (migrates and loads the bundled data on start)."""
    import uvicorn

    from shared.kit.settings import get_settings

    settings = get_settings()
    if workers > 1 and not settings.broker_url:
        # Each process would run its own scheduler, rate-limit counts and in-process
        # jobs against one SQLite file: duplicate webhooks, doubled limits, a racing
        # first migration. A broker (Redis) shares that state.
        typer.echo(
            "error: --workers > 1 needs a broker (GPU_ADVISOR_BROKER_URL, Redis) and "
            "Celery workers; the embedded default serves with one process",
            err=True,
        )
        raise typer.Exit(2)

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s %(message)s")
    from services.api.server import StallGuard

    uvicorn.run(
        "services.api.app:create_app",
        factory=True,
        host=host,
        port=port,
        workers=workers,
        log_level="info",
        http=StallGuard,
        # The app decides whom X-Forwarded-For may come from (GPU_ADVISOR_TRUSTED_PROXIES);
        # uvicorn's default would trust it from any local process.
        proxy_headers=False,
    )


@db_app.command("upgrade")
def db_upgrade() -> None:
    """Apply the Alembic migrations."""
    from shared.kit.db import migrate
    from shared.kit.settings import get_settings

    settings = get_settings()
    migrate(settings.sqlalchemy_url, settings)
    typer.echo("schema at head")


@db_app.command("seed")
def db_seed() -> None:
    """Load the catalog and bundled prices, then recompute scores."""
    from services.cli.context import cli_context
    from shared.wiring.bootstrap import prepare_database

    with cli_context(prepare=False) as ctx:
        prepare_database(ctx)
    typer.echo("catalog, bundled prices and scores are up to date")


@app.command()
def recompute(
    gpu: Annotated[
        list[str] | None, typer.Option(help="catalog id or known alias; repeat; default all")
    ] = None,
) -> None:
    """Recompute the perf-per-dollar scores."""
    from services.cli.context import cli_context
    from services.cli.options import gpu_id
    from shared.scoring.compute import recompute_scores

    ids = None if gpu is None else [gpu_id("gpu", g) for g in gpu]
    with cli_context() as ctx, ctx.session() as session:
        result = recompute_scores(session, ids, model=ctx.model, settings=ctx.settings)
    typer.echo(
        json.dumps({"gpus": len(result.gpu_ids), "rows": result.rows, "revision": result.revision})
    )


if __name__ == "__main__":
    app()
