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
# The account (IAM domain) the base keys belong to, and a second account whose agency they may assume.
DEFAULT_REGION = "cn-north-4"
DEFAULT_DOMAIN_ID = "d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0"
DEFAULT_DOMAIN_NAME = "emulator_account"
DEFAULT_AGENCY_NAME = "modelarts_agency"
DEFAULT_AGENCY_DOMAIN_ID = "a9a9a9a9a9a9a9a9a9a9a9a9a9a9a9a9"
DEFAULT_AGENCY_DOMAIN_NAME = "emulator_partner"
DEFAULT_AGENCY_PROJECT_ID = "fedcba9876543210fedcba9876543210"
DEFAULT_IDP_ID = "emulator_idp"
DEFAULT_ID_TOKEN = "emulator-id-token"


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
    # The gateway's budget: API calls per second for the account (0 = none); beyond it 429 APIG.0308.
    rate_limit: float = 0.0


@dataclass(frozen=True)
class AccountSettings:
    """IAM and the instance metadata service as the emulator plays them (``iam.py``, ``metadata.py``)."""

    region: str = DEFAULT_REGION  # the project named after it is EmulatorConfig.project_id
    domain_id: str = DEFAULT_DOMAIN_ID
    domain_name: str = DEFAULT_DOMAIN_NAME
    sub_projects: tuple[str, ...] = ()  # full names, "{region}_{suffix}"
    list_projects_forbidden: bool = False  # GET /v3/projects answered 403 (users without the permission)
    # The agency (in a second account) the base keys may assume; its keys see that account's project.
    agency_name: str = DEFAULT_AGENCY_NAME
    agency_domain_id: str = DEFAULT_AGENCY_DOMAIN_ID
    agency_domain_name: str = DEFAULT_AGENCY_DOMAIN_NAME
    agency_project_id: str = DEFAULT_AGENCY_PROJECT_ID
    # The identity provider and the id token (taken as an opaque string) that id-token login accepts.
    idp_id: str = DEFAULT_IDP_ID
    id_token: str = DEFAULT_ID_TOKEN
    # Lifetime of every issued key pair; None: what the request asked (IAM), 24 h (metadata).
    temporary_key_seconds: float | None = None
    metadata_tokens: bool = True  # off: PUT /meta-data/latest/api/token answered 404, as an old service
    metadata_agency: bool = True  # off: no agency attached to the "instance" (securitykey answered 401)

    def __repr__(self) -> str:
        return f"AccountSettings(region={self.region!r}, domain_name={self.domain_name!r}, ...)"


# Whether the account may read the training catalogue (flavors, engines); closed: both listings answer 403.
CATALOGUE_STATES = ("open", "closed")


@dataclass(frozen=True)
class EmulatorConfig:
    access_key: str = DEFAULT_ACCESS_KEY
    secret_key: str = DEFAULT_SECRET_KEY
    project_id: str = DEFAULT_PROJECT_ID
    auth_token: str | None = None
    user_name: str = DEFAULT_USER_NAME
    # The service refuses a create whose name a kept job holds (ModelArts.2751); off accepts duplicates.
    unique_names: bool = True
    catalogue: str = "open"  # one of CATALOGUE_STATES
    timing: Timing = Timing()
    faults: Faults = Faults()
    accounts: AccountSettings = AccountSettings()

    def __repr__(self) -> str:
        # Secrets stay out of logs even if the config itself gets logged.
        return f"EmulatorConfig(access_key={self.access_key!r}, project_id={self.project_id!r}, ...)"
