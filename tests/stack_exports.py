"""A stack export as `pulumi stack export` writes it after a killed `pulumi up`: jobs in the state, and a
create the engine began but never finished (the orphan finder's input)."""

from __future__ import annotations

from typing import Any

__all__ = ["TYPE", "URN", "export"]

TYPE = "pulumi-python:dynamic/modelarts:TrainingJob"
URN = f"urn:pulumi:dev::proj::{TYPE}::train"


def export(name: str, known_ids: list[str]) -> dict[str, Any]:
    """The export of a stack holding the jobs known_ids, and a pending create (URN) of a job named name."""
    provider = {"ciphertext": "v1:opaque"}
    return {
        "version": 3,
        "deployment": {
            "resources": [
                {"urn": f"urn:pulumi:dev::proj::{TYPE}::old{i}", "type": TYPE, "id": job_id}
                for i, job_id in enumerate(known_ids)
            ],
            "pending_operations": [
                {
                    "type": "creating",
                    "resource": {
                        "urn": URN,
                        "type": TYPE,
                        "custom": True,
                        "inputs": {"__provider": provider, "metadata": {"name": name}, "wait_for": "none"},
                    },
                },
                {"type": "updating", "resource": {"urn": "urn:x", "type": TYPE, "inputs": {}}},
            ],
        },
    }
