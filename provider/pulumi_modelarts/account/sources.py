"""Where each setting is looked for, and which source the credentials come from.

Every setting but the credentials is looked up on its own, first non-empty value wins: the stack config, then
the environment (Huawei's Terraform provider's names, then the official SDK's), then, for the settings they
hold, the SDK's credentials file and hcloud's profile file (read only when a setting is still missing).

The credentials come whole from one source, the first complete one in this order (``CREDENTIAL_ORDER``):
stack config; environment ``HW_*``; environment ``HUAWEICLOUD_SDK_*``; the SDK's credentials file; hcloud's
profile; OIDC (an identity provider id with a token file); instance metadata, only when asked for. An access
key and secret key beat an IAM token given in the stack config or environment, as they always have, and a pair
split between the stack config and the environment still counts. A security token goes only with the keys of
its own source: for a split pair, from the access key's place or else the secret key's, never a third.
Keys and tokens must be text a request header can carry (``wire.sendable``): refused naming their source.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from ..wire.sendable import header_value_problem
from .errors import SettingsError
from .files import (
    HCLOUD_CONFIG_DEFAULT,
    SDK_CREDENTIALS_DEFAULT,
    SDK_CREDENTIALS_ENV,
    FileValues,
    read_hcloud_profile,
    read_sdk_credentials,
)

CONFIG_NAMESPACE = "modelarts"

# setting name -> (config key, environment variables in order): every setting there is.
SOURCES: dict[str, tuple[str, tuple[str, ...]]] = {
    "region": ("region", ("HW_REGION_NAME",)),
    "project_id": ("projectId", ("HW_PROJECT_ID", "HUAWEICLOUD_SDK_PROJECT_ID")),
    "endpoint": ("endpoint", ("HW_MODELARTS_ENDPOINT",)),
    "access_key": ("accessKey", ("HW_ACCESS_KEY", "HUAWEICLOUD_SDK_AK")),
    "secret_key": ("secretKey", ("HW_SECRET_KEY", "HUAWEICLOUD_SDK_SK")),
    "security_token": ("securityToken", ("HW_SECURITY_TOKEN", "HUAWEICLOUD_SDK_SECURITY_TOKEN")),
    "auth_token": ("authToken", ("HW_AUTH_TOKEN",)),
    # The settings below have a default, or are needed only by some set-ups.
    "project_name": ("projectName", ("HW_PROJECT_NAME",)),
    "cloud": ("cloud", ("HW_CLOUD",)),
    "iam_endpoint": ("iamEndpoint", ("HW_AUTH_URL", "HUAWEICLOUD_SDK_IAM_ENDPOINT")),
    "ca_cert_file": ("caCertFile", ("HW_CACERT_FILE",)),
    "shared_config_file": ("sharedConfigFile", ("HW_SHARED_CONFIG_FILE",)),
    "profile": ("profile", ("HW_PROFILE",)),
    "idp_id": ("idpId", ("HUAWEICLOUD_SDK_IDP_ID",)),
    "id_token_file": ("idTokenFile", ("HUAWEICLOUD_SDK_ID_TOKEN_FILE",)),
    "use_instance_metadata": ("useInstanceMetadata", ("HW_USE_INSTANCE_METADATA",)),
    "metadata_endpoint": ("metadataEndpoint", ("HW_METADATA_ENDPOINT",)),
    "assume_role": (
        "assumeRole",
        (
            "HW_ASSUME_ROLE_AGENCY_NAME",
            "HW_ASSUME_ROLE_DOMAIN_NAME",
            "HW_ASSUME_ROLE_DOMAIN_ID",
            "HW_ASSUME_ROLE_DURATION",
        ),
    ),
}

OIDC_SOURCE = "OIDC token file"
METADATA_SOURCE = "instance metadata"
CREDENTIAL_ORDER = (
    "stack config",
    "environment (HW_*)",
    "environment (HUAWEICLOUD_SDK_*)",
    f"credentials file {SDK_CREDENTIALS_DEFAULT} [basic]",
    f"hcloud profile in {HCLOUD_CONFIG_DEFAULT}",
    OIDC_SOURCE,
    METADATA_SOURCE,
)
_KEYS = ("access_key", "secret_key", "security_token")


@dataclass(frozen=True)
class Credentials:
    """The credentials of one source; ``source`` names it (never a value)."""

    source: str
    access_key: str | None = field(default=None, repr=False)
    secret_key: str | None = field(default=None, repr=False)
    security_token: str | None = field(default=None, repr=False)
    auth_token: str | None = field(default=None, repr=False)
    profile: FileValues | None = None  # the hcloud profile the keys came from (its agency applies)


class Lookup:
    """The stack config, the environment and, read on first need, the two files."""

    def __init__(self, config: Mapping[str, str], environ: Mapping[str, str]) -> None:
        self.config = config
        self.environ = environ
        self._files: dict[str, FileValues | None] = {}

    def config_value(self, setting: str) -> str | None:
        key = SOURCES[setting][0]
        for candidate in (f"{CONFIG_NAMESPACE}:{key}", key):
            value = self.config.get(candidate)
            if value is not None and str(value).strip():
                return str(value).strip()
        return None

    def env_value(self, name: str) -> str | None:
        value = self.environ.get(name)
        return value.strip() if value is not None and value.strip() else None

    def places(self, setting: str) -> list[str]:
        key, env_names = SOURCES[setting]
        return [f"config {CONFIG_NAMESPACE}:{key}", *(f"${name}" for name in env_names)]

    def given(self, setting: str) -> tuple[str | None, str]:
        """The setting's value in the stack config or the environment, and where it was found."""
        value = self.config_value(setting)
        if value is not None:
            return value, f"config {CONFIG_NAMESPACE}:{SOURCES[setting][0]}"
        for name in SOURCES[setting][1]:
            value = self.env_value(name)
            if value is not None:
                return value, f"${name}"
        return None, ""

    def first(self, setting: str, *, files: bool = False) -> tuple[str | None, str]:
        """The setting's first non-empty value and the name of where it was found ("" when not found).
        files: open the account files if they are not yet (the setting is needed)."""
        value, where = self.given(setting)
        if value is not None:
            return value, where
        # Files are opened only for a setting that needs them; once open, they count for every setting.
        opened = (self.sdk_file(), self.hcloud_file()) if files else tuple(self._files.values())
        for found in opened:
            if found is not None and found.get(setting):
                return found.get(setting), found.label
        return None, ""

    def file_places(self) -> list[str]:
        """The two files, as the error for missing settings names them."""
        return [
            f"the credentials file ${SDK_CREDENTIALS_ENV} or {SDK_CREDENTIALS_DEFAULT} [basic]",
            f"the hcloud profile file {self._hcloud_names()} or {HCLOUD_CONFIG_DEFAULT}",
        ]

    def _hcloud_names(self) -> str:
        return " / ".join(self.places("shared_config_file"))

    def sdk_file(self) -> FileValues | None:
        if "sdk" not in self._files:
            self._files["sdk"] = read_sdk_credentials(self.environ)
        return self._files["sdk"]

    def hcloud_file(self) -> FileValues | None:
        if "hcloud" not in self._files:
            path, path_from = self.first("shared_config_file")
            profile, profile_from = self.first("profile")
            self._files["hcloud"] = read_hcloud_profile(
                path,
                profile,
                file_setting=path_from or "sharedConfigFile",
                profile_setting=profile_from or "modelarts:profile / $HW_PROFILE",
            )
        return self._files["hcloud"]


