"""`gpu-advisor quotes`: cluster quotes, comparisons, the standard builds, CSV export."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer

from services.cli.lazy import Lazy, lazy_group
from services.cli.options import fail, gpu_id, invalid

# The commands import the quotes domain and the database layer when they run: the
# group's --help needs none of it.
CLUSTER = Lazy(
    "services.cli.quotes_cluster", "cluster", "Compute and store a quote; prints it with its id."
)
app = typer.Typer(
    help="Cluster quotes: bills of materials for multi-GPU builds.",
    no_args_is_help=True,
    cls=lazy_group(
        {"cluster": CLUSTER}, ("cluster", "compare", "show", "list", "recompute-standard")
    ),
)


def echo_json(document: dict[str, Any]) -> None:
    typer.echo(json.dumps(document, default=str, indent=2))


@app.command("compare")
def compare(
    file: Annotated[Path, typer.Argument(help='JSON: {"candidates": [{"gpu": ..., ...}], ...}')],
) -> None:
    """Compare candidate builds (same body as POST /quotes/compare)."""
    from pydantic import ValidationError

    from services.cli.context import cli_context
    from shared.kit.errors import InputError
    from shared.quotes import store
    from shared.quotes.compare import create_compare
    from shared.quotes.request import compare_with_catalog_ids
    from shared.quotes.schemas import CompareRequest

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
            echo_json(store.document(create_compare(session, req, ctx.settings, ctx.model)))
    except InputError as exc:
        raise fail(str(exc), exc.valid) from None


@app.command("show")
def show(
    quote_id: Annotated[str, typer.Argument()],
    csv: Annotated[bool, typer.Option("--csv", help="the bill of materials as CSV")] = False,
) -> None:
    from services.cli.context import cli_context
    from shared.quotes import store

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
    from services.cli.context import cli_context
    from shared.quotes import store

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
    from services.cli.context import cli_context
    from shared.quotes.jobs import recompute_standard_quotes

    ids = None if not gpu else [gpu_id("gpu", g) for g in gpu]
    with cli_context() as ctx, ctx.session() as session:
        echo_json(recompute_standard_quotes(session, ids, ctx.settings, ctx.model))
