"""`gpu-advisor tco`: own versus rent, the same arithmetic as GET /tco."""

from __future__ import annotations

import json
from dataclasses import asdict
from decimal import Decimal, InvalidOperation
from typing import Annotated

import typer

from services.cli.context import cli_context
from shared.catalog.aliases import resolve_alias
from shared.catalog.specs import load_catalog
from shared.tco.report import TcoReport, build_report
from shared.tco.request import TcoInputError, TcoRequest, validate_request

app = typer.Typer(help="Total cost of owning GPUs versus renting them.")


def fail(message: str, valid: list[str] | None = None) -> typer.Exit:
    hint = f"; valid values: {', '.join(valid)}" if valid else ""
    typer.echo(f"error: {message}{hint}", err=True)
    return typer.Exit(2)


def gpu_id(field: str, text: str) -> str:
    resolved = resolve_alias(text)
    if resolved is None:
        raise fail(f"{field}: unknown GPU {text!r}", load_catalog().ids)
    return resolved


def decimal(field: str, text: str | None) -> Decimal | None:
    if text is None:
        return None
    try:
        return Decimal(text)
    except InvalidOperation:
        raise fail(f"{field}: not a number: {text!r}") from None


def summary(report: TcoReport) -> dict[str, object]:
    result = asdict(report.result)
    return {
        "gpu": report.gpu.id,
        "cloud_gpu": report.cloud_gpu.id,
        "count": report.request.count,
        "pricing": report.request.pricing,
        **result,
        "assumptions": [asdict(a) for a in report.assumptions],
    }


@app.callback(invoke_without_command=True)
def tco(  # one option per assumption of the issue, all optional but gpu
    gpu: Annotated[str, typer.Option(help="GPU to own (id or name)")],
    count: Annotated[int, typer.Option(help="GPUs in the build")] = 1,
    cloud_gpu: Annotated[str | None, typer.Option(help="GPU to rent")] = None,
    pricing: Annotated[str, typer.Option(help="on-demand or spot")] = "on-demand",
    task: Annotated[str, typer.Option(help="cv, nlp, llm-inference, ...")] = "cv",
    precision: Annotated[str, typer.Option(help="fp16, bf16, tf32, fp32, fp8, int8")] = "fp16",
    condition: Annotated[str, typer.Option(help="new, used or any")] = "any",
    deployment: Annotated[str, typer.Option(help="auto, workstation or datacenter")] = "auto",
    network: Annotated[str, typer.Option(help="infiniband or ethernet")] = "infiniband",
    power_limit_w: Annotated[float | None, typer.Option()] = None,
    purchase_usd: Annotated[str | None, typer.Option()] = None,
    gpu_watts: Annotated[float | None, typer.Option()] = None,
    system_watts: Annotated[float | None, typer.Option()] = None,
    utilization: Annotated[float | None, typer.Option(help="0-1")] = None,
    electricity_usd_per_kwh: Annotated[str | None, typer.Option()] = None,
    pue: Annotated[float | None, typer.Option()] = None,
    years: Annotated[float | None, typer.Option()] = None,
    resale_pct: Annotated[float | None, typer.Option(help="0 disables resale")] = None,
    cloud_usd_per_hour: Annotated[str | None, typer.Option(help="per GPU-hour")] = None,
    spot_interruption_overhead: Annotated[float | None, typer.Option()] = None,
    carbon_kg_per_kwh: Annotated[float | None, typer.Option()] = None,
    series: Annotated[bool, typer.Option(help="include the monthly series")] = False,
) -> None:
    """Break-even days, costs per hour of work, kWh and CO2, with every assumption sourced."""
    request = TcoRequest(
        gpu=gpu_id("gpu", gpu),
        count=count,
        cloud_gpu=None if cloud_gpu is None else gpu_id("cloud_gpu", cloud_gpu),
        pricing=pricing,
        task=task,
        precision=precision,
        condition=condition,
        deployment=deployment,
        network=network,
        power_limit_w=power_limit_w,
        purchase_usd=decimal("purchase_usd", purchase_usd),
        gpu_watts=gpu_watts,
        system_watts=system_watts,
        utilization=utilization,
        electricity_usd_per_kwh=decimal("electricity_usd_per_kwh", electricity_usd_per_kwh),
        pue=pue,
        years=years,
        resale_pct=resale_pct,
        cloud_usd_per_hour=decimal("cloud_usd_per_hour", cloud_usd_per_hour),
        spot_interruption_overhead=spot_interruption_overhead,
        carbon_kg_per_kwh=carbon_kg_per_kwh,
    )
    try:
        validate_request(request)
        with cli_context() as ctx, ctx.session() as session:
            report = build_report(session, request, ctx.settings, ctx.model)
    except TcoInputError as exc:
        raise fail(str(exc), exc.valid) from None
    body = summary(report)
    if not series:
        body.pop("monthly")
    typer.echo(json.dumps(body, default=str, indent=2))
