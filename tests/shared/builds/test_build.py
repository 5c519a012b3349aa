"""The one build model: layouts, the system cost around the GPUs, and the speed-up."""

from __future__ import annotations

from decimal import Decimal

import pytest

from shared.builds.build import build_speed, cloud_layout, plan_build
from shared.builds.errors import BuildInputError
from shared.builds.layout import plan_layout
from shared.catalog.specs import GpuSpec, load_catalog
from shared.kit.settings import Settings
from shared.perfmodel.registry import get_model

SETTINGS = Settings(environment="test", broker_url="")


def gpu(gpu_id: str) -> GpuSpec:
    return load_catalog().by_id[gpu_id]


def test_node_bases_are_the_settings_and_the_seed_figure() -> None:
    # $2,200 desktop minus the $1,499 launch price; 4- and 8-GPU bases are settings.
    one = plan_build([gpu("rtx-3090")], 1, SETTINGS)
    assert one.layout.node_kind == "desktop-1-2" and one.system_usd == Decimal("700")
    a6000 = plan_build([gpu("rtx-a6000")], 4, SETTINGS)
    assert a6000.layout.node_kind == "workstation-4"
    # 4 x 48 GB of GPU memory needs 64 GB of RAM beyond the base's 128 GB ($3/GB).
    assert a6000.system_usd == Decimal("2500") + 64 * 3
    custom = Settings(environment="test", broker_url="", system_cost_8_gpu_usd=12000.0)
    # 8 x 80 GB: 128 GB of RAM beyond the server base's 512 GB.
    assert plan_build([gpu("h100-sxm5")], 8, custom).system_usd == Decimal("12000") + 128 * 3


def test_an_sxm_module_takes_a_server_even_alone() -> None:
    build = plan_build([gpu("a100-80gb-sxm4")], 1, SETTINGS)
    assert build.layout.node_kind == "server-8" and build.layout.deployment == "datacenter"
    assert build.system_usd == Decimal("9000")


def test_several_machines_pay_for_their_network() -> None:
    one = plan_build([gpu("rtx-a6000")], 8, SETTINGS, deployment="datacenter")
    two = plan_build([gpu("rtx-a6000")], 16, SETTINGS, deployment="datacenter")
    assert two.layout.node_counts == (8, 8)
    network = [line for line in two.system_lines if line.category == "network"]
    assert network and not [line for line in one.system_lines if line.category == "network"]
    assert two.system_usd == 2 * one.system_usd + sum(line.total_usd for line in network)


def test_speed_up_follows_the_layout_it_was_priced_on() -> None:
    model, spec = get_model(), gpu("rtx-a6000")
    server = plan_build([spec], 8, SETTINGS, deployment="datacenter")
    workstations = plan_build([spec], 8, SETTINGS, deployment="workstation")
    fast = build_speed(model, server, [spec], "cv", "fp16")
    slow = build_speed(model, workstations, [spec], "cv", "fp16")
    # Two 4-GPU machines pay the network's efficiency; one 8-GPU server does not.
    assert workstations.layout.node_counts == (4, 4)
    assert slow.total_speedup < fast.total_speedup <= 8
    assert slow.network == "infiniband" and fast.network is None


def test_rented_gpus_come_in_cloud_servers_of_eight() -> None:
    layout = cloud_layout(gpu("rtx-4090"), 12)
    assert layout.node_counts == (6, 6) and layout.deployment == "datacenter"


def test_bad_choices_name_the_field_and_the_valid_values() -> None:
    with pytest.raises(BuildInputError) as error:
        plan_build([gpu("rtx-3090")], 2, SETTINGS, deployment="moon")
    assert error.value.field == "deployment" and "auto" in (error.value.valid or [])
    with pytest.raises(BuildInputError) as error:
        plan_build([gpu("rtx-3090")], 2, SETTINGS, network="pigeon")
    assert error.value.field == "network"


def test_requested_deployment_is_kept_and_labelled() -> None:
    layout = plan_layout([gpu("rtx-3090")], 6, "datacenter")
    assert layout.reason == "requested" and layout.node_counts == (6,)
