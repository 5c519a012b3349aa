from __future__ import annotations

import math
from functools import lru_cache

import pytest

from shared.catalog.specs import GpuSpec, load_catalog
from shared.perfmodel import prefill as pre
from shared.perfmodel.lab import prefill_fit as pf
from shared.perfmodel.lab.prefill_data import PrefillRow, load_prefill_rows
from shared.perfmodel.llm_shapes import LlmShape, shape_of
from shared.perfmodel.memory import estimate_shape
from shared.perfmodel.workloads import LlmWorkload


@lru_cache(maxsize=1)
def _rows() -> tuple[PrefillRow, ...]:
    return tuple(load_prefill_rows())


@lru_cache(maxsize=1)
def _all_shares() -> dict[str, float]:
    return pf.fit(_rows())


def test_geforce_fp16_accumulate_rate_is_twice_the_catalog_figure():
    cat = load_catalog().by_id
    assert pre.fp16_accumulate_rate(cat["rtx-3090"]) == 2 * 71.2
    assert pre.fp16_accumulate_rate(cat["rtx-4090"]) == 2 * 165.2
    # Workstation, datacenter and TITAN cards: one rate for both accumulations.
    assert pre.fp16_accumulate_rate(cat["rtx-a6000"]) == 154.8
    assert pre.fp16_accumulate_rate(cat["titan-rtx"]) == 130.5
    assert pre.fp16_accumulate_rate(cat["h100-sxm5"]) == 989.4
    # The L40's catalog figure is its half-rate FP32-accumulate one (catalog note): doubled,
    # it is the L40S's rate on the same AD102.
    assert pre.fp16_accumulate_rate(cat["l40"]) == 2 * 181.0
    assert pre.fp16_accumulate_rate(cat["l40"]) == pytest.approx(
        pre.fp16_accumulate_rate(cat["l40s"]), rel=0.01
    )
    # So are the Ada workstation cards' since calibrated-2026.12.10 (Lambda's training
    # ratios): the 16-bit-accumulate rate they had, the full-rate count, is unchanged.
    assert pre.fp16_accumulate_rate(cat["rtx-6000-ada"]) == pytest.approx(364.2)
    assert pre.fp16_accumulate_rate(cat["rtx-4000-ada"]) == pytest.approx(106.9)
    assert pre.software_rate(cat["rtx-6000-ada"], pre.FP32_ACCUMULATE, "fp16") == 182.1
    # The FP32-accumulate family keeps the catalog rates.
    assert pre.software_rate(cat["rtx-3090"], pre.FP32_ACCUMULATE, "fp16") == 71.2
    assert pre.software_rate(cat["h100-sxm5"], pre.FP32_ACCUMULATE, "fp8") == 1979


def test_rows_cover_the_three_sources():
    rows = _rows()
    assert {r.source for r in rows} == {"localscore", "llama.cpp", "tensorrt-llm"}
    assert len({r.row_id for r in rows}) == len(rows)
    # A 14B model at Q4_K_M (9 GB) does not fit an 8 GB card: no such row.
    cat = load_catalog().by_id
    local = [r for r in rows if r.source == "localscore"]
    assert all(r.workload.weight_gb <= cat[r.gpu_id].memory_gb for r in local)


def _ratio(shares: dict[str, float], a: str, b: str, group: str) -> float:
    cat = load_catalog().by_id
    members = {r.gpu_id: r for r in _rows() if r.group == group}
    ra, rb = members[a], members[b]
    return math.exp(pf._log_pred(ra, cat[a], shares) - pf._log_pred(rb, cat[b], shares))


def test_same_die_pairs_come_out_at_or_below_one():
    # Measured (LocalScore, Llama 3.1 8B): A6000 0.95x the RTX 3090, RTX 6000 Ada 0.92x
    # the RTX 4090; the catalog ratio with the accumulate rule says 1.09x and 1.10x.
    group = next(r.group for r in _rows() if "8B" in r.group and r.source == "localscore")
    for work, consumer in (("rtx-a6000", "rtx-3090"), ("rtx-6000-ada", "rtx-4090")):
        held_out = pf.fit([r for r in _rows() if r.gpu_id != work])
        assert _ratio(_all_shares(), work, consumer, group) <= 1.05
        assert _ratio(held_out, work, consumer, group) <= 1.06


