"""Load the catalog and the bundled, dated price data into the database.

Idempotent: rows already present (same source, listing id and time) are skipped, so
running it on every start adds only what a newer release of the bundle brings.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, fields
from typing import Any

from sqlalchemy import insert
from sqlmodel import Session, select

from shared.bundled.readers import (
    iter_amazon_prices,
    iter_cloud_medians,
    iter_cloud_offers,
    iter_ebay_monthly_prices,
    iter_ebay_snapshot_prices,
    iter_feed_offers,
    iter_gpupoet_list_prices,
    iter_gpupoet_prices,
    iter_msrp_prices,
    iter_vast_daily,
)
from shared.bundled.records import CloudRecord, PriceRecord
from shared.catalog.specs import GpuSpec, load_catalog
from shared.models import CloudOffer, Gpu, PriceObservation

BATCH = 2000


@dataclass(frozen=True, slots=True)
class SeedResult:
    gpus_added: int
    gpus_updated: int
    prices_added: int
    cloud_offers_added: int

    @property
    def changed(self) -> bool:
        return any((self.gpus_added, self.gpus_updated, self.prices_added, self.cloud_offers_added))


def _gpu_row(spec: GpuSpec) -> dict[str, Any]:
    return {
        "id": spec.id,
        "name": spec.name,
        "vendor": spec.vendor,
        "segment": spec.segment,
        "architecture": spec.architecture,
        "form_factor": spec.form_factor,
        "release_date": spec.release_date,
        "launch_price_usd": spec.launch_price_usd,
        "memory_gb": spec.memory_gb,
        "memory_bandwidth_gbs": spec.memory_bandwidth_gbs,
        "tdp_w": spec.tdp_w,
        "geforce_eula": spec.geforce_eula,
        "sources": spec.sources,
        "notes": spec.notes,
    }


def seed_catalog(session: Session) -> tuple[int, int]:
    """Insert new catalog GPUs and update changed ones; returns (added, updated)."""
    existing = {gpu.id: gpu for gpu in session.exec(select(Gpu))}
    added = updated = 0
    for spec in load_catalog().gpus:
        row = _gpu_row(spec)
        current = existing.get(spec.id)
        if current is None:
            session.add(Gpu(**row))
            added += 1
        elif current.model_dump() != row:
            current.sqlmodel_update(row)
            updated += 1
    session.flush()
    return added, updated


def _row(record: PriceRecord | CloudRecord) -> dict[str, Any]:
    """A record's fields as a row: no deep copy of each value as `dataclasses.asdict` makes
    (most of the seeding time); the values are immutable."""
    return {field.name: getattr(record, field.name) for field in fields(record)}


def _price_rows(records: Iterable[PriceRecord], seen: set[tuple[Any, ...]]) -> list[dict[str, Any]]:
    rows = []
    for record in records:
        key = (record.source, record.listing_id, record.observed_at)
        if key in seen:
            continue
        seen.add(key)
        row = _row(record)
        row["price"] = row["price_usd"]
        row["currency"] = "USD"
        rows.append(row)
    return rows


def seed_prices(session: Session) -> int:
    existing = session.exec(
        select(
            PriceObservation.source, PriceObservation.listing_id, PriceObservation.observed_at
        ).where(PriceObservation.kind.in_(("msrp", "snapshot")))  # type: ignore[attr-defined]
    ).all()
    seen: set[tuple[Any, ...]] = {tuple(row) for row in existing}
    records = [
        *iter_msrp_prices(),
        *iter_gpupoet_list_prices(),
        *iter_amazon_prices(),
        *iter_ebay_monthly_prices(),
        *iter_gpupoet_prices(),
        *iter_ebay_snapshot_prices(),
    ]
    return _insert_batches(session, PriceObservation, _price_rows(records, seen))


def _cloud_rows(records: Iterable[CloudRecord], seen: set[tuple[Any, ...]]) -> list[dict[str, Any]]:
    rows = []
    for record in records:
        key = (record.provider, record.instance_type, record.region, record.observed_at)
        if key not in seen:
            seen.add(key)
            rows.append(_row(record))
    return rows


def seed_cloud_offers(session: Session) -> int:
    existing = session.exec(
        select(
            CloudOffer.provider, CloudOffer.instance_type, CloudOffer.region, CloudOffer.observed_at
        ).where(CloudOffer.kind == "snapshot")
    ).all()
    seen: set[tuple[Any, ...]] = {tuple(row) for row in existing}
    records = [
        *iter_cloud_offers(),
        *iter_cloud_medians(),
        *iter_feed_offers(),
        *iter_vast_daily(),
    ]
    return _insert_batches(session, CloudOffer, _cloud_rows(records, seen))


def _insert_batches(session: Session, table: Any, rows: list[dict[str, Any]]) -> int:
    for start in range(0, len(rows), BATCH):
        session.execute(insert(table), rows[start : start + BATCH])
    session.flush()
    return len(rows)


def seed_all(session: Session) -> SeedResult:
    added, updated = seed_catalog(session)
    return SeedResult(added, updated, seed_prices(session), seed_cloud_offers(session))
