"""Where region, project, endpoints and credentials come from: one pure function, ``resolve_settings``, turns
the stack config and the environment (and the files Huawei's tools keep an account in) into ``Settings``,
without the network. Finding the project id by name and fetching temporary keys (instance metadata, an agency,
OIDC) happen later, when a call needs them; ``Settings`` says which.

Each setting on its own, first non-empty value wins: the Pulumi stack config, namespace ``modelarts``
(``modelarts:region``...; bare keys such as ``region`` are accepted too), then the environment names of
Huawei's Terraform provider (``HW_REGION_NAME``...), then the official SDK's (``HUAWEICLOUD_SDK_AK``...), then
the SDK's credentials file and hcloud's profile file. The credentials come whole from the first complete
source (``sources.CREDENTIAL_ORDER``). Endpoints not given are derived from the region and the cloud domain.
"""

from __future__ import annotations

import logging
import os
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, NoReturn

from ..wire.endpoints import (
    DEFAULT_CLOUD,
    check_cloud,
    check_region,
    check_region_quietly,
    cloud_for_region,
    endpoint_for_region,
    iam_endpoint_for_region,
    normalize_endpoint,
    normalize_iam_endpoint,
    normalize_metadata_endpoint,
)
from ..wire.errors import UnusableValueError
from ..wire.sendable import project_id_problem
from .agency import AssumeRole, assume_role_of
from .errors import SettingsError
from .sources import (
    CONFIG_NAMESPACE,
    CREDENTIAL_ORDER,
    OIDC_SOURCE,
    SOURCES,
    Credentials,
    Lookup,
    choose_credentials,
    flag,
    readable_file,
)

if TYPE_CHECKING:
    import httpx

__all__ = [
    "CONFIG_NAMESPACE",
    "CREDENTIAL_ORDER",
    "DEFAULT_CLOUD",
    "DEFAULT_METADATA_ENDPOINT",
    "SOURCES",
    "AssumeRole",
    "Settings",
    "endpoint_for_region",
    "near_miss_keys",
    "resolve_settings",
    "settings_problem",
]

LOGGER = logging.getLogger("pulumi_modelarts.account")
DEFAULT_METADATA_ENDPOINT = "http://169.254.169.254"

# Other names people give a setting (besides case and snake_case forms of the key and its environment names).
_ALIASES: dict[str, tuple[str, ...]] = {
    "region": ("region_name", "regionName"),
    "project_id": ("project", "projectID"),
    "endpoint": ("url", "endpointUrl", "endpoint_url"),
    "access_key": ("ak", "accessKeyId", "access_key_id"),
    "secret_key": ("sk", "secretAccessKey", "secret_access_key"),
    "security_token": ("sessionToken", "session_token"),
    "auth_token": ("token", "iamToken", "iam_token"),
    "project_name": ("projectname", "tenant_name", "tenantName"),
    "cloud": ("cloud_domain", "cloudDomain", "domain_suffix", "endpointSuffix"),
    "iam_endpoint": ("auth_url", "authUrl", "iam_url", "iamUrl", "iam"),
    "ca_cert_file": ("cacert_file", "cacertFile", "ca_cert", "caCert", "ssl_ca_cert", "sslCaCert"),
    "shared_config_file": ("config_file", "configFile", "shared_config", "sharedConfig"),
    "profile": ("profile_name", "profileName"),
    "idp_id": ("idp", "identityProviderId"),
    "id_token_file": ("id_token_path", "idTokenPath", "token_file", "tokenFile"),
    "use_instance_metadata": ("instanceMetadata", "instance_metadata", "useMetadata", "use_metadata"),
    "metadata_endpoint": ("metadata_url", "metadataUrl"),
    "assume_role": ("assume_roles", "assumeRoles", "agency", "agency_name", "agencyName"),
}
# Namespaces a key meant for this package lands in by mistake ("huaweicloud" is the Huawei Cloud provider's).
_NEAR_NAMESPACES = (CONFIG_NAMESPACE, "huaweicloud", "ModelArts", "modelArts", "model-arts", "model_arts")


