"""The `gpu-advisor` command line."""

from __future__ import annotations

import json
import logging
from typing import Annotated

import typer

from services.cli import parse_page
from services.cli.api_keys import app as api_keys_app
from services.cli.match import match_titles
from services.cli.model import app as model_app
from services.cli.options import gpu_id
from services.cli.prices import app as prices_app
from services.cli.quotes import app as quotes_app
from services.cli.scrape import scrape
from services.cli.tco import app as tco_app
from shared.kit.settings import get_settings

app = typer.Typer(
    help="GPU Advisor: which GPUs to buy or rent, and what they cost.", no_args_is_help=True
)
db_app = typer.Typer(help="Database schema and bundled data.", no_args_is_help=True)
app.add_typer(db_app, name="db")
app.add_typer(model_app, name="model")
app.add_typer(prices_app, name="prices")
app.add_typer(api_keys_app, name="api-keys")
app.add_typer(tco_app, name="tco")
app.add_typer(quotes_app, name="quotes")
app.command("scrape")(scrape)
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

    settings = get_settings()
    migrate(settings.sqlalchemy_url, settings)
    typer.echo("schema at head")


@db_app.command("seed")
def db_seed() -> None:
    """Load the catalog and bundled prices, then recompute scores."""
    from services.cli.context import cli_context
    from shared.wiring.bootstrap import prepare_database

    with cli_context() as ctx:
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
    from shared.scoring.compute import recompute_scores

    ids = None if gpu is None else [gpu_id("gpu", g) for g in gpu]
    with cli_context() as ctx, ctx.session() as session:
        result = recompute_scores(session, ids, model=ctx.model, settings=ctx.settings)
    typer.echo(
        json.dumps({"gpus": len(result.gpu_ids), "rows": result.rows, "revision": result.revision})
    )


if __name__ == "__main__":
    app()