def test_no_fold_fits_on_a_held_out_row():
    rows = _rows()
    folds = pf.folds(rows)
    assert {f.split for f in folds} == set(pf.SPLITS)
    all_ids = {r.row_id for r in rows}
    for fold in folds:
        assert fold.held_ids
        assert not fold.train_ids & fold.held_ids
        assert fold.train_ids | fold.held_ids == all_ids
    by_name = {(f.split, f.name): f for f in folds}
    localscore = by_name[(pf.LOTO, "localscore")]
    assert all(r.row_id in localscore.held_ids for r in rows if r.source == "localscore")
    gpu = by_name[(pf.LOGO, "rtx-3090")]
    assert {r.gpu_id for r in rows if r.row_id in gpu.train_ids} >= {"rtx-4090"}
    assert all(r.gpu_id != "rtx-3090" for r in rows if r.row_id in gpu.train_ids)


def test_fit_sees_only_the_rows_it_is_given(monkeypatch):
    seen: list[str] = []
    original = pf._log_pred

    def spy(row, gpu, shares):
        seen.append(row.row_id)
        return original(row, gpu, shares)

    monkeypatch.setattr(pf, "_log_pred", spy)
    rows = _rows()
    fold = next(f for f in pf.folds(rows) if f.split == pf.LOTO and f.name == "tensorrt-llm")
    pf.fit([r for r in rows if r.row_id in fold.train_ids])
    assert seen
    assert not set(seen) & fold.held_ids


def _params() -> pre.PrefillParams:
    return pre.PrefillParams(
        log_share={},
        half_width={"fp16-accumulate/geforce": 0.3, "fp16-accumulate": 0.4, "all": 0.5},
        half_width_new_arch={"fp16-accumulate/geforce": 0.5, "all": 0.7},
        measured_architectures={"fp16-accumulate": ["Ampere", "Ada Lovelace"]},
        measured_gpus={"fp16-accumulate": ["rtx-3090"]},
    )


def test_intervals_widen_for_unmeasured_architectures():
    cat = load_catalog().by_id
    params = _params()
    ref = cat["rtx-3090"]
    measured = pre.predict_relative(
        cat["rtx-4090"], ref, LlmWorkload(8.0), "llama.cpp", params=params
    )
    new = pre.predict_relative(cat["rtx-5090"], ref, LlmWorkload(8.0), "llama.cpp", params=params)
    assert measured.architecture_measured and not new.architecture_measured

    def log_width(e: pre.PrefillEstimate) -> float:
        return math.log(e.interval[1] / e.relative)

    assert math.isclose(log_width(measured), 0.3)
    # At least twice the measured class's width (here 2 x 0.3 > its LOAO 0.5).
    assert math.isclose(log_width(new), 0.6)
    # A family that measured nothing falls back to all errors' widths.
    vllm = pre.predict_relative(cat["rtx-4090"], ref, LlmWorkload(8.0), "vllm", params=params)
    assert math.isclose(log_width(vllm), max(0.7, 2 * 0.5))


def test_the_shipped_parameters_load_and_serve_an_interval():
    cat = load_catalog().by_id
    params = pre.load_prefill_params()
    assert params.half_width and params.half_width_new_arch
    estimate = pre.predict_relative(cat["rtx-4090"], cat["rtx-3090"], LlmWorkload(8.0), "llama.cpp")
    low, high = estimate.interval
    assert low < estimate.relative < high
    assert 1.3 < estimate.relative < 2.4
    same = pre.predict_relative(cat["rtx-3090"], cat["rtx-3090"], LlmWorkload(8.0), "llama.cpp")
    assert math.isclose(same.relative, 1.0)


def _error(family: str, klass: str, log_error: float) -> pf.PairError:
    return pf.PairError(
        pf.LOTO, "f", "g", "src", family, "a", "b", klass, klass, log_error, log_error
    )


