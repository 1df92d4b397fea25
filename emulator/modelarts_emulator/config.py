"""The emulator's settings: demo credentials, the service's rules, lifecycle timing and faults."""

from __future__ import annotations

from dataclasses import dataclass

# Documented demo values: the emulator is a local test double, so fixed, well-known credentials are fine.
DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8910
DEFAULT_ACCESS_KEY = "EMULATORAK000000000"
DEFAULT_SECRET_KEY = "emulator-secret-key"
DEFAULT_PROJECT_ID = "0123456789abcdef0123456789abcdef"
DEFAULT_USER_NAME = "emulator_user"


@dataclass(frozen=True)
class Timing:
    """How long a job spends in each phase, in seconds."""

    creating: float = 2.0
    pending: float = 3.0
    running: float = 10.0
    terminating: float = 1.0


# Which code a throttled request is answered with: the API gateway's, ModelArts' own, or either at random.
THROTTLE_CODES = ("APIG.0308", "ModelArts.2799", "mixed")


@dataclass(frozen=True)
class Faults:
    """Injected misbehaviour; each rate is a probability per API request (0 = never)."""

    latency_ms: int = 0
    throttle_rate: float = 0.0
    throttle_code: str = "APIG.0308"
    fault_rate: float = 0.0
    drop_after_commit_rate: float = 0.0
    terminate_conflict_rate: float = 0.0  # terminates answered 409 ModelArts.2878 "status changed"
    seed: int | None = None


@dataclass(frozen=True)
class EmulatorConfig:
    access_key: str = DEFAULT_ACCESS_KEY
    secret_key: str = DEFAULT_SECRET_KEY
    project_id: str = DEFAULT_PROJECT_ID
    auth_token: str | None = None
    user_name: str = DEFAULT_USER_NAME
    # The service refuses a create whose name a kept job holds (ModelArts.2751); off accepts duplicates.
    unique_names: bool = True
    timing: Timing = Timing()
    faults: Faults = Faults()

    def __repr__(self) -> str:
        # Secrets stay out of logs even if the config itself gets logged.
        return f"EmulatorConfig(access_key={self.access_key!r}, project_id={self.project_id!r}, ...)"
