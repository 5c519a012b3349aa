"""`gpu-advisor prices add`: record a vendor quote or a manual price; `prices check`: check
one against the market without storing it."""

from __future__ import annotations

import json
from decimal import Decimal, InvalidOperation
from typing import Annotated

import typer

from services.cli.lazy import Lazy, lazy_group
from services.cli.options import gpu_id

CHECK = Lazy(
    "services.cli.prices_check",
    "check",
    "Check a vendor's quote against today's market before signing: percentile in today's "
    "band, verdict, evidence, and what the same money buys used, new or rented. Prints the "
    "body POST /prices/check answers; stores nothing and fires no alert.",
)
app = typer.Typer(
    help="Prices that do not come from the scraper.",
    no_args_is_help=True,
    cls=lazy_group({"check": CHECK}, ("add", "check")),
)


@app.command("add")
def add(
    gpu: Annotated[str, typer.Option(help="catalog id, catalog name or known alias")],
    usd: Annotated[str, typer.Option(help="price per card in USD")],
    condition: Annotated[str, typer.Option(help="new, used or refurbished")],
    source: Annotated[str, typer.Option(help="where the price came from")],
    title: Annotated[str | None, typer.Option(help="listing or quote title")] = None,
    url: Annotated[str | None, typer.Option(help="link to the offer")] = None,
) -> None:
    """Store an operator quote (no API key): shown beside the market price to keys created
    with --all-quotes and fires only their alerts; it never replaces the market price
    that rankings use."""
    # Here, not at import: `prices --help` needs no database layer.
    from services.cli.context import cli_context
    from shared.kit.money import CENT
    from shared.pricing.intake import PriceInput, PriceRejected, record_price

    known = gpu_id("gpu", gpu)
    try:
        price = PriceInput(known, Decimal(usd), condition, source, title, url)
    except InvalidOperation:
        typer.echo(f"error: usd: not a number: {usd!r}", err=True)
        raise typer.Exit(2) from None
    try:
        with cli_context() as ctx, ctx.session() as session:
            recorded = record_price(session, price, ctx.settings)
    except PriceRejected as exc:
        hint = f"; valid values: {', '.join(exc.valid)}" if exc.valid else ""
        typer.echo(f"error: {exc}{hint}", err=True)
        raise typer.Exit(2) from None
    observation, reference = recorded.observation, recorded.reference
    typer.echo(
        json.dumps(
            {
                "id": observation.id,
                "gpu_id": observation.gpu_id,
                "usd": str(observation.price_usd),
                "measure": observation.measure,
                "quarantined": observation.quarantined,
                "quarantine_reason": recorded.quarantine_reason,
                "reference_usd": str(reference.usd.quantize(CENT)) if reference else None,
                "reference": reference.basis if reference else None,
            }
        )
    )
