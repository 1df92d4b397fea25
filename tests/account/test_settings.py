"""Settings resolution: precedence, derived endpoints, one clear error, and secrets kept out of sight."""

from __future__ import annotations

import dataclasses
import pickle
from pathlib import Path

import pytest

from pulumi_modelarts.account.errors import SettingsError
from pulumi_modelarts.account.files import SDK_CREDENTIALS_ENV
from pulumi_modelarts.account.session import open_api
from pulumi_modelarts.account.settings import (
    SOURCES,
    Settings,
    endpoint_for_region,
    near_miss_keys,
    resolve_settings,
    settings_problem,
)
from pulumi_modelarts.wire.auth import AkSkAuth, TokenAuth

from ..httpserver import ScriptedServer, json_reply

AK = "AKSETTINGS0123456789"
SK = "SkSettingsSecret0123456789abcdef"
TOKEN = "IamTokenValue-0123456789abcdef"
STS = "StsSecurityToken-0123456789"

# The variables of the region, project, endpoint and static credentials: a message about missing settings
# names every one (the other settings have defaults or belong to particular set-ups).
BASIC = ("region", "project_id", "endpoint", "access_key", "secret_key", "security_token", "auth_token")
ALL_ENV = [name for setting in BASIC for name in SOURCES[setting][1]]
EVERY_ENV = [name for _, names in SOURCES.values() for name in names] + [SDK_CREDENTIALS_ENV]


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for name in EVERY_ENV:
        monkeypatch.delenv(name, raising=False)
    # The account files are looked for under the home directory: an empty one, never the developer's.
    monkeypatch.setenv("HOME", str(tmp_path))


def minimal(**extra: str) -> dict[str, str]:
    return {"modelarts:region": "cn-north-4", "modelarts:projectId": "p1", **extra}


def test_config_beats_environment_and_hw_beats_sdk_names() -> None:
    environ = {
        "HW_REGION_NAME": "cn-south-1",
        "HW_PROJECT_ID": "env-project",
        "HUAWEICLOUD_SDK_PROJECT_ID": "sdk-project",
        "HW_ACCESS_KEY": "AK-from-HW",
        "HUAWEICLOUD_SDK_AK": "AK-from-SDK",
        "HW_SECRET_KEY": "SK-from-HW",
        "HUAWEICLOUD_SDK_SK": "SK-from-SDK",
    }
    got = resolve_settings({"modelarts:region": "cn-north-4"}, environ)
    assert got.region == "cn-north-4"
    assert got.project_id == "env-project"
    assert (got.access_key, got.secret_key) == ("AK-from-HW", "SK-from-HW")
    sdk_only = {k: v for k, v in environ.items() if not k.startswith("HW_")}
    got = resolve_settings({"region": "cn-north-4"}, sdk_only)
    assert (got.project_id, got.access_key, got.secret_key) == ("sdk-project", "AK-from-SDK", "SK-from-SDK")


def test_bare_and_namespaced_keys() -> None:
    bare = resolve_settings({"region": "cn-east-3", "projectId": "p", "authToken": TOKEN}, {})
    assert (bare.region, bare.project_id, bare.auth_token) == ("cn-east-3", "p", TOKEN)
    both = resolve_settings(
        {"region": "cn-east-3", "modelarts:region": "cn-north-4", "projectId": "p"}, {"HW_AUTH_TOKEN": TOKEN}
    )
    assert both.region == "cn-north-4"


def test_environment_is_read_by_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HW_REGION_NAME", "cn-north-4")
    monkeypatch.setenv("HW_PROJECT_ID", "p-env")
    monkeypatch.setenv("HW_AUTH_TOKEN", TOKEN)
    got = resolve_settings()
    assert (got.project_id, got.auth_kind) == ("p-env", "token")


def test_blank_values_count_as_missing() -> None:
    got = resolve_settings(
        minimal(**{"modelarts:accessKey": " "}), {"HW_ACCESS_KEY": AK, "HW_SECRET_KEY": SK}
    )
    assert got.access_key == AK


