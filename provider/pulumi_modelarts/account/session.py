"""Settings turned into a client (``open_api``) and what it needs: the project id, a signer, the CA file
and the secrets to scrub.

Which keys sign, in the order of ``settings`` (``sources.CREDENTIAL_ORDER``: the first complete source wins,
and only its keys are in the settings):

1. an access key and secret key (with their security token, if any), as given;
2. an IAM token;
3. an OIDC login (``idp_id`` and ``id_token_file``): temporary keys, renewed;
4. the instance metadata service (``use_instance_metadata``): temporary keys, renewed.

With ``assume_role``, those are the base credentials that ask IAM for the agency's keys (renewed), and every
ModelArts call, and the project lookup, uses the agency's keys: the project is the other account's.

Without a project id, the project named ``project_name``, else the region, is found in IAM
(``projects.find_project``), at the first call that needs it, for every job that needs it meanwhile, each
within its own time (``within``): a session is opened only when a ModelArts call is about to be made.
Temporary keys are shared by every call of the process (one ``RenewingKeys`` per identity), and so is each
project found.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, NoReturn

import httpx

from ..wire.api import ModelArtsAPI
from ..wire.auth import AkSkAuth, TokenAuth
from ..wire.endpoints import endpoint_for_region, normalize_endpoint
from ..wire.transport import Transport
from .errors import SettingsError, as_settings_error
from .iam import AgencyKeys, Iam, OidcKeys
from .keys import KeySource, RenewingAuth, RenewingKeys
from .metadata import MetadataKeys
from .projects import find_project, fingerprint
from .settings import Settings

__all__ = [
    "Session",
    "forget_keys",
    "iam_base",
    "open_api",
    "open_session",
    "shared_keys",
    "temporary_secrets",
]

_LOG = logging.getLogger(__name__)
_LOCK = threading.Lock()
_KEYS: dict[str, RenewingKeys] = {}


@dataclass(frozen=True, repr=False)
class Session:
    """What a ModelArts client is built from. ``secrets()`` is asked again at each use: renewed keys, the
    tokens handled for them and the id token's content join the settings' own credentials."""

    project_id: str
    auth: httpx.Auth
    ca_cert_file: str | None
    source: str  # where the keys come from, for messages (never a credential)
    secrets: Callable[[], tuple[str, ...]]

    def __repr__(self) -> str:
        return f"Session(project_id={self.project_id!r}, source={self.source!r})"

    def __reduce__(self) -> NoReturn:
        raise TypeError("Session holds credentials and must not be pickled")


@dataclass(frozen=True)
class _Signer:
    """Credentials of one kind: a signer for a project id (None: IAM's calls), who they are, what they are."""

    make: Callable[[str | None], httpx.Auth]
    identity: str
    source: str


def iam_base(settings: Settings) -> str:
    """IAM's base URL (without /v3): the iamEndpoint given, else ``https://iam.{region}.{cloud}``."""
    given = (settings.iam_endpoint or "").strip().rstrip("/")
    if given.endswith("/v3"):
        given = given[: -len("/v3")]
    with as_settings_error():  # the wire's checks below refuse the user's settings
        if not given:
            if not settings.region:
                raise SettingsError(
                    "IAM's endpoint is needed (to find the project, or for an agency or an OIDC login) and "
                    "there is no region to derive it from: set the region (modelarts:region or "
                    "HW_REGION_NAME) or IAM's endpoint (modelarts:iamEndpoint or HW_AUTH_URL)"
                )
            endpoint_for_region(settings.region)  # the one check of a region name: never iam..{cloud}
            given = f"https://iam.{settings.region}.{settings.cloud}"
        return normalize_endpoint(given)


def shared_keys(identity: str, source: Callable[[], KeySource]) -> RenewingKeys:
    """The process's one ``RenewingKeys`` for this identity, made from ``source()`` the first time."""
    with _LOCK:
        keys = _KEYS.get(identity)
        if keys is None:
            keys = _KEYS[identity] = RenewingKeys(source())
        return keys


def temporary_secrets() -> tuple[str, ...]:
    """Every temporary key, token and id token this process has handled (recent ones), for scrubbing."""
    with _LOCK:
        held = list(_KEYS.values())
    return tuple(value for keys in held for value in keys.secrets())


def forget_keys() -> None:
    """Drop every shared key (tests)."""
    with _LOCK:
        _KEYS.clear()


def _renewing(identity: str, source: Callable[[], KeySource]) -> _Signer:
    keys = shared_keys(identity, source)
    return _Signer(lambda project: RenewingAuth(keys, project_id=project), identity, keys.source.name)


def _base_signer(settings: Settings, iam: Callable[[], Iam]) -> _Signer:
    if settings.access_key and settings.secret_key:
        ak, sk, token = settings.access_key, settings.secret_key, settings.security_token
        return _Signer(
            lambda project: AkSkAuth(ak, sk, security_token=token, project_id=project),
            fingerprint("aksk", ak, sk, token),
            settings.credentials_source,
        )
    if settings.auth_token:
        auth_token = settings.auth_token
        return _Signer(
            lambda project: TokenAuth(auth_token, project_id=project),
            fingerprint("token", auth_token),
            settings.credentials_source,
        )
    if settings.idp_id and settings.id_token_file:
        idp, token_file = settings.idp_id, settings.id_token_file
        base = iam()
        identity = fingerprint("oidc", base.base, idp, token_file, settings.ca_cert_file)
        return _renewing(identity, lambda: OidcKeys(base, idp, token_file))
    if settings.use_instance_metadata:
        endpoint = settings.metadata_endpoint
        return _renewing(fingerprint("metadata", endpoint), lambda: MetadataKeys(endpoint))
    raise SettingsError(
        "no credentials: give an access key and secret key, an IAM token, an OIDC identity provider and id "
        "token file, or turn on the instance metadata service (useInstanceMetadata)"
    )


def open_session(settings: Settings, *, within: float | None = None) -> Session:
    """The project id (found in IAM when not given), the signer and the secrets of these settings. within:
    the seconds the operation opening it may wait for the project's lookup (None: as long as IAM takes)."""
    made: list[Iam] = []

    def secrets() -> tuple[str, ...]:
        return (*settings.secrets(), *temporary_secrets())

    def iam() -> Iam:
        if not made:
            made.append(Iam(iam_base(settings), ca_cert_file=settings.ca_cert_file, secrets=secrets))
        return made[0]

    signer = _base_signer(settings, iam)
    role = settings.assume_role
    if role is not None:
        base, base_auth = iam(), signer.make(None)
        identity = fingerprint(
            "agency",
            signer.identity,
            base.base,
            settings.ca_cert_file,
            role.agency_name,
            role.domain_name,
            role.domain_id,
        )
        signer = _renewing(identity, lambda: AgencyKeys(base, base_auth, role))
    project_id = settings.project_id
    if not project_id:
        name = settings.project_name or settings.region
        if not name:
            raise SettingsError(
                "the project: give its id (modelarts:projectId or HW_PROJECT_ID), or a region or project "
                "name to find it by (modelarts:region or HW_REGION_NAME, modelarts:projectName or "
                "HW_PROJECT_NAME)"
            )
        auth = signer.make(None)
        project_id = find_project(
            iam(), auth, name, identity=signer.identity, region=settings.region, within=within
        )
    _LOG.debug("credentials from %s; project %s", signer.source, project_id)
    return Session(project_id, signer.make(project_id), settings.ca_cert_file, signer.source, secrets)


def open_api(settings: Settings, *, within: float | None = None, **options: Any) -> ModelArtsAPI:
    """The ModelArts API for resolved settings, over a transport of this session: its project, its signer,
    its CA and the secrets it scrubs. options go to ``Transport`` (timeout, log, max_attempts, ...).

    A client is opened only for calls about to be made: opening it may find the project in IAM (once per
    process) and fetch temporary keys, waiting for that set-up at most within seconds."""
    session = open_session(settings, within=within)
    with as_settings_error():  # the endpoint and the CA file are the user's settings
        transport = Transport(
            endpoint=settings.endpoint,
            project_id=session.project_id,
            auth=session.auth,
            secrets=settings.secrets(),
            renewed_secrets=session.secrets,
            ca_cert_file=session.ca_cert_file,
            **options,
        )
    return ModelArtsAPI(transport)
