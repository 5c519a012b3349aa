"""Every entry point's Context limits BLAS to one thread in the loaded libraries."""

from __future__ import annotations

from threadpoolctl import threadpool_info, threadpool_limits

from shared.wiring.blas import one_blas_thread


def _blas_threads() -> set[int]:
    return {int(lib["num_threads"]) for lib in threadpool_info() if lib["user_api"] == "blas"}


def test_one_blas_thread_limits_every_loaded_blas_library() -> None:
    one_blas_thread()  # loads numpy's and scipy's BLAS
    threadpool_limits(limits=2, user_api="blas")
    assert _blas_threads() == {2}
    one_blas_thread()
    assert _blas_threads() == {1}
