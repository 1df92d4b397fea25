"""The native plugin's warm-up: the models and the client loaded, and their validators built, on a thread of
their own once an operation says a create may follow, rather than inside the first call that needs them.
"""

from __future__ import annotations

import threading

__all__ = ["WarmUp", "warm_up"]


def warm_up(ready: threading.Event | None = None) -> None:
    """Load what a check needs (core, the request models) and build their validators, which pydantic
    otherwise builds inside the first call that validates (about 0.1 s of CPU); then the same for what a
    create needs beyond it (the client, the response models); then set ready.

    A check does not wait for it: a no-change check needs no models at all, and one that validates imports
    them (Python's import lock makes it wait for an import under way) and waits in ``build_validators`` for a
    build under way rather than building the same validator again.
    """
    try:
        from ..job import core, resource_schema  # noqa: F401  (imported for their cost)
        from ..wire import models

        models.build_validators(models.CreateTrainingJobRequest, resource_schema.ProviderSettings)
        from ..account import session  # noqa: F401  (the client: the transport and the operations)

        models.build_validators(models.TrainingJob, resource_schema.ResourceOutputs)
    finally:
        if ready is not None:
            ready.set()


class WarmUp:
    """``warm_up`` on a thread of its own, started by the first operation that says a create may follow.

    Not at plugin start: a no-change preview or a refresh never needs the request validators, and loading
    them competes for the GIL and the CPU with the answers the engine waits for (a 20-job no-change preview
    took about 90 ms longer with it). A create waits for it rather than building the response models'
    validators a second time on its own thread.
    """

    def __init__(self) -> None:
        self.ready = threading.Event()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        with self._lock:
            if self._thread is None:
                self._thread = threading.Thread(
                    target=warm_up, args=(self.ready,), name="modelarts-warm-up", daemon=True
                )
                self._thread.start()

    @property
    def started(self) -> bool:
        return self._thread is not None

    def wait(self) -> None:
        self.start()
        self.ready.wait(timeout=60)