@dataclass(frozen=True, repr=False, kw_only=True)
class Settings:
    """Resolved connection settings.

    When both an access key/secret key pair and an IAM token are available, AK/SK signing is used: it does
    not expire mid-deployment the way a token does. The security token, if any, goes with the AK/SK pair.
    Instances hold secrets: their repr hides them and they refuse to be pickled (the provider object is
    pickled into Pulumi state).
    """

    region: str | None = None
    project_id: str | None = None
    project_name: str | None = None
    cloud: str = DEFAULT_CLOUD
    endpoint: str
    iam_endpoint: str | None = None
    ca_cert_file: str | None = None
    access_key: str | None = None
    secret_key: str | None = None
    security_token: str | None = None
    auth_token: str | None = None
    credentials_source: str = "stack config"
    use_instance_metadata: bool = False
    metadata_endpoint: str = DEFAULT_METADATA_ENDPOINT
    assume_role: AssumeRole | None = None
    idp_id: str | None = None
    id_token_file: str | None = None

    def __repr__(self) -> str:
        return (
            f"Settings(region={self.region!r}, project_id={self.project_id!r}, endpoint={self.endpoint!r}, "
            f"auth={self.auth_kind!r}, credentials_source={self.credentials_source!r})"
        )

    def __reduce__(self) -> NoReturn:
        raise TypeError("Settings holds credentials and must not be pickled")

    @property
    def auth_kind(self) -> str:
        if self.access_key and self.secret_key:
            return "aksk+security-token" if self.security_token else "aksk"
        return "token" if self.auth_token else "none"

    def secrets(self) -> tuple[str, ...]:
        """Every credential value, for scrubbing text that might echo one back."""
        values = (self.access_key, self.secret_key, self.security_token, self.auth_token)
        return tuple(v for v in values if v)

    def auth(self) -> httpx.Auth:
        from ..wire.auth import AkSkAuth, TokenAuth

        if self.access_key and self.secret_key:
            return AkSkAuth(
                self.access_key,
                self.secret_key,
                security_token=self.security_token,
                project_id=self.project_id,
            )
        if self.auth_token:
            return TokenAuth(self.auth_token, project_id=self.project_id)
        raise SettingsError("no credentials: give an access key and secret key, or an IAM token")


def near_miss_keys() -> dict[str, str]:
    """Config keys that look meant for a setting but are not read, each with the key that is read.

    Names only: whether one of them is set is a question a caller asks its config, never about a value.
    """
    misses: dict[str, str] = {}
    read = {f"{CONFIG_NAMESPACE}:{key}" for key, _names in SOURCES.values()}
    for setting, (key, env_names) in SOURCES.items():
        right = f"{CONFIG_NAMESPACE}:{key}"
        snake = re.sub(r"(?<!^)([A-Z])", r"_\1", key).lower()
        forms = {key, snake, snake.replace("_", "-"), key.lower(), key.upper(), snake.upper()}
        forms |= {key[0].upper() + key[1:], *env_names, *_ALIASES.get(setting, ())}
        forms |= {alias.upper() for alias in _ALIASES.get(setting, ())}
        for namespace in _NEAR_NAMESPACES:
            for form in sorted(forms):
                wrong = f"{namespace}:{form}"
                if wrong not in read:
                    misses.setdefault(wrong, right)
    return misses


def settings_problem(
    config: Mapping[str, str], environ: Mapping[str, str], misplaced: Iterable[str] = ()
) -> str | None:
    """What ``resolve_settings`` would refuse, as text, plus hints for near-miss keys; None when usable.

    For checking before anything is sent (preview): no API call, and no value appears in the text.
    misplaced: near-miss config keys (see ``near_miss_keys``) that are set.
    """
    try:
        resolve_settings(config, environ)
    except UnusableValueError as exc:
        text = str(exc)
    else:
        return None
    misses = near_miss_keys()
    hints = [
        f"config {wrong} is set but not read: did you mean {misses[wrong]}?"
        for wrong in sorted(set(misplaced))
        if wrong in misses
    ]
    return " ".join([text, *hints])


