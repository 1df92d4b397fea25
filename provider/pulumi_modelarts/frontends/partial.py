"""A create that gave up on a job that may still run (``reports.JobMayStillRun``), answered as the engine's
partial create: a failed ``Create`` whose gRPC status carries an ``ErrorResourceInitFailed`` detail with the
job's id and outputs and the error text as its reason.

The engine then records the resource in the state with that id and those outputs and reports its creation as
failed with the text (``1 error occurred: * <text>``): the job is never left running outside the state. The
next `pulumi up` updates the resource (an empty ``Update``: it is read again and kept), `pulumi destroy`
deletes it (the job is terminated). Both front-ends answer so: the native plugin from its servicer
(``serving``), the dynamic provider from the host's servicer context (``dynamic``).
"""

from __future__ import annotations

from typing import Any

__all__ = ["PartialCreate", "init_failed_status"]


class PartialCreate(Exception):
    """A create to answer as a partial one: resource_id and properties (the outputs as a protobuf Struct, as
    the engine takes them) are recorded, text is the error the engine shows."""

    def __init__(self, text: str, resource_id: str, properties: Any) -> None:
        super().__init__(text)
        self.text = text
        self.resource_id = resource_id
        self.properties = properties

    def status(self) -> Any:
        return init_failed_status(self.text, self.resource_id, self.properties)


def init_failed_status(text: str, resource_id: str, properties: Any) -> Any:
    """The gRPC status (a ``grpc.Status``) of a create whose resource exists but failed to initialise: its
    details hold the ``ErrorResourceInitFailed`` the engine reads the id, the outputs and the reason from."""
    import grpc  # type: ignore[import-untyped]  # (no stubs; one class and one code used)
    from pulumi.runtime.proto import provider_pb2, status_pb2

    detail = provider_pb2.ErrorResourceInitFailed(id=resource_id, properties=properties, reasons=[text])
    packed = status_pb2.Status(code=grpc.StatusCode.UNKNOWN.value[0], message=text)
    packed.details.add().Pack(detail)
    # As pulumi's own provider server builds a status with details (grpc.Status carries them as the
    # trailing metadata gRPC defines for them).
    status = grpc.Status()
    status.code = grpc.StatusCode.UNKNOWN
    status.details = text
    status.trailing_metadata = (("grpc-status-details-bin", packed.SerializeToString()),)
    return status
