from __future__ import annotations

import pytest

from shared.perfmodel import llm_shapes as s


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("llama-3-70b", "llama-3-70b"),
        ("meta-llama/Meta-Llama-3-70B-Instruct", "llama-3-70b"),
        ("Llama-2-7b-hf", "llama-2-7b"),
        ("llama3.1_405b", "llama-3.1-405b"),
        ("mistralai/Mixtral-8x7B-Instruct-v0.1", "mixtral-8x7b"),
        ("gemma-2-9b-it", "gemma-2-9b"),
        ("DeepSeek-R1", "deepseek-r1"),
    ],
)
def test_lookup_by_family_name_or_repo(name, expected):
    assert s.model_shape(name).name == expected


def test_unknown_model_lists_the_known_ones():
    with pytest.raises(s.UnknownModel) as err:
        s.model_shape("llama-9-7b")
    assert "llama-3-70b" in str(err.value)


def test_every_row_is_consistent_and_sourced():
    for shape in s.MODEL_SHAPES.values():
        assert shape.source.startswith("from the published config.json of ")
        assert shape.kv_heads <= shape.heads
        assert shape.heads % shape.kv_heads == 0
        assert shape.active_params_b <= shape.params_b
        # Attention width near hidden (Gemma-2 9B: 16 x 256 = 4096 vs 3584; DeepSeek-V3's
        # 128 heads x 128 = 2.3 x 7168): catches a heads or head_dim typo.
        assert 0.5 < shape.heads * shape.head_dim / shape.hidden < 2.5


def test_kv_cache_per_token_of_known_models():
    # Llama-3 70B: 2 x 80 x 8 x 128 x 2 bytes = 320 KiB per token.
    assert s.model_shape("llama-3-70b").kv_bytes_per_token() == 327_680
    # Llama-2 7B keeps all 32 heads: 512 KiB per token.
    assert s.model_shape("llama-2-7b").kv_bytes_per_token() == 524_288
    # DeepSeek-V3 caches MLA's latent (512 + 64 per layer), not 128 heads' K and V.
    deepseek = s.model_shape("deepseek-v3")
    assert deepseek.kv_bytes_per_token() == 61 * 576 * 2
    assert "MLA" in deepseek.attention


def test_fallback_assumes_8_kv_heads_from_7b_and_all_heads_below():
    big = s.estimated_shape(70)
    assert big.kv_heads == 8 and big.heads > 8 and "8 assumed" in big.source
    small = s.estimated_shape(3)
    assert small.kv_heads == small.heads
    assert s.estimated_shape(70, kv_heads=16).kv_heads == 16
    # A mixture of experts: the attention of a dense model of the active size.
    moe = s.estimated_shape(46.7, active_params_b=12.9)
    assert moe.layers == s.estimate_shape(12.9)[0]
    assert moe.params_b == 46.7 and moe.active_params_b == 12.9


def test_resolve_refuses_contradictions():
    assert s.resolve(None, "llama-3-70b").params_b == 70.6
    assert s.resolve(70, "llama-3-70b").name == "llama-3-70b"
    cases: list[tuple[float | None, str | None, int | None, float | None, str]] = [
        (None, "llama-9", None, None, "model"),
        (8, "llama-3-70b", None, None, "params_b"),
        (70, "llama-3-70b", 16, None, "kv_heads"),
        (70, "llama-3-70b", None, 20, "active_params_b"),
        (10, None, None, 20, "active_params_b"),
        (None, None, 8, None, "params_b"),
    ]
    for params_b, model, kv_heads, active, field in cases:
        with pytest.raises(s.ShapeInputError) as err:
            s.resolve(params_b, model, kv_heads, active)
        assert err.value.field == field
    with pytest.raises(s.ShapeInputError) as err:
        s.resolve(None, "llama-9")
    assert "mixtral-8x7b" in err.value.valid