def resolve_settings(
    config: Mapping[str, str] | None = None,
    environ: Mapping[str, str] | None = None,
    *,
    log: Callable[[str], None] | None = None,
) -> Settings:
    """Resolve settings from stack config, the environment and the account files; one SettingsError lists
    every gap. log: told (debug) where the credentials came from, never a value."""
    lookup = Lookup(config or {}, os.environ if environ is None else environ)
    problems: list[str] = []  # what is missing
    unusable: list[str] = []  # what is there but cannot be used

    def attempt(step: Callable[[], object]) -> object:
        try:
            return step()
        except UnusableValueError as exc:
            unusable.append(str(exc))
            return None

    endpoint_given, _ = lookup.first("endpoint")
    project_id, project_from = lookup.first("project_id")
    region_needed = endpoint_given is None or project_id is None
    region, region_from = lookup.first("region", files=region_needed)
    if project_id is None:
        project_id, project_from = lookup.first("project_id", files=True)
    project_name, _ = lookup.first("project_name")
    if project_id is not None and (problem := project_id_problem(project_id)) is not None:
        unusable.append(f"the project id ({project_from}) cannot be used: {problem}")

    if project_id is None and not (project_name or region):
        looked = lookup.places("project_id") + lookup.places("region") + lookup.places("project_name")
        problems.append(
            f"the project id, or a region or project name to look it up by (looked in {', '.join(looked)})"
        )
    credentials = attempt(lambda: choose_credentials(lookup, problems))
    creds = credentials if isinstance(credentials, Credentials) else None
    assume_role = attempt(lambda: assume_role_of(lookup, creds))
    role = assume_role if isinstance(assume_role, AssumeRole) else None
    needs_iam = project_id is None or role is not None or (creds is not None and creds.source == OIDC_SOURCE)
    urls = attempt(lambda: _urls(lookup, region, region_from, needs_iam, problems, unusable))
    domain, endpoint, iam = urls if isinstance(urls, tuple) else (DEFAULT_CLOUD, None, None)
    if iam is None and needs_iam and region is None and (project_id is not None or project_name):
        looked = lookup.places("iam_endpoint") + lookup.places("region")
        problems.append(f"the IAM endpoint, or a region to derive it from (looked in {', '.join(looked)})")
    ca_cert_file = attempt(lambda: readable_file(lookup, "ca_cert_file"))
    use_metadata = attempt(lambda: flag(lookup, "use_instance_metadata"))
    metadata = attempt(lambda: _metadata_endpoint(lookup))

    if problems or unusable:
        _refuse(problems, unusable)
    assert isinstance(endpoint, str) and creds is not None
    if log is not None:
        log(f"credentials from {creds.source}")
    LOGGER.debug("credentials from %s", creds.source)
    return Settings(
        region=region,
        project_id=project_id,
        project_name=project_name,
        cloud=domain,
        endpoint=endpoint,
        iam_endpoint=iam if isinstance(iam, str) else None,
        ca_cert_file=ca_cert_file if isinstance(ca_cert_file, str) else None,
        access_key=creds.access_key,
        secret_key=creds.secret_key,
        security_token=creds.security_token if creds.access_key else None,
        auth_token=creds.auth_token,
        credentials_source=creds.source,
        use_instance_metadata=use_metadata is True,
        metadata_endpoint=metadata if isinstance(metadata, str) else DEFAULT_METADATA_ENDPOINT,
        assume_role=role,
        idp_id=lookup.first("idp_id", files=creds.source == OIDC_SOURCE)[0],
        id_token_file=lookup.first("id_token_file", files=creds.source == OIDC_SOURCE)[0],
    )


def _refuse(problems: list[str], unusable: list[str]) -> NoReturn:
    text = "ModelArts settings are incomplete or unusable."
    if problems:
        text += " Missing: " + "; ".join(problems) + "."
    if unusable:
        text += " Unusable: " + "; ".join(unusable) + "."
    raise SettingsError(
        text + " Set them with `pulumi config set modelarts:<key>` (use --secret for keys and tokens) "
        "or in the environment."
    )


def _urls(
    lookup: Lookup,
    region: str | None,
    region_from: str,
    needs_iam: bool,
    problems: list[str],
    unusable: list[str],
) -> tuple[str, str | None, str | None]:
    """The cloud domain, the ModelArts endpoint and the IAM base: given, else derived from the region."""
    cloud_given, cloud_from = lookup.first("cloud")
    domain = cloud_for_region(region, cloud_given and check_cloud(cloud_given, cloud_from))
    endpoint_given, _ = lookup.first("endpoint")
    iam_given, iam_from = lookup.first("iam_endpoint", files=needs_iam)
    # The region stands in a host name only where it derives a URL that is needed: checked there, once.
    derives = region is not None and (endpoint_given is None or (needs_iam and iam_given is None))
    refused = derives and not check_region_quietly(str(region))
    if refused:
        try:
            check_region(str(region), f"region ({region_from})")
        except UnusableValueError as exc:
            unusable.append(str(exc))
        region = None
    iam = None
    if iam_given is not None:
        iam = normalize_iam_endpoint(iam_given, f"IAM endpoint ({iam_from})")
    elif region is not None and check_region_quietly(region):
        iam = iam_endpoint_for_region(region, domain)
    if endpoint_given is not None:
        return domain, normalize_endpoint(endpoint_given), iam
    if region is None and not refused:
        looked = lookup.places("endpoint") + lookup.places("region")
        problems.append(f"the endpoint or a region to derive it from (looked in {', '.join(looked)})")
    return domain, endpoint_for_region(region, domain) if region is not None else None, iam


def _metadata_endpoint(lookup: Lookup) -> str:
    value, where = lookup.first("metadata_endpoint")
    return DEFAULT_METADATA_ENDPOINT if value is None else normalize_metadata_endpoint(value, where)
