"""`gpu-advisor recommend`: GET /recommend's ranking, as a table or as its JSON body."""

from __future__ import annotations

import json
from decimal import Decimal
from types import SimpleNamespace
from typing import TYPE_CHECKING, Annotated, Any, cast

import typer

from services.cli.options import fail, schema_options
from shared.kit.errors import InputError
from shared.recommend.request import RecommendRequest

if TYPE_CHECKING:
    from fastapi import Request


@schema_options(RecommendRequest)  # one option per field: GET /recommend's parameters
def recommend(
    request: RecommendRequest,
    as_json: Annotated[
        bool,
        typer.Option("--json", help="print the JSON body GET /recommend answers, unchanged"),
    ] = False,
) -> None:
    """The GPUs with the best performance per dollar for a workload, as GET /recommend
    ranks them."""
    try:
        body = recommend_body(request)
    except InputError as exc:
        raise fail(str(exc), exc.valid) from None
    if as_json:
        typer.echo(body)
        return
    typer.echo(table(json.loads(body)))


def recommend_body(request: RecommendRequest) -> str:
    """GET /recommend's body for `request` on this CLI's database, as a caller without an
    API key gets it (no posted quotes)."""
    from services.api.recommend.cache import ResponseCache
    from services.api.recommend.router import get_recommendation
    from services.cli.context import cli_context
    from shared.recommend.scores import ScoreCache

    # The router turns the parameters into the ranking's query (the memory a task, model
    # or params_b needs; the checks between parameters): calling it keeps that in one
    # place. Of the request it reads only the app's caches: fresh ones, none kept.
    caches = SimpleNamespace(score_cache=ScoreCache(), response_cache=ResponseCache(max_entries=0))
    stand_in = cast("Request", SimpleNamespace(app=SimpleNamespace(state=caches)))
    with cli_context() as ctx, ctx.session() as session:
        response = get_recommendation(stand_in, session, ctx.settings, ctx.model, None, request)
    return bytes(response.body).decode()


Json = dict[str, Any]
HEADER = (
    "#",
    "GPU",
    "memory",
    "throughput",
    "$/unit (80 %)",
    "perf/$1k",
    "80 % interval",
    "price",
    "measure",
    "observed",
)


def table(body: Json) -> str:
    """The answer for a terminal: the query, one row per GPU with its price's basis and
    caveats beneath, then why nothing (or some card) is not ranked."""
    lines = _heading(body)
    results = body["results"]
    if results:
        rows = [HEADER, *(_row(r) for r in results)]
        widths = [max(len(row[i]) for row in rows) for i in range(len(HEADER))]
        indent = " " * (widths[0] + 2)
        for number, row in enumerate(rows):
            lines.append("  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip())
            if number:
                lines += [f"{indent}{detail}" for detail in _details(results[number - 1])]
    empty = body.get("empty")
    if empty:
        lines.append(empty["message"])  # it counts the cards each filter removed
        lines += [f"try: {suggestion}" for suggestion in empty["suggestions"]]
    for card in body.get("unranked", []):
        lines.append(
            f"not ranked: {card['gpu']['id']}: {card['reason']} (last {_usd(card['last_usd'])} "
            f"{card['measure']}, {card['last_observed_at'][:10]})"
        )
    return "\n".join(lines)


def _heading(body: Json) -> list[str]:
    query = body["query"]
    cloud = query["condition"] == "cloud"
    market = (
        f"cloud {query['pricing']}, per GPU-hour" if cloud else f"condition {query['condition']}"
    )
    build = f"{query['count']} GPU{'s' if query['count'] > 1 else ''}"
    lines = [
        f"{query['task']} at {query['precision']}, {build}, {market}; at least "
        f"{query['memory_gb']:g} GB per GPU ({query['memory_basis']})",
        f"sorted by {body['sorted_by']}",
    ]
    ages = body.get("market")
    if ages:
        as_of = (ages["newest_observed_at"] or "")[:10]
        lines.append(
            f"prices as of {as_of}: median age {ages['median_age_days']} days, "
            f"{ages['stale_share']:.0%} stale, {ages['estimated_share']:.0%} estimated; "
            f"model {body['model_version']}"
        )
    return [*lines, ""]


def _row(result: Json) -> tuple[str, ...]:
    price = result["price"]
    low, high = result["perf_per_1000_usd_interval"]
    hourly = price["unit"] == "usd_per_gpu_hour"
    usd = _usd(price["usd"]) + ("/GPU-h" if hourly else "")
    offer = price["pricing"] if hourly else price["condition"]
    measure = price["measure_description"] + (" (estimated)" if price["estimated"] else "")
    return (
        str(result["rank"]),
        result["gpu"]["id"],
        f"{result['gpu']['memory_gb']:g} GB",
        _throughput(result.get("throughput")),
        _cost(result.get("cost_per_unit")),
        _figure(result["perf_per_1000_usd"]),
        f"{_figure(low)}-{_figure(high)}",
        f"{usd} {offer}",
        measure,
        price["observed_at"][:10],
    )


def _throughput(throughput: Json | None) -> str:
    if throughput is None:
        return "-"
    return f"{_figure(throughput['value'])} {throughput['unit']}"


def _cost(cost: Json | None) -> str:
    if cost is None:
        return "-"
    low, high = cost["interval"]
    unit = cost["unit"].removeprefix("usd ")
    return f"${_figure(cost['usd'])} {unit} (${_figure(low)}-${_figure(high)})"


def _details(result: Json) -> list[str]:
    basis = result["price"]["basis"]
    notes = [f"price: {basis}"] if basis else []
    throughput = result.get("throughput")
    if throughput is not None and throughput.get("per_user") is not None:
        notes.append(
            f"per user {_figure(throughput['per_user'])} tokens/s at "
            f"{throughput['concurrency']} concurrent, first token {throughput['ttft_ms']:,.0f} "
            f"ms ({throughput['software']})"
        )
    return notes + [f"caveat: {caveat}" for caveat in result["caveats"]]


def _usd(amount: str) -> str:
    """ "$1,207.00", "$2.29", "$1.0022": cents at least, and an hourly rate's digits."""
    whole, _, cents = f"{Decimal(amount):,.4f}".partition(".")
    return f"${whole}.{cents.rstrip('0').ljust(2, '0')}"


def _figure(value: float) -> str:
    return f"{value:,.0f}" if abs(value) >= 100 else f"{value:.3g}"
