from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from services.cli.model import app
from shared.builds.predict import InvalidInputError, predict_full
from shared.perfmodel.registry import get_model

runner = CliRunner()


def test_predict_json():
    def predict(gpu: str) -> dict[str, object]:
        args = ["predict", "--gpu", gpu, "--task", "cv", "--precision", "fp16", "--json"]
        result = runner.invoke(app, args)
        assert result.exit_code == 0, result.output
        return dict(json.loads(result.output))

    data = predict("rtx-3090")
    for key in ("relative_throughput", "reference_gpu", "interval", "basis", "model_version"):
        assert key in data
    # Lambda measured both; Ampere is the MLPerf offsets' reference, so only the Hopper
    # card's number moves off the measurement, and it says so.
    assert data["basis"] == "measured"
    hopper = predict("h100-sxm5")
    assert hopper["basis"] == "calibrated-model"
    assert "Hopper offset" in str(hopper["explanation"])


def test_predict_count_power_and_workload():
    args = ["predict", "--gpu", "rtx-3090", "--task", "nlp", "--count", "2", "--json"]
    two = json.loads(runner.invoke(app, args).output)
    capped = json.loads(runner.invoke(app, [*args, "--power-limit-w", "300"]).output)
    assert 1.0 < two["relative_throughput"] <= 2.0
    assert capped["relative_throughput"] < two["relative_throughput"]
    assert capped["power_limit"]["saved_w"] == 100
    text = runner.invoke(app, ["predict", "--gpu", "l4", "--task", "cv", "--workload", "resnet50"])
    assert text.exit_code == 0 and "rtx-3090" in text.output


@pytest.mark.parametrize(
    ("args", "named"),
    [
        (["--gpu", "nope", "--task", "cv"], "rtx-4090"),
        (["--gpu", "rtx-4090", "--task", "audio"], "nlp"),
        (["--gpu", "rtx-4090", "--task", "cv", "--precision", "fp64"], "bf16"),
        (["--gpu", "gtx-1080", "--task", "cv", "--precision", "tf32"], "fp32"),
    ],
)
def test_bad_input_exits_2_naming_valid_values(args, named):
    result = runner.invoke(app, ["predict", *args])
    assert result.exit_code == 2
    assert named in result.output


def test_predict_full_errors_name_the_field():
    with pytest.raises(InvalidInputError) as info:
        predict_full(get_model(), "rtx-4090", "cv", "fp16", workload="bert_large")
    assert info.value.field == "workload" and "resnet50" in info.value.valid
    with pytest.raises(InvalidInputError) as info:
        predict_full(get_model(), "rtx-4090", "cv", "fp16", power_limit_w=10)
    assert info.value.field == "power_limit_w"


def test_report_writes_markdown_and_png_without_refitting_the_classes(tmp_path):
    result = runner.invoke(app, ["report", "--out-dir", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "report.md").read_text().count("|") > 50
    assert (tmp_path / "predicted_vs_measured.png").stat().st_size > 10_000
    # The class refits (minutes) run only with --classes.
    assert not (tmp_path / "classes.md").exists()


def test_reports_go_to_the_data_directory_unless_asked_for_docs():
    from services.cli.model import DEFAULT_REPORT_DIR

    assert DEFAULT_REPORT_DIR.parts[0] == "var"


def test_predict_speaks_the_workloads_unit_and_says_when_it_does_not_fit():
    args = ["predict", "--gpu", "h100-sxm5", "--task", "llm-inference", "--params-b", "8"]
    text = runner.invoke(app, [*args, "--batch", "16", "--prompt-tokens", "1024"])
    assert text.exit_code == 0, text.output
    assert "output tokens/s" in text.output and "on vllm" in text.output
    assert "first token in" in text.output and "(1024 prompt tokens)" in text.output
    big = runner.invoke(
        app, ["predict", "--gpu", "rtx-4090", "--task", "llm-inference", "--params-b", "70"]
    )
    assert big.exit_code == 0, big.output
    assert "does not fit: no throughput (fewest GPUs that hold it: 8" in big.output
    target = runner.invoke(app, [*args, "--min-tokens-per-s-per-user", "100000"])
    assert "not met at concurrency 1" in target.output
