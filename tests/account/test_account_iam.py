"""The account's IAM side against the emulator: the project found by name, the instance metadata service's
keys, an agency's and an OIDC login's keys, their renewal (before expiry, and after an APIG.0307 refusal), the
private CA, and the secrets scrubbed. The official SDK is the oracle for the shapes: its ``BasicCredentials``
finds the same project, its ``MetadataAccessor`` fetches the same key.

Everything stays on loopback (``loopback_only``, as tests/emulator/test_emulator_iam.py): every endpoint,
IAM's and the metadata service's included, is the emulator's.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest

from modelarts_emulator.testing import EmulatorProcess
from pulumi_modelarts.account import projects, session
from pulumi_modelarts.account.errors import AccountError, SettingsError
from pulumi_modelarts.account.iam import Iam
from pulumi_modelarts.account.metadata import MetadataKeys
from pulumi_modelarts.account.session import open_api
from pulumi_modelarts.account.settings import AssumeRole, Settings
from pulumi_modelarts.wire.api import ModelArtsAPI

from ..httpserver import ScriptedServer
from ..official_sdk import regional_sdk_client, sdk_module
from ..support import PARTNER_PROJECT
from .account_support import AGENCY, keyless, settings_for

sdk_module("huaweicloudsdkcore")
from huaweicloudsdkcore.auth.credentials import BasicCredentials  # noqa: E402
from huaweicloudsdkcore.auth.internal import MetadataAccessor  # noqa: E402

pytestmark = pytest.mark.usefixtures("loopback_only", "fresh_process_caches")


def search_total(client: ModelArtsAPI) -> int:
    return len(list(client.iter_jobs()))


# -- the project ---------------------------------------------------------------------------------------------


def test_the_project_is_found_by_region_once_per_process(
    emulator_factory: Callable[..., EmulatorProcess],
) -> None:
    emu = emulator_factory(sub_project=["ml"])
    oracle = regional_sdk_client(
        emu, BasicCredentials(emu.access_key, emu.secret_key)
    )._credentials.project_id
    with open_api(settings_for(emu)) as client:
        assert client.transport.project_id == emu.project_id == oracle
        assert search_total(client) == 0  # the project ModelArts accepts for these keys
    with open_api(settings_for(emu)) as again:
        assert again.transport.project_id == emu.project_id
    sub = settings_for(emu, project_name=f"{emu.region}_ml")
    sdk_sub = regional_sdk_client(
        emu, BasicCredentials(emu.access_key, emu.secret_key), region=f"{emu.region}_ml"
    )
    with open_api(sub) as client:
        assert client.transport.project_id == sdk_sub._credentials.project_id != emu.project_id
        assert search_total(client) == 0
    # One lookup each for the SDK's two and ours (the second client asked nobody).
    assert emu.credentials()["calls"] == {"list_projects": 4}


def test_a_given_project_id_asks_iam_nothing(emulator: EmulatorProcess) -> None:
    given = settings_for(emulator, project_id=emulator.project_id, iam_endpoint="https://iam.invalid")
    with open_api(given) as client:
        assert search_total(client) == 0
    assert emulator.credentials()["calls"] == {}


def test_without_the_listing_permission_the_usable_projects_are_filtered(
    emulator_factory: Callable[..., EmulatorProcess],
) -> None:
    emu = emulator_factory(iam_list_projects_forbidden=True, sub_project=["ml"])
    with open_api(settings_for(emu, project_name=f"{emu.region}_ml")) as client:
        assert client.transport.project_id not in (None, emu.project_id)
        assert search_total(client) == 0
    assert emu.credentials()["calls"] == {"list_projects": 1, "auth_projects": 1}


def test_no_such_project_names_it_iams_answer_its_request_id_and_the_fix(
    emulator_factory: Callable[..., EmulatorProcess],
) -> None:
    emu = emulator_factory(iam_list_projects_forbidden=True)
    with pytest.raises(AccountError) as caught:
        open_api(settings_for(emu, project_name="cn-north-4_missing"))
    text = str(caught.value)
    assert "'cn-north-4_missing'" in text and "answered none" in text
    assert "/v3/projects?name=cn-north-4_missing was refused" in text and "HTTP 403" in text
    assert "identity:list_projects" in text and "/v3/auth/projects" in text
    assert "the projects it listed: cn-north-4" in text
    assert "request id " in text
    assert (
        "modelarts:projectId or HW_PROJECT_ID" in text and "modelarts:projectName or HW_PROJECT_NAME" in text
    )
    assert emu.secret_key not in text and emu.access_key not in text
    with pytest.raises(AccountError, match="no region eu-de's project named 'eu-de'"):
        open_api(settings_for(emu, region="eu-de", iam_endpoint=f"{emu.url}/v3"))
    with pytest.raises(AccountError, match=r"HTTP 401 \(APIG.0301\).*IAM refused the credentials"):
        open_api(settings_for(emu, access_key="OTHERACCOUNTKEY0001"))


def test_several_projects_of_one_name_are_an_error_listing_them() -> None:
    listed = {"projects": [{"id": "p1", "name": "r"}, {"id": "p2", "name": "r"}], "links": {}}

    def answer(request: httpx.Request) -> httpx.Response:
        assert request.url.path == "/v3/projects" and request.url.params["name"] == "r"
        return httpx.Response(200, json=listed, headers={"X-Request-Id": "rid-7"})

    iam = Iam("https://iam.r.example.com", transport=httpx.MockTransport(answer))
    with pytest.raises(AccountError) as caught:
        projects.find_project(iam, httpx.Auth(), "r", identity="x")
    assert "several projects are named 'r'" in str(caught.value) and "p1, p2" in str(caught.value)
    assert "[request id rid-7]" in str(caught.value) and projects.FIX in str(caught.value)


def test_iams_endpoint_is_derived_from_region_and_cloud() -> None:
    otc = Settings(
        region="eu-de", cloud="otc.t-systems.com", endpoint="https://modelarts.eu-de.otc.t-systems.com"
    )
    assert session.iam_base(otc) == "https://iam.eu-de.otc.t-systems.com"
    given = Settings(endpoint="http://127.0.0.1:1", iam_endpoint="https://iam.example.com/v3/")
    assert session.iam_base(given) == "https://iam.example.com"
    with pytest.raises(SettingsError, match="HW_AUTH_URL"):
        session.iam_base(Settings(endpoint="https://x.example.com"))
    with pytest.raises(SettingsError, match="only https"):
        session.iam_base(Settings(endpoint="https://x.example.com", iam_endpoint="http://iam.example.com"))


# -- the instance metadata service ---------------------------------------------------------------------------


def test_metadata_keys_are_the_ones_the_official_accessor_fetches(
    emulator: EmulatorProcess, monkeypatch: pytest.MonkeyPatch
) -> None:
    ours = MetadataKeys(emulator.url).fetch()
    # Its endpoint is a class constant: the emulator's here (and loopback_only refuses any other address).
    monkeypatch.setattr(MetadataAccessor, "_METADATA_ENDPOINT", emulator.url)
    theirs = MetadataAccessor().get_credential()  # the same key until half its life has passed
    assert (ours.access, ours.secret, ours.security_token) == (
        theirs.access, theirs.secret, theirs.security_token,
    )  # fmt: skip
    assert ours.expires_at is not None and 23 * 3600 < ours.expires_at - time.time() <= 24 * 3600
    with open_api(keyless(emulator, use_instance_metadata=True,
                                               metadata_endpoint=emulator.url)) as client:  # fmt: skip
        assert client.transport.project_id == emulator.project_id and search_total(client) == 0


def test_metadata_without_tokens_and_with_a_token_gone_stale(
    emulator_factory: Callable[..., EmulatorProcess],
) -> None:
    old = emulator_factory(metadata_tokens=False)
    assert MetadataKeys(old.url).fetch().access
    assert old.credentials()["calls"] == {"metadata_token": 1, "securitykey": 1}
    emu = emulator_factory()
    keys = MetadataKeys(emu.url)
    keys.fetch()
    keys.fetch()  # the token is kept
    assert emu.credentials()["calls"] == {"metadata_token": 1, "securitykey": 2}
    emu.reset()  # the service forgets its tokens: a 401, then a new token, once
    assert keys.fetch().access
    assert emu.credentials()["calls"] == {"metadata_token": 1, "securitykey": 2}


def test_no_agency_attached_says_to_attach_one(emulator_factory: Callable[..., EmulatorProcess]) -> None:
    emu = emulator_factory(metadata_agency=False)
    with pytest.raises(AccountError) as caught:
        open_api(keyless(emu, use_instance_metadata=True, metadata_endpoint=emu.url))
    assert "no agency is attached" in str(caught.value) and "Attach an agency" in str(caught.value)
    assert emu.credentials()["calls"] == {"metadata_token": 1, "securitykey": 1}
    assert emu.stats()["by_operation"] == {}


def test_no_metadata_service_is_a_clear_error() -> None:
    with ScriptedServer() as server:
        url = server.url
    with pytest.raises(AccountError, match=r"did not answer.*ECS instance or CCE node"):
        MetadataKeys(url).fetch()


# -- agencies and OIDC ---------------------------------------------------------------------------------------


def test_an_agency_signs_every_call_and_finds_its_own_project(emulator: EmulatorProcess) -> None:
    with open_api(settings_for(emulator, assume_role=AGENCY)) as client:
        assert (
            client.transport.project_id == PARTNER_PROJECT
        )  # the other account's, found with the agency's keys
        assert search_total(client) == 0
    with open_api(settings_for(emulator, assume_role=AGENCY)) as client:
        assert search_total(client) == 0
    ledger = emulator.credentials()
    assert ledger["issued"] == {"assume_role": 1}  # shared by every client of the process
    assert ledger["calls"] == {"securitytokens": 1, "list_projects": 1}


def test_an_unknown_agency_is_iams_refusal(emulator: EmulatorProcess) -> None:
    wrong = AssumeRole(agency_name="nope", domain_id="0" * 32, duration_seconds=900)
    with pytest.raises(AccountError) as caught:
        open_api(settings_for(emulator, assume_role=wrong))
    assert "assuming the agency 'nope' failed: IAM answered HTTP 404" in str(caught.value)
    assert "Could not find agency" in str(caught.value) and "request id" in str(caught.value)


def test_oidc_reads_the_token_file_at_each_renewal(emulator: EmulatorProcess, tmp_path: Path) -> None:
    token_file = tmp_path / "id_token"
    token_file.write_text("emulator-id-token\n")
    oidc = keyless(emulator, idp_id="emulator_idp", id_token_file=str(token_file))
    with open_api(oidc) as client:
        assert client.transport.project_id == emulator.project_id and search_total(client) == 0
        handled = session.temporary_secrets()
        assert "emulator-id-token" in handled
        for prefix in ("emulator-subject-", "emulator-sts-"):
            value = next(s for s in handled if s.startswith(prefix))
            assert client.transport.scrub(f"quoted {value}.") == "quoted ***."
        assert client.transport.scrub("quoted emulator-id-token.") == "quoted ***."
        token_file.write_text("rotated-id-token-the-emulator-refuses")
        emulator.expire_temporary_keys()
        with pytest.raises(AccountError) as caught:
            search_total(client)
    text = str(caught.value)
    assert "logging in with the id token" in text and "HTTP 401" in text
    assert "rotated-id-token" not in text and "emulator-id-token" not in text
    assert emulator.credentials()["calls"]["id_token_login"] == 2
