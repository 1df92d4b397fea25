"""The account's training catalogue (pure): the public-pool flavors and the engines, and their two listings.

``GET /v2/{project_id}/training-job-flavors[?flavor_type=CPU|GPU|Ascend]`` answers ``{total_count, flavors}``
and ``GET /v2/{project_id}/training-job-engines`` answers ``{total, items}``, in the official SDK's shapes
(``ShowTrainingJobFlavorsResponse``, ``ShowTrainingJobEnginesResponse``). ``FLAVORS`` is also what a create's
``spec.resource.flavor_name``/``flavor_detail`` are filled from (``shapes.py``), so the listing and the jobs
never disagree about a flavor.
"""

from __future__ import annotations

import copy
from typing import Any

FLAVOR_TYPES = ("CPU", "GPU", "Ascend")

# Public-pool flavors: the seed examples' (the free Vnt1, P100) plus Pnt1, two CPU and an Ascend one.
# Each: flavor_name, max_num (most nodes a job may ask; 1: no distributed training), the job's flavor_detail
# as the seed example shows it, and the disk the listing adds.
FLAVORS: dict[str, dict[str, Any]] = {
    "modelarts.p3.large.public.free": {
        "flavor_name": "Computing GPU(Vnt1) instance",
        "max_num": 1,
        "flavor_detail": {
            "flavor_type": "GPU",
            "billing": {"code": "modelarts.vm.gpu.free", "unit_num": 1},
            "flavor_info": {
                "cpu": {"arch": "x86", "core_num": 8},
                "gpu": {"unit_num": 1, "product_name": "GP-Vnt1", "memory": "32GB"},
                "memory": {"size": 64, "unit": "GB"},
            },
        },
        "disk": {"size": 780, "unit": "GB"},
    },
    "modelarts.vm.pnt1.large.eco": {
        "flavor_name": "Computing GPU(Pnt1) instance",
        "max_num": 16,
        "flavor_detail": {
            "flavor_type": "GPU",
            "billing": {"code": "modelarts.vm.gpu.pnt1.eco", "unit_num": 1},
            "flavor_info": {
                "cpu": {"arch": "x86", "core_num": 8},
                "gpu": {"unit_num": 1, "product_name": "GP-Pnt1", "memory": "8GB"},
                "memory": {"size": 64, "unit": "GB"},
            },
        },
        "disk": {"size": 780, "unit": "GB"},
    },
    "modelarts.vm.p100.large.eco": {
        "flavor_name": "Computing GPU(P100) instance",
        "max_num": 8,
        "flavor_detail": {
            "flavor_type": "GPU",
            "billing": {"code": "modelarts.vm.gpu.p100.eco", "unit_num": 1},
            "flavor_info": {
                "cpu": {"arch": "x86", "core_num": 8},
                "gpu": {"unit_num": 1, "product_name": "NVIDIA-P100", "memory": "8GB"},
                "memory": {"size": 64, "unit": "GB"},
            },
        },
        "disk": {"size": 780, "unit": "GB"},
    },
    "modelarts.vm.cpu.2u": {
        "flavor_name": "Computing CPU(2U) instance",
        "max_num": 1,
        "flavor_detail": {
            "flavor_type": "CPU",
            "billing": {"code": "modelarts.vm.cpu.2u", "unit_num": 1},
            "flavor_info": {"cpu": {"arch": "x86", "core_num": 2}, "memory": {"size": 8, "unit": "GB"}},
        },
        "disk": {"size": 50, "unit": "GB"},
    },
    "modelarts.vm.cpu.8u": {
        "flavor_name": "Computing CPU(8U) instance",
        "max_num": 1,
        "flavor_detail": {
            "flavor_type": "CPU",
            "billing": {"code": "modelarts.vm.cpu.8u", "unit_num": 1},
            "flavor_info": {"cpu": {"arch": "x86", "core_num": 8}, "memory": {"size": 32, "unit": "GB"}},
        },
        "disk": {"size": 100, "unit": "GB"},
    },
    "modelarts.kat1.xlarge": {
        "flavor_name": "Ascend: 1*Ascend910(32GB) | ARM: 24 vCPUs 96GB",
        "max_num": 8,
        "flavor_detail": {
            "flavor_type": "Ascend",
            "billing": {"code": "modelarts.kat1.xlarge", "unit_num": 1},
            "flavor_info": {
                "cpu": {"arch": "arm", "core_num": 24},
                # The SDK's npu.unit_num is a string, unlike gpu.unit_num.
                "npu": {"unit_num": "1", "product_name": "Ascend-910(32GB)", "memory": "32GB"},
                "memory": {"size": 96, "unit": "GB"},
            },
        },
        "disk": {"size": 750, "unit": "GB"},
    },
}

