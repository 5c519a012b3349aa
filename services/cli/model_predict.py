"""`gpu-advisor model predict`: GET /model/predict's answer for one GPU and task."""

from __future__ import annotations

import json
from typing import Annotated

import typer

from services.cli.options import gpu_id, schema_options
from shared.builds.predict_request import PredictRequest


@schema_options(PredictRequest)  # one option per field: GET /model/predict's parameters
def predict(
    request: PredictRequest,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Throughput relative to one reference GPU, and the workload class used."""
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
    low, high = result["interval"]
    typer.echo(
        f"{gpu} x{count} {task}/{precision}: {result['relative_throughput']:.2f}x "
        f"{result['reference_gpu']} ({low:.2f}-{high:.2f}), {result['basis']}, "
        f"{result['model_version']}"
    )
    typer.echo(f"  class: {result['workload_class']} ({result['class_basis']})")
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
