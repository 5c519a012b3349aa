"""Fixtures the shared-package tests use: the catalog and the calibrated model, loaded once."""

from __future__ import annotations

import pytest

from shared.catalog.specs import Catalog, load_catalog
from shared.perfmodel.calibrated import CalibratedModel


@pytest.fixture(scope="session")
def catalog() -> Catalog:
    return load_catalog()


@pytest.fixture(scope="session")
def model() -> CalibratedModel:
    return CalibratedModel()
