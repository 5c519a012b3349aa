"""`gpu-advisor prices check`: a quote against the market, as POST /prices/check answers.

Its own module, loaded when the command runs (services/cli/lazy.py): its options come
from PriceCheckRequest (shared/scoring/schemas.py, light); the check itself, with the
database layer and SciPy, is imported only when it runs.
"""

from __future__ import annotations

from datetime import UTC, datetime

import typer

from services.cli.options import fail, schema_options
from shared.scoring.schemas import PriceCheckRequest


@schema_options(PriceCheckRequest)  # one option per field: POST /prices/check's body
def check(request: PriceCheckRequest) -> None:
    """Check a vendor's quote against today's market before signing: percentile in today's
    band, verdict, evidence, and what the same money buys used, new or rented. Prints the
    body POST /prices/check answers; stores nothing and fires no alert."""
    from services.cli.context import cli_context
    from shared.kit.errors import InputError
    from shared.scoring.check_as_of import check_quote

    try:
        with cli_context() as ctx, ctx.session() as session:
            # With --as-of: as of that day's prices, as POST /prices/check answers.
            result = check_quote(session, request, ctx.settings, ctx.model, datetime.now(UTC))
    except InputError as exc:
        raise fail(str(exc), exc.valid) from None
    typer.echo(result.model_dump_json(indent=2))
