"""Where region, project, endpoint and credentials come from.

One place resolves them, in this order (first non-empty value wins, each setting on its own):

1. the Pulumi stack config, namespace ``modelarts`` (``modelarts:region``, ``modelarts:projectId``,
   ``modelarts:endpoint``, ``modelarts:accessKey``, ``modelarts:secretKey``, ``modelarts:securityToken``,
   ``modelarts:authToken``; bare keys such as ``region`` are accepted too);
2. the environment names the Huawei Cloud Terraform provider uses: ``HW_REGION_NAME``, ``HW_PROJECT_ID``,
   ``HW_MODELARTS_ENDPOINT``, ``HW_ACCESS_KEY``, ``HW_SECRET_KEY``, ``HW_SECURITY_TOKEN``, ``HW_AUTH_TOKEN``;
3. the names the official SDK uses: ``HUAWEICLOUD_SDK_AK``, ``HUAWEICLOUD_SDK_SK``,
   ``HUAWEICLOUD_SDK_SECURITY_TOKEN``, ``HUAWEICLOUD_SDK_PROJECT_ID``.

The endpoint, when not given, is derived from the region the way the official SDK's region table does.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, NoReturn

from ..wire.endpoints import endpoint_for_region, normalize_endpoint
from ..wire.errors import SettingsError

if TYPE_CHECKING:
    import httpx

CONFIG_NAMESPACE = "modelarts"

# setting name -> (config key, environment variables in order)
SOURCES: dict[str, tuple[str, tuple[str, ...]]] = {
    "region": ("region", ("HW_REGION_NAME",)),
    "project_id": ("projectId", ("HW_PROJECT_ID", "HUAWEICLOUD_SDK_PROJECT_ID")),
    "endpoint": ("endpoint", ("HW_MODELARTS_ENDPOINT",)),
    "access_key": ("accessKey", ("HW_ACCESS_KEY", "HUAWEICLOUD_SDK_AK")),
    "secret_key": ("secretKey", ("HW_SECRET_KEY", "HUAWEICLOUD_SDK_SK")),
    "security_token": ("securityToken", ("HW_SECURITY_TOKEN", "HUAWEICLOUD_SDK_SECURITY_TOKEN")),
    "auth_token": ("authToken", ("HW_AUTH_TOKEN",)),
}

# Other names people give a setting (besides case and snake_case forms of the key and its environment names).
_ALIASES: dict[str, tuple[str, ...]] = {
    "region": ("region_name", "regionName"),
    "project_id": ("project", "projectID"),
    "endpoint": ("url", "endpointUrl", "endpoint_url"),
    "access_key": ("ak", "accessKeyId", "access_key_id"),
    "secret_key": ("sk", "secretAccessKey", "secret_access_key"),
    "security_token": ("sessionToken", "session_token"),
    "auth_token": ("token", "iamToken", "iam_token"),
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
    project_id: str
    endpoint: str
    access_key: str | None = None
    secret_key: str | None = None
    security_token: str | None = None
    auth_token: str | None = None

    def __repr__(self) -> str:
        return (
            f"Settings(region={self.region!r}, project_id={self.project_id!r}, endpoint={self.endpoint!r}, "
            f"auth={self.auth_kind!r})"
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


def _lookup(
    setting: str, config: Mapping[str, str], environ: Mapping[str, str]
) -> tuple[str | None, list[str]]:
    key, env_names = SOURCES[setting]
    places = [f"config {CONFIG_NAMESPACE}:{key}", *(f"${name}" for name in env_names)]
    for candidate in (f"{CONFIG_NAMESPACE}:{key}", key):
        value = config.get(candidate)
        if value is not None and str(value).strip():
            return str(value).strip(), places
    for name in env_names:
        value = environ.get(name)
        if value is not None and value.strip():
            return value.strip(), places
    return None, places


def near_miss_keys() -> dict[str, str]:
    """Config keys that look meant for a setting but are not read, each with the key that is read.

    Names only: whether one of them is set is a question a caller asks its config, never about a value.
    """
    misses: dict[str, str] = {}
    for setting, (key, env_names) in SOURCES.items():
        right = f"{CONFIG_NAMESPACE}:{key}"
        snake = re.sub(r"(?<!^)([A-Z])", r"_\1", key).lower()
        forms = {key, snake, snake.replace("_", "-"), key.lower(), key.upper(), snake.upper()}
        forms |= {key[0].upper() + key[1:], *env_names, *_ALIASES.get(setting, ())}
        forms |= {alias.upper() for alias in _ALIASES.get(setting, ())}
        for namespace in _NEAR_NAMESPACES:
            for form in sorted(forms):
                wrong = f"{namespace}:{form}"
                if wrong != right:
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
    except SettingsError as exc:
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
    config: Mapping[str, str] | None = None, environ: Mapping[str, str] | None = None
) -> Settings:
    """Resolve settings from stack config, then the environment; one SettingsError lists all gaps."""
    config = config or {}
    environ = os.environ if environ is None else environ
    found: dict[str, str | None] = {}
    places: dict[str, list[str]] = {}
    for setting in SOURCES:
        found[setting], places[setting] = _lookup(setting, config, environ)

    problems: list[str] = []
    if not found["project_id"]:
        problems.append(f"the project id (looked in {', '.join(places['project_id'])})")

    endpoint: str | None = None
    unusable: list[str] = []
    if found["endpoint"] or found["region"]:
        try:
            if found["endpoint"]:
                endpoint = normalize_endpoint(found["endpoint"])
            else:
                endpoint = endpoint_for_region(str(found["region"]))
        except SettingsError as exc:
            unusable.append(str(exc))
    else:
        looked = places["endpoint"] + places["region"]
        problems.append(f"the endpoint or a region to derive it from (looked in {', '.join(looked)})")

    access_key, secret_key = found["access_key"], found["secret_key"]
    if bool(access_key) != bool(secret_key):
        have, missing = ("access_key", "secret_key") if access_key else ("secret_key", "access_key")
        problems.append(
            f"the {missing.replace('_', ' ')} to go with the {have.replace('_', ' ')} "
            f"(looked in {', '.join(places[missing])})"
        )
    elif not access_key and not found["auth_token"]:
        looked = places["access_key"] + places["secret_key"] + places["auth_token"]
        problems.append(
            f"credentials: an access key and secret key, or an IAM token (looked in {', '.join(looked)})"
        )

    if problems or unusable:
        text = "ModelArts settings are incomplete or unusable."
        if problems:
            text += " Missing: " + "; ".join(problems) + "."
        if unusable:
            text += " Unusable: " + "; ".join(unusable) + "."
        raise SettingsError(
            text + " Set them with `pulumi config set modelarts:<key>` (use --secret for keys and tokens) "
            "or in the environment."
        )
    assert found["project_id"] is not None and endpoint is not None
    return Settings(
        project_id=found["project_id"],
        endpoint=endpoint,
        region=found["region"],
        access_key=access_key,
        secret_key=secret_key,
        security_token=found["security_token"] if access_key else None,
        auth_token=found["auth_token"],
    )