def test_a_family_with_too_few_errors_takes_all_errors_width():
    few = [_error("fp16-accumulate", "geforce", 0.05)] * (pf.MIN_GROUP - 1)
    many = [_error("fp32-accumulate", "datacenter-hbm", 0.9)] * pf.MIN_GROUP
    widths = pf.half_widths(few + many)
    assert "fp16-accumulate" not in widths and "fp16-accumulate/geforce" not in widths
    assert math.isclose(widths["fp32-accumulate"], 0.9)
    # The thin family is judged against every error's 80 % point, not its own few.
    everyone = pf.quantile([0.05] * 7 + [0.9] * 8)
    assert everyone is not None
    assert pf.width_for(widths, "fp16-accumulate", "geforce") == pytest.approx(everyone)
    assert not pf.covered(_error("fp16-accumulate", "geforce", 0.95), widths)
    assert pf.covered(_error("fp16-accumulate", "geforce", 0.5), widths)


def test_gp100_multiplies_in_packed_fp16_and_dp4a_cards_keep_dp4a():
    cat = load_catalog().by_id
    p100, p40, gtx1660 = cat["tesla-p100-16gb"], cat["tesla-p40"], cat["gtx-1660-super"]
    # GP100: no DP4A, FP16 at twice FP32, for 16-bit and dequantised weights alike.
    assert not pre.has_dp4a(p100)
    for weights in ("fp16", "int4"):
        assert pre.software_rate(p100, pre.FP16_ACCUMULATE, weights) == p100.fp16_tensor_tflops
    assert p100.fp16_tensor_tflops == pytest.approx(2 * p100.fp32_tflops, rel=0.01)
    # GP102 has no fast FP16 (its catalog FP16 figure is its FP32 one): DP4A or FP32.
    assert pre.software_rate(p40, pre.FP16_ACCUMULATE, "int4") == 4 * p40.fp32_tflops
    assert pre.software_rate(p40, pre.FP16_ACCUMULATE, "fp16") == p40.fp32_tflops
    # GTX 16: DP4A for quantised weights, packed FP16 for 16-bit ones.
    assert pre.software_rate(gtx1660, pre.FP16_ACCUMULATE, "int4") == 4 * gtx1660.fp32_tflops
    assert pre.software_rate(gtx1660, pre.FP16_ACCUMULATE, "fp16") == gtx1660.fp16_tensor_tflops


def _weight_read_s(gpu: GpuSpec, w: LlmWorkload) -> float:
    """Seconds to stream the workload's weights once at the model's achieved bandwidth."""
    return (
        w.active_b * 1e9 * w.bits / 8 / (gpu.memory_bandwidth_gbs * 1e9 * pre.BANDWIDTH_EFFICIENCY)
    )


def test_llamacpp_reads_the_weights_once_per_token_tile_and_calls_once_per_micro_batch():
    gpu = load_catalog().by_id["rtx-3090"]
    shares = {"fp16-accumulate/class:geforce": 0.0}

    # 16-bit weights: cuBLAS, not MMQ, so no wave term and the matrix time is linear in
    # the tokens.
    def seconds(tokens: int, overhead: float) -> float:
        w = LlmWorkload(params_b=8.0, weights="fp16", prompt_tokens=tokens)
        return tokens / pre.prefill_tokens_per_s(gpu, w, pre.FP16_ACCUMULATE, shares, overhead)

    # 129 tokens take two weight reads (one more tile than 128) but one call; 1,331
    # tokens (LocalScore's mean prompt) 11 reads and 3 calls.
    w = LlmWorkload(params_b=8.0, weights="fp16", prompt_tokens=128)
    read = _weight_read_s(gpu, w)
    matrix_per_token = seconds(128, 0.0) - read
    matrix_per_token /= 128
    assert seconds(129, 0.0) == pytest.approx(129 * matrix_per_token + 2 * read, rel=1e-9)
    assert seconds(1331, 0.0) == pytest.approx(1331 * matrix_per_token + 11 * read, rel=1e-9)
    call = 1e-3
    extra = seconds(1331, call) - seconds(1331, 0.0)
    layers, _ = estimate_shape(8.0)
    assert extra == pytest.approx(3 * call * layers / pre.REFERENCE_LAYERS, rel=1e-9)


