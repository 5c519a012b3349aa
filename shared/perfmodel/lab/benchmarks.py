"""Every bundled benchmark data set, read against the current catalog.

Each source has its loader in `benchmark_sources/` (with its PROVENANCE.md under
`data/benchmarks/<source>/`); what a measurement is and why ratios are only formed within
one table is said in `benchmark_sources/measurement.py`.
"""

from __future__ import annotations

from collections.abc import Iterator

from shared.catalog.specs import Catalog, load_catalog
from shared.perfmodel.benchmark_sources.geerlingguy import load_geerlingguy
from shared.perfmodel.benchmark_sources.lambda_in_sample import load_lambda_in_sample
from shared.perfmodel.benchmark_sources.llamacpp import load_llamacpp
from shared.perfmodel.benchmark_sources.llmperf import load_llmperf
from shared.perfmodel.benchmark_sources.measurement import LoadResult
from shared.perfmodel.benchmark_sources.mlperf_inference import load_mlperf_inference
from shared.perfmodel.benchmark_sources.mlperf_training import load_mlperf_training


def iter_loaders(catalog: Catalog) -> Iterator[LoadResult]:
    yield load_mlperf_training(catalog)
    yield load_mlperf_inference(catalog)
    yield load_llmperf(catalog)
    yield load_llamacpp(catalog)
    yield load_geerlingguy(catalog)


def load_all(include_in_sample: bool = True) -> LoadResult:
    """Every bundled source (and Lambda, labelled in-sample), against the current catalog."""
    catalog = load_catalog()
    result = LoadResult()
    for part in iter_loaders(catalog):
        result.extend(part)
    if include_in_sample:
        result.extend(load_lambda_in_sample())
    return result
