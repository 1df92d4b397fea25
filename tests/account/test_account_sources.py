"""Where the account comes from: each source of credentials and their order, the SDK's credentials file and
hcloud's profile file (under a temporary home), OIDC, instance metadata, agencies, the cloud domain and the
endpoints derived from it. Pure: nothing here opens a connection."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

from pulumi_modelarts.account.errors import SettingsError
from pulumi_modelarts.account.files import SDK_CREDENTIALS_ENV
from pulumi_modelarts.account.settings import (
    CREDENTIAL_ORDER,
    SOURCES,
    AssumeRole,
    near_miss_keys,
    resolve_settings,
    settings_problem,
)
from pulumi_modelarts.frontends.provider_config import CONFIG_KEYS, ProviderConfig
from pulumi_modelarts.wire.endpoints import normalize_metadata_endpoint

AK, SK, STS = "AKFILES0123456789ABC", "SkFilesSecret0123456789abcdefghij", "StsFileToken-0123456789"
REGION = {"modelarts:region": "cn-north-4"}


@pytest.fixture(autouse=True)
def home(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    for _key, names in SOURCES.values():
        for name in names:
            monkeypatch.delenv(name, raising=False)
    monkeypatch.delenv(SDK_CREDENTIALS_ENV, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    return tmp_path


def sdk_file(home: Path, text: str) -> Path:
    path = home / ".huaweicloud" / "credentials"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def hcloud_file(home: Path, profiles: list[dict[str, str]], current: str = "default") -> Path:
    path = home / ".hcloud" / "config.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"current": current, "profiles": profiles}), encoding="utf-8")
    return path


def aksk_profile(name: str = "default", **extra: str) -> dict[str, str]:
    return {"name": name, "mode": "AKSK", "accessKeyId": AK, "secretAccessKey": SK, **extra}


def refused(config: dict[str, str], environ: dict[str, str]) -> str:
    with pytest.raises(SettingsError) as caught:
        resolve_settings(config, environ)
    text = str(caught.value)
    for secret in (AK, SK, STS):
        assert secret not in text
    return text


# ---------------------------------------------------------------------------------------------------------
# each source, and the order


def test_no_project_id_is_fine_with_a_region_or_a_project_name() -> None:
    got = resolve_settings({**REGION, "accessKey": AK, "secretKey": SK}, {})
    assert (got.project_id, got.project_name, got.region) == (None, None, "cn-north-4")
    assert got.iam_endpoint == "https://iam.cn-north-4.myhuaweicloud.com"
    sub = resolve_settings({**REGION, "projectName": "cn-north-4_ml"}, {"HW_AUTH_TOKEN": "t"})
    assert sub.project_name == "cn-north-4_ml"
    env = resolve_settings(
        {}, {"HW_REGION_NAME": "cn-east-3", "HW_PROJECT_NAME": "cn-east-3_a", "HW_AUTH_TOKEN": "t"}
    )
    assert env.project_name == "cn-east-3_a"
    # A project name without a region needs IAM's address from somewhere.
    text = refused(
        {"endpoint": "http://127.0.0.1:9", "projectName": "x_y"}, {"HW_ACCESS_KEY": AK, "HW_SECRET_KEY": SK}
    )
    assert "IAM endpoint" in text and "modelarts:iamEndpoint" in text and "$HW_AUTH_URL" in text
    ok = resolve_settings(
        {"endpoint": "http://127.0.0.1:9", "projectName": "x_y", "iamEndpoint": "http://127.0.0.1:8/v3"},
        {"HW_ACCESS_KEY": AK, "HW_SECRET_KEY": SK},
    )
    assert ok.iam_endpoint == "http://127.0.0.1:8"


@pytest.mark.parametrize(
    ("environ", "source"),
    [
        ({"HW_ACCESS_KEY": AK, "HW_SECRET_KEY": SK}, "environment (HW_ACCESS_KEY)"),
        ({"HUAWEICLOUD_SDK_AK": AK, "HUAWEICLOUD_SDK_SK": SK}, "environment (HUAWEICLOUD_SDK_AK)"),
        ({"HW_AUTH_TOKEN": "token-x"}, "environment (HW_AUTH_TOKEN)"),
    ],
)
def test_environment_sources_are_named(environ: dict[str, str], source: str) -> None:
    assert resolve_settings(REGION, environ).credentials_source == source


def test_credentials_come_whole_from_the_first_complete_source(home: Path) -> None:
    sdk_file(home, f"[basic]\nak = SDKFILEAK\nsk = SDKFILESK\nsecurity_token = {STS}\n")
    hcloud_file(home, [aksk_profile()])
    environ = {"HUAWEICLOUD_SDK_AK": "SDKENVAK", "HUAWEICLOUD_SDK_SK": "SDKENVSK"}
    config = {**REGION, "accessKey": "CONFIGAK", "secretKey": "CONFIGSK"}
    hw = {"HW_ACCESS_KEY": "HWAK", "HW_SECRET_KEY": "HWSK", "HW_SECURITY_TOKEN": "HWSTS"}
    assert resolve_settings(config, {**hw, **environ}).access_key == "CONFIGAK"
    # The stack config's keys never borrow the environment's security token.
    assert resolve_settings(config, {**hw, **environ}).security_token is None
    got = resolve_settings(REGION, {**hw, **environ})
    assert (got.access_key, got.security_token, got.credentials_source) == (
        "HWAK",
        "HWSTS",
        "environment (HW_ACCESS_KEY)",
    )
    assert resolve_settings(REGION, environ).access_key == "SDKENVAK"
    got = resolve_settings(REGION, {})
    assert (got.access_key, got.secret_key, got.security_token) == ("SDKFILEAK", "SDKFILESK", STS)
    assert got.credentials_source == "credentials file ~/.huaweicloud/credentials [basic]"
    (home / ".huaweicloud" / "credentials").unlink()
    got = resolve_settings(REGION, {})
    assert (got.access_key, got.credentials_source) == (
        AK,
        "hcloud profile 'default' in ~/.hcloud/config.json",
    )


def test_a_split_pair_takes_a_token_only_from_where_its_keys_are() -> None:
    """The access key in the stack config, the secret key in $HW_SECRET_KEY: a token of a third place
    ($HUAWEICLOUD_SDK_SECURITY_TOKEN) belongs to other keys, and is not taken."""
    config = {**REGION, "accessKey": "CONFIGAK"}
    third = {"HW_SECRET_KEY": "HWSK", "HUAWEICLOUD_SDK_SECURITY_TOKEN": "SDKSTS"}
    got = resolve_settings(config, third)
    assert (got.access_key, got.secret_key, got.security_token) == ("CONFIGAK", "HWSK", None)
    assert got.auth_kind == "aksk"
    # A token beside either half of the pair is that pair's.
    assert resolve_settings({**config, "securityToken": "CONFIGSTS"}, third).security_token == "CONFIGSTS"
    assert resolve_settings(config, {**third, "HW_SECURITY_TOKEN": "HWSTS"}).security_token == "HWSTS"


@pytest.mark.parametrize(
    ("given", "named"),
    [
        ({"securityToken": "tok☃en"}, "the security token from stack config"),
        ({"securityToken": "tok\r\nX-Evil: 1"}, "the security token from stack config"),
        ({"accessKey": "AK WITH SPACE"}, "the access key from stack config"),
        ({"accessKey": None, "secretKey": None, "authToken": "iam\ntoken"}, "the IAM token from stack"),
    ],
)
def test_keys_and_tokens_a_header_cannot_carry_are_refused_naming_their_source(
    given: dict[str, str | None], named: str
) -> None:
    config = {k: v for k, v in {**REGION, "accessKey": AK, "secretKey": SK, **given}.items() if v is not None}
    message = refused(config, {})
    assert named in message and "cannot be used" in message
    assert "☃" not in message and "X-Evil" not in message and "SPACE" not in message


@pytest.mark.parametrize("project", ["..", "abc\r\nX-Evil: 1", "a/b", "x" * 65])
def test_a_project_id_that_cannot_be_sent_is_refused_naming_where_it_was_given(project: str) -> None:
    message = refused({"projectId": project, "accessKey": AK, "secretKey": SK, **REGION}, {})
    assert "the project id (config modelarts:projectId) cannot be used" in message
    assert "X-Evil" not in message
    fine = {"projectId": "0123456789abcdef0123456789abcdef", **REGION}
    assert resolve_settings(fine, {"HW_AUTH_TOKEN": "t"}).project_id == fine["projectId"]


def test_the_documented_order_is_the_one_applied() -> None:
    assert CREDENTIAL_ORDER[0] == "stack config" and CREDENTIAL_ORDER[-1] == "instance metadata"
    assert CREDENTIAL_ORDER.index("OIDC token file") == len(CREDENTIAL_ORDER) - 2


def test_files_are_not_read_when_the_stack_config_and_environment_say_everything(home: Path) -> None:
    sdk_file(home, "this is not an INI file")
    got = resolve_settings({**REGION, "projectId": "p"}, {"HW_ACCESS_KEY": AK, "HW_SECRET_KEY": SK})
    assert got.project_id == "p"
    # Once a setting is missing the file is read, and its fault is reported.
    assert "credentials file ~/.huaweicloud/credentials" in refused(REGION, {})


def test_sdk_file_gives_project_and_iam_endpoint_per_setting(home: Path) -> None:
    sdk_file(
        home,
        f"[basic]\nak = {AK}\nsk = {SK}\nproject_id = p-file\niam_endpoint = https://iam.example.org/v3/\n",
    )
    got = resolve_settings({"endpoint": "https://ma.example.org"}, {})
    assert (got.project_id, got.region) == ("p-file", None)
    # The stack config still wins setting by setting.
    assert resolve_settings({**REGION, "projectId": "p-config"}, {}).project_id == "p-config"
    assert resolve_settings(REGION, {}).iam_endpoint == "https://iam.example.org"


def test_sdk_file_named_by_the_environment(home: Path, tmp_path: Path) -> None:
    other = tmp_path / "elsewhere.ini"
    other.write_text(f"[basic]\nak = {AK}\nsk = {SK}\n", encoding="utf-8")
    got = resolve_settings(REGION, {SDK_CREDENTIALS_ENV: str(other)})
    assert got.access_key == AK and "elsewhere.ini" in got.credentials_source
    text = refused(REGION, {SDK_CREDENTIALS_ENV: str(tmp_path / "missing.ini")})
    assert f"${SDK_CREDENTIALS_ENV}" in text and "missing.ini" in text


def test_hcloud_profile_chosen_by_setting_or_current(home: Path, tmp_path: Path) -> None:
    hcloud_file(
        home, [aksk_profile(), aksk_profile("ci", accessKeyId="CIAK", region="cn-south-1")], "default"
    )
    assert resolve_settings(REGION, {}).access_key == AK
    got = resolve_settings({}, {"HW_PROFILE": "ci"})
    assert (got.access_key, got.region, got.credentials_source) == (
        "CIAK",
        "cn-south-1",
        "hcloud profile 'ci' in ~/.hcloud/config.json",
    )
    assert resolve_settings({"profile": "ci", **REGION}, {}).access_key == "CIAK"
    moved = tmp_path / "hcloud.json"
    (home / ".hcloud" / "config.json").rename(moved)
    got = resolve_settings({"sharedConfigFile": str(moved), **REGION}, {})
    assert got.access_key == AK
    text = refused({"profile": "nope", "sharedConfigFile": str(moved), **REGION}, {})
    assert "'nope'" in text and "config modelarts:profile" in text


def test_hcloud_profile_in_another_mode_gives_no_keys_and_says_why(home: Path) -> None:
    hcloud_file(home, [{"name": "default", "mode": "SSO", "region": "cn-north-4"}])
    text = refused({}, {})
    assert "mode 'SSO'" in text and "only mode AKSK" in text


def test_hcloud_agency_goes_only_with_its_own_keys(home: Path) -> None:
    hcloud_file(home, [aksk_profile(agencyName="deployer", agencyDomainName="other-account")])
    got = resolve_settings(REGION, {})
    assert got.assume_role == AssumeRole(agency_name="deployer", domain_name="other-account")
    assert resolve_settings(REGION, {"HW_ACCESS_KEY": AK, "HW_SECRET_KEY": SK}).assume_role is None


def test_oidc_counts_as_a_source_after_the_files(home: Path) -> None:
    token = home / "token.jwt"
    token.write_text("eyJ.secret.jwt", encoding="utf-8")
    environ = {"HUAWEICLOUD_SDK_IDP_ID": "github", "HUAWEICLOUD_SDK_ID_TOKEN_FILE": str(token)}
    got = resolve_settings(REGION, environ)
    assert (got.credentials_source, got.idp_id, got.id_token_file) == (
        "OIDC token file",
        "github",
        str(token),
    )
    assert got.access_key is None and got.iam_endpoint == "https://iam.cn-north-4.myhuaweicloud.com"
    config = resolve_settings({**REGION, "idpId": "gitlab", "idTokenFile": str(token)}, {})
    assert config.idp_id == "gitlab"
    sdk_file(home, f"[basic]\nidp_id = from-file\nid_token_file = {token}\n")
    assert resolve_settings(REGION, {}).idp_id == "from-file"
    hcloud_file(home, [aksk_profile()])
    assert resolve_settings(REGION, environ).credentials_source.startswith("hcloud profile")


def test_oidc_halves_and_missing_token_files_are_named() -> None:
    text = refused(REGION, {"HUAWEICLOUD_SDK_IDP_ID": "github"})
    assert "OIDC token file" in text and "$HUAWEICLOUD_SDK_ID_TOKEN_FILE" in text
    text = refused(REGION, {"HUAWEICLOUD_SDK_IDP_ID": "g", "HUAWEICLOUD_SDK_ID_TOKEN_FILE": "/no/such/token"})
    assert "$HUAWEICLOUD_SDK_ID_TOKEN_FILE" in text and "not a readable file" in text


def test_instance_metadata_only_when_asked_for() -> None:
    text = refused(REGION, {})
    assert "$HW_USE_INSTANCE_METADATA" in text and "modelarts:useInstanceMetadata" in text
    got = resolve_settings(REGION, {"HW_USE_INSTANCE_METADATA": "true"})
    assert (got.credentials_source, got.use_instance_metadata) == ("instance metadata", True)
    assert got.metadata_endpoint == "http://169.254.169.254"
    assert (
        resolve_settings(
            {**REGION, "useInstanceMetadata": "false"}, {"HW_AUTH_TOKEN": "t"}
        ).use_instance_metadata
        is False
    )
    # Last in the order: keys given anywhere win.
    both = resolve_settings(
        REGION, {"HW_USE_INSTANCE_METADATA": "true", "HW_ACCESS_KEY": AK, "HW_SECRET_KEY": SK}
    )
    assert both.credentials_source == "environment (HW_ACCESS_KEY)"
    assert "must be true or false" in refused(REGION, {"HW_USE_INSTANCE_METADATA": "maybe"})


def test_metadata_endpoint_is_link_local_http_loopback_or_https() -> None:
    environ = {"HW_USE_INSTANCE_METADATA": "1", "HW_METADATA_ENDPOINT": "http://127.0.0.1:8181/"}
    assert resolve_settings(REGION, environ).metadata_endpoint == "http://127.0.0.1:8181"
    assert normalize_metadata_endpoint("http://169.254.169.254") == "http://169.254.169.254"
    text = refused(REGION, {**environ, "HW_METADATA_ENDPOINT": "http://metadata.example.org"})
    assert "$HW_METADATA_ENDPOINT" in text and "plain http" in text


def test_the_debug_line_names_the_source_never_a_secret(caplog: pytest.LogCaptureFixture) -> None:
    lines: list[str] = []
    with caplog.at_level(logging.DEBUG, logger="pulumi_modelarts.account"):
        resolve_settings(
            REGION, {"HW_ACCESS_KEY": AK, "HW_SECRET_KEY": SK, "HW_SECURITY_TOKEN": STS}, log=lines.append
        )
    assert lines == ["credentials from environment (HW_ACCESS_KEY)"]
    assert "credentials from environment (HW_ACCESS_KEY)" in caplog.text
    assert not any(secret in caplog.text for secret in (AK, SK, STS))


# ---------------------------------------------------------------------------------------------------------
# malformed files: the file and the line or field are named, never a value


@pytest.mark.parametrize(
    ("text", "where"),
    [
        (f"ak = {AK}\n[basic]\n", "line 1 comes before any [section]"),
        (f"[basic]\nak = {AK}\n{SK}\n", "line 3 is neither"),
        (f"[basic]\nak = {AK}\nak = {SK}\n", "line 3: key 'ak' appears twice"),
        (f"[basic]\nak = {AK}\n[basic]\nsk = {SK}\n", "line 3: section [basic] appears twice"),
    ],
)
def test_a_malformed_credentials_file_is_named_with_its_line(home: Path, text: str, where: str) -> None:
    sdk_file(home, text)
    message = refused(REGION, {})
    assert "credentials file ~/.huaweicloud/credentials" in message and where in message


def test_a_credentials_file_without_basic_section_gives_nothing(home: Path) -> None:
    sdk_file(home, f"[global]\nak = {AK}\nsk = {SK}\n")
    assert "has no [basic] section" in refused(REGION, {})


@pytest.mark.parametrize(
    ("text", "where"),
    [
        (
            '{"current": "default", "profiles": [{"name": "default", "accessKeyId": "' + AK + '",}]}',
            "line 1, column",
        ),
        ('{"current": "default"}', "no list of profiles"),
        ('{"profiles": []}', "no current profile"),
        (
            '{"current": "x", "profiles": [{"name": "y", "secretAccessKey": "' + SK + '"}]}',
            "no profile named 'x'",
        ),
    ],
)
def test_a_malformed_hcloud_file_is_named(home: Path, text: str, where: str) -> None:
    path = home / ".hcloud" / "config.json"
    path.parent.mkdir()
    path.write_text(text, encoding="utf-8")
    message = refused(REGION, {})
    assert "~/.hcloud/config.json" in message and where in message


def test_a_credentials_file_too_large_to_be_one_is_refused_unread(home: Path) -> None:
    # A valid file padded with comments to 2 MB: refused without being read whole (at most 1 MB is read).
    padding = ("# " + "x" * 1022 + "\n") * 2048
    sdk_file(home, f"[basic]\nak = {AK}\nsk = {SK}\n{padding}")
    message = refused(REGION, {})
    where = "~/.huaweicloud/credentials ($HUAWEICLOUD_SDK_CREDENTIALS_FILE)"
    assert f"{where} is larger than 1048576 bytes" in message


def test_an_hcloud_file_nested_too_deeply_is_named_not_a_recursion_error(home: Path) -> None:
    path = home / ".hcloud" / "config.json"
    path.parent.mkdir()
    path.write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    message = refused(REGION, {})
    assert "hcloud config ~/.hcloud/config.json: nested too deeply to read (more than 32 levels)" in message


def test_a_credentials_file_of_many_bad_lines_names_a_few_and_counts_the_rest(home: Path) -> None:
    sdk_file(home, "[basic]\n" + f"{SK}\n" * 10_000)
    message = refused(REGION, {})
    assert "line 2, 3, 4" in message and "more is neither `key = value`" in message
    assert len(message) < 2000


def test_an_unreadable_file_is_named(home: Path) -> None:
    sdk_file(home, "").write_bytes(b"[basic]\nak = \xff\xfe\n")
    assert "~/.huaweicloud/credentials ($HUAWEICLOUD_SDK_CREDENTIALS_FILE) is not UTF-8 text" in refused(
        REGION, {}
    )


# ---------------------------------------------------------------------------------------------------------
# cloud domain and endpoints


def test_open_telekom_cloud_endpoints_from_region_and_cloud() -> None:
    got = resolve_settings(
        {"region": "eu-de", "cloud": "otc.t-systems.com", "accessKey": AK, "secretKey": SK}, {}
    )
    assert got.endpoint == "https://modelarts.eu-de.otc.t-systems.com"
    assert got.iam_endpoint == "https://iam.eu-de.otc.t-systems.com"
    assert (got.cloud, got.project_id) == ("otc.t-systems.com", None)
    env = resolve_settings(
        {}, {"HW_REGION_NAME": "eu-de", "HW_CLOUD": "OTC.T-Systems.com.", "HW_AUTH_TOKEN": "t"}
    )
    assert env.endpoint == "https://modelarts.eu-de.otc.t-systems.com"


@pytest.mark.parametrize(
    ("region", "cloud", "endpoint", "iam"),
    [
        (
            "cn-north-4",
            None,
            "https://modelarts.cn-north-4.myhuaweicloud.com",
            "https://iam.cn-north-4.myhuaweicloud.com",
        ),
        (
            "ap-southeast-1",
            None,
            "https://modelarts.ap-southeast-1.myhuaweicloud.cn",
            "https://iam.ap-southeast-1.myhuaweicloud.com",
        ),
        (
            "ap-southeast-1",
            "example.net",
            "https://modelarts.ap-southeast-1.example.net",
            "https://iam.ap-southeast-1.example.net",
        ),
        (
            "eu-west-101",
            None,
            "https://modelarts.eu-west-101.myhuaweicloud.eu",
            "https://iam.eu-west-101.myhuaweicloud.eu",
        ),
        (
            "eu-west-101",
            "myhuaweicloud.com",
            "https://modelarts.eu-west-101.myhuaweicloud.com",
            "https://iam.eu-west-101.myhuaweicloud.com",
        ),
        (
            "eu-west-0",
            None,
            "https://modelarts.eu-west-0.myhuaweicloud.com",
            "https://iam.eu-west-0.myhuaweicloud.com",
        ),
    ],
)
def test_cloud_domain_derives_both_endpoints(region: str, cloud: str | None, endpoint: str, iam: str) -> None:
    config = {"region": region, "authToken": "t", **({"cloud": cloud} if cloud else {})}
    got = resolve_settings(config, {})
    assert (got.endpoint, got.iam_endpoint) == (endpoint, iam)


@pytest.mark.parametrize(
    "given",
    [
        "https://iam.example.org",
        "https://iam.example.org/",
        "https://iam.example.org/v3",
        "https://iam.example.org/v3/",
    ],
)
def test_iam_endpoint_with_or_without_v3(given: str) -> None:
    got = resolve_settings({**REGION, "authToken": "t"}, {"HW_AUTH_URL": given})
    assert got.iam_endpoint == "https://iam.example.org"
    assert "//" not in got.iam_endpoint.removeprefix("https://")
    sdk = resolve_settings({**REGION, "authToken": "t"}, {"HUAWEICLOUD_SDK_IAM_ENDPOINT": given})
    assert sdk.iam_endpoint == "https://iam.example.org"


@pytest.mark.parametrize(
    ("config", "named"),
    [
        ({"region": ".", "authToken": "t"}, "region (config modelarts:region)"),
        ({"region": "cn..north", "authToken": "t"}, "region (config modelarts:region)"),
        ({"region": "cn-north-4", "cloud": ".com", "authToken": "t"}, "config modelarts:cloud"),
        ({"region": "cn-north-4", "cloud": "a..b", "authToken": "t"}, "config modelarts:cloud"),
        (
            {"region": "cn-north-4", "iamEndpoint": "https://iam..myhuaweicloud.com/v3", "authToken": "t"},
            "IAM endpoint (config modelarts:iamEndpoint)",
        ),
        (
            {"region": "cn-north-4", "iamEndpoint": "https://iam.example.org//v3", "authToken": "t"},
            "IAM endpoint",
        ),
        ({"region": "cn-north-4", "endpoint": "https://ma..example.org", "authToken": "t"}, "endpoint"),
    ],
)
def test_no_url_with_an_empty_label_is_ever_made(config: dict[str, str], named: str) -> None:
    text = refused(config, {})
    assert named in text
    assert "iam..m" not in text.replace("https://iam..myhuaweicloud.com/v3", "")


def test_an_empty_region_is_missing_not_an_empty_host_label() -> None:
    text = refused({"region": "  ", "authToken": "t"}, {})
    assert "the endpoint or a region" in text and "the project id, or a region or project name" in text


def test_a_strange_region_with_everything_explicit_is_left_alone() -> None:
    # A private deployment's region name need not fit in a host name when nothing is derived from it.
    got = resolve_settings(
        {"region": "Region_One", "endpoint": "https://ma.example.org", "projectId": "p"},
        {"HW_AUTH_TOKEN": "t"},
    )
    assert got.region == "Region_One" and got.iam_endpoint is None


# ---------------------------------------------------------------------------------------------------------
# CA file, agencies


def test_ca_cert_file_must_be_a_readable_file(tmp_path: Path) -> None:
    pem = tmp_path / "corp.pem"
    pem.write_text("-----BEGIN CERTIFICATE-----\nsecret-looking-content\n", encoding="utf-8")
    got = resolve_settings({**REGION, "caCertFile": str(pem), "authToken": "t"}, {})
    assert got.ca_cert_file == str(pem)
    assert resolve_settings({**REGION, "authToken": "t"}, {"HW_CACERT_FILE": str(pem)}).ca_cert_file == str(
        pem
    )
    text = refused({**REGION, "authToken": "t"}, {"HW_CACERT_FILE": str(tmp_path / "nope.pem")})
    assert "$HW_CACERT_FILE" in text and "not a readable file" in text
    text = refused({**REGION, "authToken": "t", "caCertFile": str(tmp_path)}, {})
    assert "config modelarts:caCertFile" in text and "secret-looking-content" not in text


def test_assume_role_from_config_object_or_environment() -> None:
    role = json.dumps({"agencyName": "deployer", "domainName": "other", "durationSeconds": 3600})
    got = resolve_settings({**REGION, "assumeRole": role, "authToken": "t"}, {})
    assert got.assume_role == AssumeRole(agency_name="deployer", domain_name="other", duration_seconds=3600)
    environ = {
        "HW_ASSUME_ROLE_AGENCY_NAME": "a",
        "HW_ASSUME_ROLE_DOMAIN_ID": "d1",
        "HW_ASSUME_ROLE_DURATION": "900",
    }
    got = resolve_settings({**REGION, "authToken": "t"}, environ)
    assert got.assume_role == AssumeRole(agency_name="a", domain_id="d1", duration_seconds=900)
    # A field the config object leaves out comes from the environment, as Terraform's block does.
    got = resolve_settings({**REGION, "authToken": "t", "assumeRole": '{"agencyName": "x"}'}, environ)
    assert got.assume_role == AssumeRole(agency_name="x", domain_id="d1", duration_seconds=900)


@pytest.mark.parametrize(
    ("role", "environ", "named"),
    [
        ('{"agencyName": "a"}', {}, "domainName or domainId"),
        ('{"domainName": "d"}', {}, "needs its name"),
        ('{"agencyName": "a", "domainId": "d", "durationSeconds": 60}', {}, "from 900 to 86400"),
        ('{"agencyName": "a", "domainId": "d", "durationSeconds": "1h"}', {}, "$HW_ASSUME_ROLE_DURATION"),
        ('{"agency": "a"}', {}, "unknown fields ['agency']"),
        ("deployer", {}, "config modelarts:assumeRole must be an object"),
        (
            None,
            {"HW_ASSUME_ROLE_AGENCY_NAME": "a"},
            "$HW_ASSUME_ROLE_DOMAIN_NAME or $HW_ASSUME_ROLE_DOMAIN_ID",
        ),
    ],
)
def test_an_incomplete_agency_is_refused_naming_the_settings(
    role: str | None, environ: dict[str, str], named: str
) -> None:
    config = {**REGION, "authToken": "t", **({"assumeRole": role} if role else {})}
    assert named in refused(config, environ)


# ---------------------------------------------------------------------------------------------------------
# the keys as front-ends see them


def test_every_setting_is_a_config_key_and_near_misses_point_at_them() -> None:
    for key in (
        "projectName",
        "cloud",
        "iamEndpoint",
        "caCertFile",
        "sharedConfigFile",
        "profile",
        "assumeRole",
    ):
        assert f"modelarts:{key}" in CONFIG_KEYS
    for key in ("idpId", "idTokenFile", "useInstanceMetadata", "metadataEndpoint"):
        assert f"modelarts:{key}" in CONFIG_KEYS
    misses = near_miss_keys()
    assert misses["modelarts:project_name"] == "modelarts:projectName"
    assert misses["huaweicloud:cloud"] == "modelarts:cloud"
    assert misses["modelarts:auth_url"] == "modelarts:iamEndpoint"
    assert misses["modelarts:HW_AUTH_URL"] == "modelarts:iamEndpoint"
    assert misses["modelarts:cacert_file"] == "modelarts:caCertFile"
    assert misses["modelarts:shared_config_file"] == "modelarts:sharedConfigFile"
    assert misses["modelarts:assume_role"] == "modelarts:assumeRole"
    assert misses["modelarts:use_instance_metadata"] == "modelarts:useInstanceMetadata"
    assert misses["modelarts:HUAWEICLOUD_SDK_IDP_ID"] == "modelarts:idpId"
    assert not set(CONFIG_KEYS) & set(misses)
    problem = settings_problem({}, {}, ["modelarts:cacert_file"])
    assert problem is not None and problem.endswith("did you mean modelarts:caCertFile?")


def test_an_explicit_providers_boolean_and_object_reach_the_settings_as_text() -> None:
    config = ProviderConfig()
    role = {"agencyName": "deployer", "domainName": "other"}
    config.configure(
        {
            "modelarts:useInstanceMetadata": True,
            "modelarts:assumeRole": role,
            "modelarts:region": "cn-north-4",
        }
    )
    got = resolve_settings(config.current(), {})
    assert got.use_instance_metadata and got.assume_role == AssumeRole(
        agency_name="deployer", domain_name="other"
    )
