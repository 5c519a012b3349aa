"""`gpu-advisor quotes`: cluster quotes, comparisons, the standard builds, CSV export."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer
from pydantic import ValidationError

from services.cli.context import cli_context
from services.cli.options import fail, gpu_id, invalid, schema_options
from shared.kit.errors import InputError
from shared.quotes import store
from shared.quotes.compare import create_compare
from shared.quotes.jobs import recompute_standard_quotes
from shared.quotes.request import cluster_with_catalog_ids, compare_with_catalog_ids, validate
from shared.quotes.schemas import ClusterRequest, CompareRequest

app = typer.Typer(
    help="Cluster quotes: bills of materials for multi-GPU builds.", no_args_is_help=True
)


def _echo(document: dict[str, Any]) -> None:
    typer.echo(json.dumps(document, default=str, indent=2))


@app.command("cluster")
@schema_options(ClusterRequest, exclude=("additional_gpus",))  # POST /quotes/cluster's fields
def cluster(req: ClusterRequest) -> None:
    """Compute and store a quote; prints it with its id."""
    try:
        req = cluster_with_catalog_ids(req)
        validate(req)  # before opening a session: bad input never touches the database
        with cli_context() as ctx, ctx.session() as session:
            _echo(store.document(store.create_cluster_quote(session, req, ctx.settings, ctx.model)))
    except InputError as exc:
        raise fail(str(exc), exc.valid) from None


@app.command("compare")
def compare(
    file: Annotated[Path, typer.Argument(help='JSON: {"candidates": [{"gpu": ..., ...}], ...}')],
) -> None:
    """Compare candidate builds (same body as POST /quotes/compare)."""
    try:
        req = CompareRequest.model_validate_json(file.read_text("utf-8"))
    except ValidationError as exc:
        first = exc.errors()[0]
        if first["type"] == "json_invalid":
            raise fail(f"file: {first['msg']}") from None
        raise invalid(CompareRequest, exc) from None
    except OSError as exc:
        raise fail(f"file: {exc}") from None
    try:
        req = compare_with_catalog_ids(req)
        with cli_context() as ctx, ctx.session() as session:
            _echo(store.document(create_compare(session, req, ctx.settings, ctx.model)))
    except InputError as exc:
        raise fail(str(exc), exc.valid) from None


@app.command("show")
def show(
    quote_id: Annotated[str, typer.Argument()],
    csv: Annotated[bool, typer.Option("--csv", help="the bill of materials as CSV")] = False,
) -> None:
    with cli_context() as ctx, ctx.session() as session:
        quote = store.get_quote(session, quote_id)
        if quote is None:
            raise fail(f"quote_id: unknown quote {quote_id!r}")
        typer.echo(
            store.bom_csv(quote)
            if csv
            else json.dumps(store.document(quote), default=str, indent=2)
        )


@app.command("list")
def list_quotes(
    standard: Annotated[bool, typer.Option(help="the standard builds")] = False,
    limit: Annotated[int, typer.Option()] = 20,
) -> None:
    """Every stored quote, whoever made it (the API lists only standard and own quotes):
    id, kind or standard key, total, owner (`standard`, `key:<id>` or `anonymous`) and
    the GPUs it prices."""
    with cli_context() as ctx, ctx.session() as session:
        for quote in store.list_quotes(session, standard, limit, 0):
            label = quote.standard_key or quote.kind
            owner = store.owner_label(quote)
            gpus = quote.gpu_ids or "-"
            typer.echo(f"{quote.id}  {label}  ${quote.total_usd}  {owner}  {gpus}")


@app.command("recompute-standard")
def recompute_standard(
    gpu: Annotated[list[str] | None, typer.Option(help="only builds using these GPUs")] = None,
) -> None:
    """Recompute the standard quotes now (the workers do it when prices change)."""
    ids = None if not gpu else [gpu_id("gpu", g) for g in gpu]
    with cli_context() as ctx, ctx.session() as session:
        _echo(recompute_standard_quotes(session, ids, ctx.settings, ctx.model))
