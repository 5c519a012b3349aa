"""`gpu-advisor model predict`: GET /model/predict's answer for one GPU and task."""

from __future__ import annotations

import json
from typing import Annotated, Any

import typer

from services.cli.options import gpu_id, schema_options
from shared.builds.predict_request import PredictRequest


@schema_options(PredictRequest)  # one option per field: GET /model/predict's parameters
def predict(
    request: PredictRequest,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Throughput in the workload's own unit and relative to one reference GPU, its cost
    per unit of work at today's prices, and the workload class used."""
    gpu, task, precision, count = request.gpu, request.task, request.precision, request.count
    # Loaded here, not at import: `--help` and every other CLI command would pay for it.
    from shared.builds.predict import InvalidInputError, predict_request
    from shared.perfmodel.registry import get_model

    known = gpu_id("gpu", gpu)  # before loading the model: a typo answers at once
    try:
        result = predict_request(get_model(), request, known)
    except InvalidInputError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(code=2) from exc
    if as_json:
        typer.echo(json.dumps(result, indent=2))
        return
    typer.echo(f"{gpu} x{count} {task}/{precision}: " + _headline(result))
    typer.echo(f"  class: {result['workload_class']} ({result['class_basis']})")
    for line in units_lines(result):
        typer.echo(f"  {line}")
    if count > 1:
        layout = result["layout"]
        typer.echo(f"  layout: {layout['node_counts']} GPUs per machine ({layout['reason']})")
    for caveat in result["caveats"]:
        typer.echo(f"  note: {caveat}")
    prefill = result["prefill"]
    if prefill is not None:
        low, high = prefill["interval"]
        typer.echo(
            f"  prefill (one GPU): {prefill['relative_throughput']:.2f}x "
            f"({low:.2f}-{high:.2f}), {prefill['workload_class']}"
        )
    training = result["training"]
    if training is not None:
        assumed = " (assumed: no params_b or mode given)" if training["assumed"] else ""
        typer.echo(
            f"  trains: {training['params_b']:g}B {training['mode']}{assumed}, "
            f"{training['matrix_share']:.0%} of the reference's time in large matrix multiplies"
        )


def _headline(result: dict[str, Any]) -> str:
    throughput = result["throughput"]
    if result["relative_throughput"] is None or throughput is None:
        fit = result["fit"]
        if not fit["fits"]:
            return (
                f"does not fit: no throughput (fewest GPUs that hold it: "
                f"{fit['smallest_count'] or 'none in one machine'}; weights that fit: "
                f"{', '.join(fit['weights_that_fit'] or []) or 'none'})"
            )
        return "the latency target is not met at concurrency 1: no throughput"
    low, high = throughput["interval"]
    rel_low, rel_high = result["interval"]
    return (
        f"{_num(throughput['value'])} {throughput['unit']} ({_num(low)}-{_num(high)}) on "
        f"{throughput['software']}; {result['relative_throughput']:.2f}x "
        f"{result['reference_gpu']} ({rel_low:.2f}-{rel_high:.2f}), {result['basis']}, "
        f"{result['model_version']}"
    )


def units_lines(result: dict[str, Any]) -> list[str]:
    """The answer's per-user rate, first token, run time, target and costs, in words."""
    lines = []
    throughput = result["throughput"]
    if throughput is not None and throughput["per_user"] is not None:
        lines.append(
            f"per user: {_num(throughput['per_user'])} tokens/s at {throughput['concurrency']} "
            f"concurrent; first token in {throughput['ttft_ms']:,.0f} ms "
            f"({throughput['prompt_tokens']} prompt tokens)"
        )
    run = result.get("run")
    if run is not None:
        low, high = run["hours_interval"]
        lines.append(
            f"{run['what']}: {run['hours']:,.3g} h ({low:,.3g}-{high:,.3g}) for "
            f"{run['work']:,.4g} {run['unit']}"
        )
    target = result.get("target")
    if target is not None:
        lines.append(f"target: {target['basis']}")
    for name, label in (("cost_per_unit", "buying"), ("rent_cost_per_unit", "renting")):
        cost = result.get(name)
        if cost is not None:
            low, high = cost["interval"]
            run_usd = f"; the run ${cost['run_usd']:,.2f}" if cost.get("run_usd") else ""
            lines.append(
                f"{label}: ${cost['usd']:,.4g} {cost['unit'].removeprefix('usd ')} "
                f"(${low:,.4g}-${high:,.4g}){run_usd}"
            )
    return lines


def _num(value: float) -> str:
    return f"{value:,.0f}" if abs(value) >= 100 else f"{value:.3g}"