def static_credentials(lookup: Lookup) -> tuple[Credentials | None, str | None]:
    """Keys or a token from the stack config or the environment: (credentials, problem), both None when
    neither holds any. problem: half a key pair, named by where the other half was looked for."""
    layers = [("stack config", [lookup.config_value(k) for k in _KEYS])]
    for index in (0, 1):  # HW_* first, then HUAWEICLOUD_SDK_*
        names = [SOURCES[k][1][index] for k in _KEYS]
        layers.append((f"environment ({names[0]})", [lookup.env_value(n) for n in names]))
    for source, (ak, sk, token) in layers:
        if ak and sk:
            return Credentials(source, ak, sk, token), None
    # A pair split between places (access key in stack config, secret key in the environment) still counts;
    # its token is the access key's place's, else the secret key's: a token of a third place is another key's.
    ak_at = next((i for i, (_s, values) in enumerate(layers) if values[0]), None)
    sk_at = next((i for i, (_s, values) in enumerate(layers) if values[1]), None)
    if ak_at is not None and sk_at is not None:
        ak, sk = layers[ak_at][1][0], layers[sk_at][1][1]
        token = layers[ak_at][1][2] or layers[sk_at][1][2]
        return Credentials("stack config and environment", ak, sk, token), None
    ak, sk = (lookup.given(k)[0] for k in _KEYS[:2])
    if ak or sk:
        have, missing = ("access key", "secret_key") if ak else ("secret key", "access_key")
        looked = ", ".join(lookup.places(missing))
        return None, f"the {missing.replace('_', ' ')} to go with the {have} (looked in {looked})"
    auth_token, where = lookup.given("auth_token")
    if auth_token:
        source = "stack config" if where.startswith("config") else f"environment ({where[1:]})"
        return Credentials(source, auth_token=auth_token), None
    return None, None