@pytest.mark.parametrize(
    ("region", "endpoint"),
    [
        ("cn-north-4", "https://modelarts.cn-north-4.myhuaweicloud.com"),
        ("ap-southeast-1", "https://modelarts.ap-southeast-1.myhuaweicloud.cn"),
        ("ap-southeast-3", "https://modelarts.ap-southeast-3.myhuaweicloud.com"),
    ],
)
def test_endpoint_from_region(region: str, endpoint: str) -> None:
    assert endpoint_for_region(region) == endpoint
    got = resolve_settings({"region": region, "projectId": "p", "authToken": TOKEN}, {})
    assert got.endpoint == endpoint


def test_europe_regions_are_on_huawei_cloud_europe() -> None:
    # On the default domain the pattern holds; a region alone puts Huawei Cloud Europe's regions on its own
    # domain, as Huawei's Terraform provider does (regions named eu-west-1...).
    assert endpoint_for_region("eu-west-101") == "https://modelarts.eu-west-101.myhuaweicloud.com"
    got = resolve_settings({"region": "eu-west-101", "projectId": "p", "authToken": TOKEN}, {})
    assert got.endpoint == "https://modelarts.eu-west-101.myhuaweicloud.eu"
    assert (got.cloud, got.iam_endpoint) == ("myhuaweicloud.eu", "https://iam.eu-west-101.myhuaweicloud.eu")


def test_endpoints_agree_with_the_official_region_table() -> None:
    from huaweicloudsdkmodelarts.v1.region.modelarts_region import ModelArtsRegion

    for region_id, region in ModelArtsRegion.static_fields.items():
        assert endpoint_for_region(region_id) == region.endpoints[0]


@pytest.mark.parametrize("region", ["evil.com/x", "CN-NORTH-4", "cn-north-4.", "a b", "-x"])
def test_bad_regions_are_refused(region: str) -> None:
    with pytest.raises(SettingsError, match="region"):
        resolve_settings({"region": region, "projectId": "p", "authToken": TOKEN}, {})


def test_explicit_endpoint_wins_and_is_checked() -> None:
    got = resolve_settings(minimal(endpoint="https://ma.example.org/prefix/", authToken=TOKEN), {})
    assert got.endpoint == "https://ma.example.org/prefix"
    env = resolve_settings(
        {"projectId": "p", "authToken": TOKEN}, {"HW_MODELARTS_ENDPOINT": "http://127.0.0.1:8080"}
    )
    assert env.endpoint == "http://127.0.0.1:8080"
    with pytest.raises(SettingsError, match="plain http"):
        resolve_settings(minimal(endpoint="http://ma.example.org", authToken=TOKEN), {})


def test_user_info_in_the_endpoint_is_refused_without_echoing_it() -> None:
    with pytest.raises(SettingsError) as caught:
        resolve_settings(minimal(endpoint=f"https://{AK}:{SK}@ma.example.org", authToken=TOKEN), {})
    assert SK not in str(caught.value) and AK not in str(caught.value)


def test_missing_everything_is_one_error_naming_every_place() -> None:
    with pytest.raises(SettingsError) as caught:
        resolve_settings({}, {})
    text = str(caught.value)
    for key in ("region", "projectId", "endpoint", "accessKey", "secretKey", "authToken"):
        assert f"modelarts:{key}" in text
    for name in ALL_ENV:
        if name not in ("HW_SECURITY_TOKEN", "HUAWEICLOUD_SDK_SECURITY_TOKEN"):
            assert f"${name}" in text


def test_half_a_key_pair_is_reported_without_values() -> None:
    with pytest.raises(SettingsError) as caught:
        resolve_settings(minimal(), {"HW_ACCESS_KEY": AK, "HW_AUTH_TOKEN": TOKEN})
    text = str(caught.value)
    assert "secret key" in text and "$HW_SECRET_KEY" in text and "$HUAWEICLOUD_SDK_SK" in text
    assert AK not in text and TOKEN not in text


def test_every_problem_in_one_message() -> None:
    with pytest.raises(SettingsError) as caught:
        resolve_settings({"endpoint": "http://example.com"}, {"HW_SECRET_KEY": SK})
    text = str(caught.value)
    assert "project id" in text and "plain http" in text and "access key" in text
    assert SK not in text


def test_aksk_wins_over_a_token_and_brings_its_security_token() -> None:
    got = resolve_settings(minimal(accessKey=AK, secretKey=SK, securityToken=STS, authToken=TOKEN), {})
    assert got.auth_kind == "aksk+security-token"
    assert isinstance(got.auth(), AkSkAuth)
    token_only = resolve_settings(minimal(securityToken=STS, authToken=TOKEN), {})
    assert isinstance(token_only.auth(), TokenAuth)
    assert token_only.security_token is None


