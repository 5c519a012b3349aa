"""`gpu-advisor quotes`: cluster quotes, comparisons, the standard builds, CSV export."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path
from typing import Annotated, Any

import typer

from services.cli.context import cli_context
from services.cli.tco import decimal, fail, gpu_id
from shared.quotes import store
from shared.quotes.compare import Candidate, CompareRequest, create_compare
from shared.quotes.jobs import recompute_standard_quotes
from shared.quotes.request import ClusterRequest, validate
from shared.tco.request import TcoInputError

app = typer.Typer(
    help="Cluster quotes: bills of materials for multi-GPU builds.", no_args_is_help=True
)


def _echo(document: dict[str, Any]) -> None:
    typer.echo(json.dumps(document, default=str, indent=2))


@app.command("cluster")
def cluster(
    gpu: Annotated[str, typer.Option(help="catalog id or name")],
    count: Annotated[int | None, typer.Option()] = None,
    target_relative_throughput: Annotated[float | None, typer.Option()] = None,
    memory_gb: Annotated[float | None, typer.Option(help="total GPU memory")] = None,
    task: Annotated[str, typer.Option()] = "cv",
    precision: Annotated[str, typer.Option()] = "fp16",
    deployment: Annotated[str, typer.Option(help="auto, workstation or datacenter")] = "auto",
    budget_usd: Annotated[str | None, typer.Option()] = None,
    allow_geforce: Annotated[bool, typer.Option()] = False,
    power_limit_w: Annotated[float | None, typer.Option()] = None,
    network: Annotated[str, typer.Option(help="infiniband or ethernet")] = "infiniband",
    condition: Annotated[str, typer.Option(help="new, used or any")] = "any",
    gpu_price_usd: Annotated[str | None, typer.Option()] = None,
) -> None:
    """Compute and store a quote; prints it with its id."""
    req = ClusterRequest(
        gpu=gpu_id("gpu", gpu),
        count=count,
        target_relative_throughput=target_relative_throughput,
        memory_gb=memory_gb,
        task=task,
        precision=precision,
        deployment=deployment,
        budget_usd=decimal("budget_usd", budget_usd),
        allow_geforce=allow_geforce,
        power_limit_w=power_limit_w,
        network=network,
        condition=condition,
        gpu_price_usd=decimal("gpu_price_usd", gpu_price_usd),
    )
    try:
        validate(req)  # before opening a session: bad input never touches the database
        with cli_context() as ctx, ctx.session() as session:
            _echo(store.document(store.create_cluster_quote(session, req, ctx.settings, ctx.model)))
    except TcoInputError as exc:
        raise fail(str(exc), exc.valid) from None


def _candidate(data: dict[str, Any]) -> Candidate:
    values = dict(data)
    values["gpu"] = gpu_id("candidates.gpu", str(values["gpu"]))
    for key in ("gpu_price_usd", "cloud_usd_per_hour"):
        if values.get(key) is not None:
            values[key] = Decimal(str(values[key]))
    return Candidate(**values)


@app.command("compare")
def compare(
    file: Annotated[Path, typer.Argument(help='JSON: {"candidates": [{"gpu": ..., ...}], ...}')],
) -> None:
    """Compare candidate builds (same body as POST /quotes/compare)."""
    try:
        body = json.loads(file.read_text("utf-8"))
        candidates = tuple(_candidate(c) for c in body.pop("candidates"))
        if "electricity_usd_per_kwh" in body:
            body["electricity_usd_per_kwh"] = Decimal(str(body["electricity_usd_per_kwh"]))
        req = CompareRequest(candidates=candidates, **body)
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise fail(
            f"file: {exc}",
            [
                "gpu",
                "count",
                "acquisition",
                "condition",
                "deployment",
                "pricing",
                "cloud_usd_per_hour",
                "rent_hours",
            ],
        ) from None
    try:
        with cli_context() as ctx, ctx.session() as session:
            _echo(store.document(create_compare(session, req, ctx.settings, ctx.model)))
    except TcoInputError as exc:
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
    """Every stored quote, whoever made it (the API lists only standard and own quotes);
    the last column is the owner: `standard`, `key:<id>` or `anonymous`."""
    with cli_context() as ctx, ctx.session() as session:
        for quote in store.list_quotes(session, standard, limit, 0):
            label = quote.standard_key or quote.kind
            owner = store.owner_label(quote)
            typer.echo(f"{quote.id}  {label}  ${quote.total_usd}  {owner}")


@app.command("recompute-standard")
def recompute_standard(
    gpu: Annotated[list[str] | None, typer.Option(help="only builds using these GPUs")] = None,
) -> None:
    """Recompute the standard quotes now (the workers do it when prices change)."""
    ids = None if not gpu else [gpu_id("gpu", g) for g in gpu]
    with cli_context() as ctx, ctx.session() as session:
        _echo(recompute_standard_quotes(session, ids, ctx.settings, ctx.model))