# Preset engines: the seed example's v1-compatible PyTorch, and v2 PyTorch, TensorFlow and MindSpore images. A
# v2 engine's version is its id, as in the API page's example (caffe-1.0.0-python2.7 for both).
ENGINES: tuple[dict[str, Any], ...] = (
    {
        "engine_id": "pytorch-cp36-1.4.0-v2",
        "engine_name": "PyTorch",
        "engine_version": "PyTorch-1.4.0-python3.6-v2",
        "v1_compatible": True,
        "run_user": "1102",
        "image_info": {
            "cpu_image_url": "aip/pytorch-cp36-1.4.0:cpu",
            "gpu_image_url": "aip/pytorch-cp36-1.4.0:gpu",
            "image_version": "PyTorch-1.4.0-python3.6-v2-20210113",
        },
    },
    {
        "engine_id": "pytorch_1.8.0-cuda_10.2-py_3.7-ubuntu_18.04-x86_64",
        "engine_name": "PyTorch",
        "engine_version": "pytorch_1.8.0-cuda_10.2-py_3.7-ubuntu_18.04-x86_64",
        "v1_compatible": False,
        "run_user": "1102",
        "image_info": {
            "cpu_image_url": "aip/pytorch_1_8:train",
            "gpu_image_url": "aip/pytorch_1_8:train",
            "image_version": "pytorch_1.8.0-cuda_10.2-py_3.7-ubuntu_18.04-x86_64-20220926104358-041ba2e",
        },
    },
    {
        "engine_id": "pytorch_2.1.0-cuda_12.1-py_3.10-ubuntu_22.04-x86_64",
        "engine_name": "PyTorch",
        "engine_version": "pytorch_2.1.0-cuda_12.1-py_3.10-ubuntu_22.04-x86_64",
        "v1_compatible": False,
        "run_user": "1102",
        "image_info": {
            "cpu_image_url": "aip/pytorch_2_1:train",
            "gpu_image_url": "aip/pytorch_2_1:train",
            "image_version": "pytorch_2.1.0-cuda_12.1-py_3.10-ubuntu_22.04-x86_64-20240606190017-0e5ab0d",
        },
    },
    {
        "engine_id": "tensorflow_2.1.0-cuda_10.1-py_3.7-ubuntu_18.04-x86_64",
        "engine_name": "TensorFlow",
        "engine_version": "tensorflow_2.1.0-cuda_10.1-py_3.7-ubuntu_18.04-x86_64",
        "v1_compatible": False,
        "run_user": "1102",
        "image_info": {
            "cpu_image_url": "aip/tensorflow_2_1:train",
            "gpu_image_url": "aip/tensorflow_2_1:train",
            "image_version": "tensorflow_2.1.0-cuda_10.1-py_3.7-ubuntu_18.04-x86_64-20220926104358-041ba2e",
        },
    },
    {
        "engine_id": "mindspore_1.7.0-cann_5.1.0-py_3.7-euler_2.8.3-aarch64",
        "engine_name": "Ascend-Powered-Engine",
        "engine_version": "mindspore_1.7.0-cann_5.1.0-py_3.7-euler_2.8.3-aarch64",
        "v1_compatible": False,
        "run_user": "1000",
        "image_info": {
            "cpu_image_url": "",
            "gpu_image_url": "atelier/mindspore_1_7_0:train",
            "image_version": "mindspore_1.7.0-cann_5.1.0-py_3.7-euler_2.8.3-aarch64-20220906",
        },
    },
)


def _listed(flavor_id: str, entry: dict[str, Any]) -> dict[str, Any]:
    detail = copy.deepcopy(entry["flavor_detail"])
    # The SDK's item (FlavorResponseWithSupport) and its flavor_info (FlavorInfoResponse) both carry max_num;
    # the API page documents both, so both are sent, with one value.
    return {
        "flavor_id": flavor_id,
        "flavor_name": entry["flavor_name"],
        "max_num": entry["max_num"],
        "flavor_type": detail["flavor_type"],
        "billing": detail["billing"],
        "flavor_info": {"max_num": entry["max_num"], **detail["flavor_info"], "disk": dict(entry["disk"])},
        "attributes": {"is_multi_nodes_supported": "true" if entry["max_num"] > 1 else "false"},
    }


def flavors(flavor_type: str | None) -> dict[str, Any]:
    """The flavor listing, of one type (``FLAVOR_TYPES``) or, with None, of every type."""
    listed = [
        _listed(flavor_id, entry)
        for flavor_id, entry in FLAVORS.items()
        if flavor_type is None or entry["flavor_detail"]["flavor_type"] == flavor_type
    ]
    return {"total_count": len(listed), "flavors": listed}


def engines() -> dict[str, Any]:
    """The engine listing."""
    return {"total": len(ENGINES), "items": copy.deepcopy(list(ENGINES))}

