"""`gpu-advisor tco`: own versus rent, the same arithmetic as GET /tco."""

from __future__ import annotations

import json
from dataclasses import asdict
from typing import TYPE_CHECKING, Annotated

import typer

from services.cli.lazy import Group
from services.cli.options import fail, schema_options
from shared.tco.schemas import TcoRequest

if TYPE_CHECKING:
    from shared.builds.unit_cost import CostPerUnit
    from shared.perfmodel.units import Throughput
    from shared.tco.report import TcoReport

app = typer.Typer(help="Total cost of owning GPUs versus renting them.", cls=Group)


def summary(report: TcoReport) -> dict[str, object]:
    result = asdict(report.result)
    return {
        "gpu": report.gpu.id,
        "cloud_gpu": report.cloud_gpu.id,
        "count": report.request.count,
        "pricing": report.request.pricing,
        **result,
        "throughput": _dict(report.own_throughput),
        "cloud_throughput": _dict(report.cloud_throughput),
        "cost_per_unit": _dict(report.own_cost),
        "cloud_cost_per_unit": _dict(report.cloud_cost),
        "assumptions": [asdict(a) for a in report.assumptions],
        # As GET /tco: only with --as-of.
        **({} if report.as_of is None else report.as_of.fields(report.model_version)),
    }


def _dict(value: Throughput | CostPerUnit | None) -> dict[str, object] | None:
    return None if value is None else value.as_dict()


@app.callback(invoke_without_command=True)
@schema_options(TcoRequest)  # one option per field: GET /tco's parameters, all but gpu optional
def tco(
    request: TcoRequest,
    series: Annotated[bool, typer.Option(help="include the monthly series")] = False,
) -> None:
    """Break-even days, costs per hour of work and per unit of work, kWh and CO2, with every
    assumption sourced."""
    # Here, not at import: the report and the database layer would slow `tco --help`.
    from services.cli.context import cli_context
    from shared.kit.errors import InputError
    from shared.tco.report import build_report
    from shared.tco.request import with_catalog_ids

    try:
        request = with_catalog_ids(request)
        with cli_context() as ctx, ctx.session() as session:
            report = build_report(session, request, ctx.settings, ctx.model)
    except InputError as exc:
        raise fail(str(exc), exc.valid) from None
    body = summary(report)
    if not series:
        body.pop("monthly")
    typer.echo(json.dumps(body, default=str, indent=2))