def file_credentials(lookup: Lookup) -> Credentials | None:
    """Keys from the SDK's credentials file, else from hcloud's profile (read only now)."""
    for found in (lookup.sdk_file(), lookup.hcloud_file()):
        if found is None:
            continue
        ak, sk, token = (found.get(k) for k in _KEYS)
        if ak and sk:
            profile = found if found.label.startswith("hcloud") else None
            return Credentials(found.label, ak, sk, token, profile=profile)
    return None


def file_notes(lookup: Lookup) -> list[str]:
    """Why a file that is there gave no keys (an SSO profile, no [basic] section)."""
    notes = []
    for found in (lookup.sdk_file(), lookup.hcloud_file()):
        if found is not None and found.note:
            notes.append(found.note)
    return notes


def choose_credentials(lookup: Lookup, problems: list[str]) -> Credentials | None:
    """The first complete source of credentials (``CREDENTIAL_ORDER``); None with a problem recorded."""
    found, problem = static_credentials(lookup)
    if problem is not None:
        problems.append(problem)
        return None
    found = found or file_credentials(lookup)
    if found is not None:
        return sendable(found)
    idp_id, idp_from = lookup.first("idp_id", files=True)
    token_file, token_from = lookup.first("id_token_file", files=True)
    if idp_id and token_file:
        readable_file(lookup, "id_token_file")
        return Credentials(OIDC_SOURCE)
    if idp_id or token_file:
        missing = "id_token_file" if idp_id else "idp_id"
        words = "the OIDC token file" if idp_id else "the identity provider id"
        places = ", ".join(lookup.places(missing))
        problems.append(
            f"{words} to go with {idp_from or token_from} (looked in {places}, the credentials file)"
        )
        return None
    if flag(lookup, "use_instance_metadata"):
        return Credentials(METADATA_SOURCE)
    looked = lookup.places("access_key") + lookup.places("secret_key") + lookup.places("auth_token")
    looked += lookup.file_places()
    looked.append("OIDC: " + " with ".join(", ".join(lookup.places(s)) for s in ("idp_id", "id_token_file")))
    metadata = " / ".join(lookup.places("use_instance_metadata"))
    notes = "".join(f"; {note}" for note in file_notes(lookup))
    problems.append(
        f"credentials: an access key and secret key, or an IAM token (looked in {', '.join(looked)}; "
        f"instance metadata is read only when {metadata} is true{notes})"
    )
    return None


def sendable(found: Credentials) -> Credentials:
    """found, once each key and token it holds can be sent in a request header; SettingsError naming the
    source otherwise (never the value)."""
    named = {"access key": found.access_key, "security token": found.security_token}
    named["IAM token"] = found.auth_token
    for what, value in named.items():
        problem = None if value is None else header_value_problem(value)
        if problem is not None:
            raise SettingsError(f"the {what} from {found.source} cannot be used: {problem}")
    return found


def flag(lookup: Lookup, setting: str) -> bool:
    value, where = lookup.first(setting)
    if value is None:
        return False
    if value.lower() in ("true", "1", "yes", "on"):
        return True
    if value.lower() in ("false", "0", "no", "off"):
        return False
    raise SettingsError(f"{where} must be true or false")


def readable_file(lookup: Lookup, setting: str) -> str | None:
    """The path a setting names, once checked to be a readable file (the path is no secret; the content is
    never read here)."""
    value, where = lookup.first(setting, files=setting in ("id_token_file",))
    if value is None:
        return None
    path = Path(value).expanduser()
    if not path.is_file() or not os.access(path, os.R_OK):
        raise SettingsError(f"{where} names {value!r}, which is not a readable file")
    return str(path)