def test_settings_hide_secrets_and_refuse_pickling() -> None:
    got = resolve_settings(minimal(accessKey=AK, secretKey=SK, securityToken=STS, authToken=TOKEN), {})
    for text in (repr(got), str(got)):
        for secret in (AK, SK, STS, TOKEN):
            assert secret not in text
    with pytest.raises(TypeError):
        pickle.dumps(got)
    with pytest.raises(dataclasses.FrozenInstanceError):
        got.secret_key = "x"  # type: ignore[misc]


def test_settings_client_signs_with_aksk(server: ScriptedServer) -> None:
    got = resolve_settings(
        {"endpoint": server.url, "projectId": "p1", "accessKey": AK, "secretKey": SK, "authToken": TOKEN}, {}
    )
    server.queue(json_reply({"metadata": {"id": "j"}}))
    with open_api(got, timeout=3.0, max_attempts=1) as client:
        assert client.transport.timeout == 3.0
        client.get_job("j")
    (sent,) = server.requests
    assert sent.path == "/v2/p1/training-jobs/j"
    assert sent.headers["authorization"].startswith(f"SDK-HMAC-SHA256 Access={AK}, ")
    assert "x-auth-token" not in sent.headers


def test_settings_client_with_a_token(server: ScriptedServer) -> None:
    got = resolve_settings(
        {}, {"HW_MODELARTS_ENDPOINT": server.url, "HW_PROJECT_ID": "p1", "HW_AUTH_TOKEN": TOKEN}
    )
    server.queue(json_reply({"metadata": {"id": "j"}}))
    with open_api(got) as client:
        client.get_job("j")
    (sent,) = server.requests
    assert sent.headers["x-auth-token"] == TOKEN
    assert sent.headers["x-project-id"] == "p1"
    assert "authorization" not in sent.headers


def test_settings_can_be_built_directly() -> None:
    direct = Settings(project_id="p", endpoint="https://x.example", auth_token=TOKEN)
    assert direct.region is None and direct.auth_kind == "token"


def test_near_miss_keys_point_at_the_key_that_is_read() -> None:
    misses = near_miss_keys()
    assert misses["modelarts:project_id"] == "modelarts:projectId"
    assert misses["modelarts:projectid"] == "modelarts:projectId"
    assert misses["modelarts:ProjectId"] == "modelarts:projectId"
    assert misses["modelarts:access_key"] == "modelarts:accessKey"
    assert misses["modelarts:AK"] == "modelarts:accessKey"
    assert misses["modelarts:HW_SECRET_KEY"] == "modelarts:secretKey"
    assert misses["huaweicloud:region"] == "modelarts:region"
    assert misses["ModelArts:endpoint"] == "modelarts:endpoint"
    # The keys that are read are never near misses of anything.
    assert not {f"modelarts:{key}" for key, _ in SOURCES.values()} & set(misses)


def test_settings_problem_names_what_is_missing_and_near_misses_without_values() -> None:
    complete = {
        "modelarts:projectId": "proj-1",
        "modelarts:region": "cn-north-4",
        "modelarts:accessKey": "AKVALUE123",
        "modelarts:secretKey": "SKVALUE456",
    }
    assert settings_problem(complete, {}) is None
    assert (
        settings_problem({}, {"HW_PROJECT_ID": "p", "HW_REGION_NAME": "cn-north-4", "HW_AUTH_TOKEN": "t"})
        is None
    )
    # A region alone is enough now (the project is looked up by name): without it the project id is missing.
    incomplete = {k: v for k, v in complete.items() if k not in ("modelarts:projectId", "modelarts:region")}
    problem = settings_problem(incomplete, {}, ["modelarts:project_id"])
    assert problem is not None
    assert problem.startswith("ModelArts settings are incomplete or unusable. Missing: the project id")
    assert problem.endswith(
        "config modelarts:project_id is set but not read: did you mean modelarts:projectId?"
    )
    assert "AKVALUE123" not in problem and "SKVALUE456" not in problem
    plain_http = settings_problem({**complete, "modelarts:endpoint": "http://modelarts.example.com"}, {})
    assert plain_http is not None and "only https is allowed" in plain_http
