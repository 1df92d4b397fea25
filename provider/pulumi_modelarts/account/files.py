"""The files Huawei's own tools keep an account in, read without the network:

- the official SDK's credentials file (INI): ``$HUAWEICLOUD_SDK_CREDENTIALS_FILE``, default
  ``~/.huaweicloud/credentials``, section ``[basic]`` (``ak``, ``sk``, ``security_token``, ``project_id``,
  ``iam_endpoint``, ``idp_id``, ``id_token_file``);
- hcloud's (KooCLI's) profiles (JSON): ``sharedConfigFile`` / ``$HW_SHARED_CONFIG_FILE``, default
  ``~/.hcloud/config.json``, the profile named by ``profile`` / ``$HW_PROFILE`` or else its ``current`` one;
  only mode ``AKSK`` holds keys (``accessKeyId``, ``secretAccessKey``, ``securityToken``, ``region``,
  ``projectId``, ``agencyName``, ``agencyDomainName``).

A file that does not exist at its default place is simply not there; one named explicitly must exist. Each is
read by the one careful reader (``wire.reading``): at most ``MAX_FILE_BYTES`` of it (a larger file is refused
without being read whole), UTF-8, JSON nested at most ``MAX_JSON_DEPTH`` levels. Errors name the file and the
line, section or field at fault, never a value: these files hold secret keys.
"""

from __future__ import annotations

import configparser
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from ..wire.errors import listing
from ..wire.reading import Unreadable, read_file, strict_json
from .errors import SettingsError

SDK_CREDENTIALS_ENV = "HUAWEICLOUD_SDK_CREDENTIALS_FILE"
SDK_CREDENTIALS_DEFAULT = "~/.huaweicloud/credentials"
SDK_SECTION = "basic"
HCLOUD_CONFIG_DEFAULT = "~/.hcloud/config.json"

# The credentials file's [basic] keys -> this package's setting names.
SDK_KEYS = {
    "ak": "access_key",
    "sk": "secret_key",
    "security_token": "security_token",
    "project_id": "project_id",
    "iam_endpoint": "iam_endpoint",
    "idp_id": "idp_id",
    "id_token_file": "id_token_file",
}
# An hcloud profile's fields -> this package's setting names.
HCLOUD_FIELDS = {
    "accessKeyId": "access_key",
    "secretAccessKey": "secret_key",
    "securityToken": "security_token",
    "region": "region",
    "projectId": "project_id",
    "agencyName": "agency_name",
    "agencyDomainName": "agency_domain_name",
}


@dataclass(frozen=True)
class FileValues:
    """What one file says, by setting name (``access_key``, ``project_id``...); ``label`` names the file (and
    its section or profile) for messages and the debug line."""

    label: str
    values: dict[str, str] = field(default_factory=dict, repr=False)
    note: str | None = None  # why the file gives no keys although it is there (e.g. an SSO profile)

    def get(self, setting: str) -> str | None:
        return self.values.get(setting)


def shown(path: Path) -> str:
    """A path as messages show it: under the home directory with ``~``, so the user's name stays out."""
    try:
        return "~/" + path.relative_to(Path.home()).as_posix()
    except ValueError:
        return str(path)


def _path(text: str) -> Path:
    return Path.home() / text[2:] if text.startswith("~/") else Path(text)


def _readable(path: Path, setting: str, explicit: bool) -> str | None:
    """The file's text; None when a default path holds no file."""
    if not path.is_file():
        if explicit:
            raise SettingsError(f"{setting} names {shown(path)}, which is not a file")
        return None
    try:
        return read_file(path)
    except Unreadable as exc:
        raise SettingsError(f"{shown(path)} ({setting}) is {exc.problem}") from None
    except OSError:
        raise SettingsError(f"{shown(path)} ({setting}) cannot be read") from None


