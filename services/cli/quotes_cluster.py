"""`gpu-advisor quotes cluster`: compute and store a quote, as POST /quotes/cluster does.

Its own module, loaded when the command runs (services/cli/lazy.py): its options come
from ClusterRequest, whose module imports the database layer (shared.pricing.intake),
which `quotes --help` and the other quote commands' help do not need.
"""

from __future__ import annotations

from services.cli.options import fail, schema_options
from services.cli.quotes import echo_json
from shared.quotes.schemas import ClusterRequest


@schema_options(ClusterRequest, exclude=("additional_gpus",))  # POST /quotes/cluster's fields
def cluster(req: ClusterRequest) -> None:
    """Compute and store a quote; prints it with its id."""
    from services.cli.context import cli_context
    from shared.kit.errors import InputError
    from shared.quotes import store
    from shared.quotes.request import cluster_with_catalog_ids, validate

    try:
        req = cluster_with_catalog_ids(req)
        validate(req)  # before opening a session: bad input never touches the database
        with cli_context() as ctx, ctx.session() as session:
            echo_json(
                store.document(store.create_cluster_quote(session, req, ctx.settings, ctx.model))
            )
    except InputError as exc:
        raise fail(str(exc), exc.valid) from None