def _one_matrix_shape(rows: int) -> LlmShape:
    """A one-layer shape whose every matrix is `rows` x `rows` (ffn = hidden)."""
    return LlmShape(
        "", rows * rows * 7 / 1e9, rows * rows * 7 / 1e9, 1, rows, rows // 128, rows // 128, 128
    )


def test_mmq_waves_leave_the_last_wave_partly_idle():
    cat = load_catalog().by_id
    shape = _one_matrix_shape(4096)
    assert all(r == 4096 for r, _ in pre.layer_matrices(shape))
    # 512 tokens of a 4,096-row matrix: 32 x 4 = 128 tiles of 128 x 128.
    # The RTX 4090's 128 SMs run them in one full wave; the RTX 5090's 170 in one wave
    # with 42 SMs idle; the RTX 3090's 82 in two waves (164 SM slots).
    assert cat["rtx-4090"].sm_count == 128
    assert pre.wave_utilisation(cat["rtx-4090"], shape, 512) == pytest.approx(1.0)
    assert pre.wave_utilisation(cat["rtx-5090"], shape, 512) == pytest.approx(128 / 170)
    assert pre.wave_utilisation(cat["rtx-3090"], shape, 512) == pytest.approx(128 / 164)
    # 640 tokens: a full micro-batch (128 tiles) and one of 128 tokens (32 tiles), FLOP-
    # weighted 4:1 on the 4090: (4 x 1 + 1 x 32 / 128) / 5.
    assert pre.wave_utilisation(cat["rtx-4090"], shape, 640) == pytest.approx(
        5 / (4 / 1.0 + 1 / (32 / 128))
    )


def test_only_quantised_weights_on_tensor_core_cards_take_the_waves():
    cat = load_catalog().by_id
    fam = pre.FP16_ACCUMULATE
    assert pre.runs_mmq(cat["rtx-5090"], fam, "int4")
    assert not pre.runs_mmq(cat["rtx-5090"], fam, "fp16")  # cuBLAS
    assert not pre.runs_mmq(cat["tesla-p40"], fam, "int4")  # DP4A kernels
    assert not pre.runs_mmq(cat["rtx-5090"], pre.FP32_ACCUMULATE, "int4")
    shares = {"fp16-accumulate/class:geforce": 0.0}
    gpu = cat["rtx-5090"]
    q4 = LlmWorkload(params_b=8.0, weights="int4", model="llama-3.1-8b", prompt_tokens=512)
    shape = shape_of(8.0, model="llama-3.1-8b")
    waves = pre.wave_utilisation(gpu, shape, 512)
    assert waves < 1.0
    # The same prompt with every SM busy is faster by what the waves leave idle (in the
    # matrix part; the weight reads and the call overhead do not change).
    full = pre.prefill_tokens_per_s(gpu, q4, fam, shares, 0.0)
    read = _weight_read_s(gpu, q4)
    matrix = 512 / full - 4 * read
    rate = pre.software_rate(gpu, fam, "int4") * 1e12 * pre.BASE_SHARE
    assert matrix == pytest.approx(2 * 8.0e9 * 512 / (rate * waves), rel=1e-9)


def test_a_model_too_small_for_a_width_keeps_every_sm_busy():
    # The size estimate rounds a tiny model's width to 0 (found by the API fuzz test).
    gpu = load_catalog().by_id["rtx-4090"]
    tiny = LlmWorkload(params_b=1e-12, weights="int4", prompt_tokens=512)
    assert shape_of(1e-12).hidden == 0
    assert pre.wave_utilisation(gpu, shape_of(1e-12), 512) == 1.0
    rate = pre.prefill_tokens_per_s(gpu, tiny, pre.FP16_ACCUMULATE, {}, 0.0)
    assert math.isfinite(rate) and rate > 0