def read_sdk_credentials(environ: Mapping[str, str]) -> FileValues | None:
    """The official SDK's credentials file, section ``[basic]``; None when there is none."""
    given = (environ.get(SDK_CREDENTIALS_ENV) or "").strip()
    path = _path(given or SDK_CREDENTIALS_DEFAULT)
    text = _readable(path, f"${SDK_CREDENTIALS_ENV}", explicit=bool(given))
    if text is None:
        return None
    label = f"credentials file {shown(path)} [{SDK_SECTION}]"
    parser = configparser.ConfigParser(interpolation=None)
    try:
        parser.read_string(text, source=shown(path))
    except configparser.Error as exc:
        raise SettingsError(f"credentials file {shown(path)}: {_ini_problem(exc)}") from None
    if not parser.has_section(SDK_SECTION):
        return FileValues(label, note=f"{shown(path)} has no [{SDK_SECTION}] section")
    section = parser[SDK_SECTION]
    values = {name: section[key].strip() for key, name in SDK_KEYS.items() if section.get(key, "").strip()}
    return FileValues(label, values)


def _ini_problem(exc: configparser.Error) -> str:
    # The parser's own messages quote the offending line, which may hold a key: say where, not what.
    if isinstance(exc, configparser.MissingSectionHeaderError):
        return f"line {exc.lineno} comes before any [section] header"
    if isinstance(exc, configparser.ParsingError):
        lines = listing(str(lineno) for lineno, _line in exc.errors)
        return f"line {lines} is neither `key = value` nor a [section] header"
    if isinstance(exc, configparser.DuplicateSectionError):
        return f"line {exc.lineno}: section [{exc.section}] appears twice"
    if isinstance(exc, configparser.DuplicateOptionError):
        return f"line {exc.lineno}: key {exc.option!r} appears twice in section [{exc.section}]"
    return f"not an INI file ({type(exc).__name__})"


def read_hcloud_profile(
    config_file: str | None, profile: str | None, *, file_setting: str, profile_setting: str
) -> FileValues | None:
    """hcloud's profile file; None when there is none at the default place.

    config_file and profile: the values of sharedConfigFile and profile (None: the default file, its current
    profile); the *_setting names say where they came from, for messages.
    """
    path = _path(config_file or HCLOUD_CONFIG_DEFAULT)
    text = _readable(path, file_setting, explicit=bool(config_file))
    if text is None:
        return None
    where = f"hcloud config {shown(path)}"
    try:
        data = strict_json(text)
    except Unreadable as exc:
        at = f" (line {exc.line}, column {exc.column})" if exc.line is not None else ""
        raise SettingsError(f"{where}: {exc.problem}{at}") from None
    profiles = data.get("profiles") if isinstance(data, dict) else None
    if not isinstance(profiles, list):
        raise SettingsError(f"{where}: no list of profiles (field 'profiles')")
    name = profile or (data.get("current") if isinstance(data.get("current"), str) else None)
    if not name:
        raise SettingsError(f"{where}: no current profile; name one with {profile_setting}")
    chosen = [p for p in profiles if isinstance(p, dict) and p.get("name") == name]
    asked = f" ({profile_setting})" if profile else " (its current profile)"
    if not chosen:
        raise SettingsError(f"{where} has no profile named {name!r}{asked}")
    label = f"hcloud profile {name!r} in {shown(path)}"
    entry = chosen[0]
    mode = entry.get("mode")
    values = {
        setting: value.strip()
        for key, setting in HCLOUD_FIELDS.items()
        if isinstance(value := entry.get(key), str) and value.strip()
    }
    if mode != "AKSK":
        # Only the keys are mode-specific: region and project still count, as they do for Terraform.
        keys = {"access_key", "secret_key", "security_token", "agency_name", "agency_domain_name"}
        kept = {k: v for k, v in values.items() if k not in keys}
        return FileValues(label, kept, note=f"profile {name!r} is mode {mode!r}; only mode AKSK holds keys")
    return FileValues(label, values)
