"""GCP rows: host VM price + accelerator price, paired by accelerator name, count and zone."""

from __future__ import annotations

import re
from collections.abc import Iterator
from decimal import Decimal

from shared.bundled._data import Skip, parse_price
from shared.bundled._offers import Offer
from shared.bundled.mapping import GCP_FAMILIES, GCP_G2_GPU_COUNTS, GCP_N1_ACCELERATORS

Row = dict[str, str]
_AcceleratorKey = tuple[str, int, str]  # (AcceleratorName, count, zone)
_GPU_COUNT = re.compile(r"-(\d+)g(?:-|$)")  # "a3-highgpu-8g", "a3-ultragpu-8g-nolssd"


def _family(instance_type: str) -> str:
    return "-".join(instance_type.split("-")[:2])


def _gpu_count(instance_type: str) -> int | None:
    if instance_type in GCP_G2_GPU_COUNTS:
        return GCP_G2_GPU_COUNTS[instance_type]
    match = _GPU_COUNT.search(instance_type)
    return int(match.group(1)) if match else None


def _host_price(text: str) -> Decimal | None:
    # a4-highgpu-8g host rows are 0.0: A4 is billed as one bundle, whose whole price sits on the
    # B200 accelerator row. A blank host price stays unknown.
    if text.strip() in {"0", "0.0"}:
        return Decimal(0)
    return parse_price(text)


def _add(host: Decimal | None, accelerator: Decimal | None) -> Decimal | None:
    if host is None or accelerator is None:
        return None
    total = host + accelerator
    return total if total > 0 else None


def _accelerator_prices(rows: list[Row]) -> dict[_AcceleratorKey, Row]:
    return {
        (row["AcceleratorName"], int(float(row["AcceleratorCount"])), row["AvailabilityZone"]): row
        for row in rows
        if not row["InstanceType"] and row["AcceleratorCount"]
    }


def _host_offer(row: Row, accelerators: dict[_AcceleratorKey, Row]) -> Offer | Skip:
    instance_type = row["InstanceType"]
    family = GCP_FAMILIES.get(_family(instance_type))
    count = _gpu_count(instance_type)
    if family is None or count is None:
        return Skip("host VM without GPUs or unmapped")
    accelerator_name, gpu_id = family
    accelerator = accelerators.get((accelerator_name, count, row["AvailabilityZone"]))
    if accelerator is None:
        return Skip("no accelerator price in the host's zone")
    return Offer(
        instance_type=instance_type,
        gpu_id=gpu_id,
        gpu_count=float(count),
        region=row["Region"],
        on_demand=_add(_host_price(row["Price"]), parse_price(accelerator["Price"])),
        spot=_add(_host_price(row["SpotPrice"]), parse_price(accelerator["SpotPrice"])),
    )


def _accelerator_row_skip(row: Row) -> Skip | None:
    """Accelerator rows never become records themselves; count the ones no host VM can use."""
    name = row["AcceleratorName"]
    if name.startswith("tpu-"):
        return Skip("TPU")
    if name in GCP_N1_ACCELERATORS:
        return Skip("N1 accelerator row: no n1 host VM rows in the snapshot to pair with")
    return None


def gcp_offers(rows: list[Row]) -> Iterator[Offer | Skip]:
    accelerators = _accelerator_prices(rows)
    for row in rows:
        if row["InstanceType"]:
            yield _host_offer(row, accelerators)
        elif (skip := _accelerator_row_skip(row)) is not None:
            yield skip
