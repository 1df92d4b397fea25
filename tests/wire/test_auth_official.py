"""AkSkAuth and the official Huawei Cloud signer sign the same logical requests alike.

Each generated request is a *logical* request: method, host, decoded path segments, decoded query pairs,
headers and body. The official signer gets it the way the official SDK builds an `SdkRequest` (path
parameters quoted with nothing safe, query pairs as a list of decoded tuples); httpx gets it the way a caller
might write it (encoded in one of several valid ways, or through `params=`). Both sign with the same pinned
X-Sdk-Date. Then what httpx would put on the wire is decoded back and verified with the official signer, as a
server does: it must be the same logical request, with a signature that holds.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any
from urllib.parse import quote, quote_plus, unquote, unquote_plus

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pulumi_modelarts.wire.auth import (
    DATE_FORMAT,
    DATE_HEADER,
    AkSkAuth,
    canonical_query,
    parse_authorization,
    query_pairs,
    wire_query,
)

from ..httpserver import Reply, ScriptedServer
from ..official_sdk import sdk_module

sdk_module("huaweicloudsdkcore")
from huaweicloudsdkcore.auth.credentials import BasicCredentials  # noqa: E402
from huaweicloudsdkcore.sdk_request import SdkRequest  # noqa: E402
from huaweicloudsdkcore.signer.signer import Signer  # noqa: E402

AK = "HPUAEXAMPLEACCESSKEY"
SK = "sEcReT/Example+Secret=Key0123456789abcdefgh"

SUB_DELIMS = "!$&'()*+,;="
# Characters a caller may leave raw in a query key or value without changing its meaning ("=" only in values).
QUERY_SAFE = ":@!$'()*,;/?"


@dataclass(frozen=True)
class Logical:
    """One request as its sender means it, before any encoding."""

    method: str
    host: str
    segments: tuple[str, ...]  # decoded; the path is "/" + "/".join(segments)
    query: tuple[tuple[str, str], ...]  # decoded pairs, in order, repeats and blanks kept
    content_type: str | None
    body: bytes | None  # None: no body at all
    sdk_date: str
    project_id: str | None
    security_token: str | None
    signed_by_caller: tuple[tuple[str, str], ...]  # signable headers the caller sets itself
    extra_headers: tuple[tuple[str, str], ...]  # sent, never signed


@dataclass(frozen=True)
class Encoding:
    """How the caller writes the logical request into an httpx request."""

    path: str  # "sdk" | "sub-delims" | "lower-hex" | "raw"
    query: str  # "params" | "quote" | "quote-safe" | "plus" | "raw"
    bare_keys: bool  # a blank value written as "k" rather than "k="


# ---------------------------------------------------------------- encoders (the caller's side)


def _lower_hex(encoded: str) -> str:
    out, i = [], 0
    while i < len(encoded):
        if encoded[i] == "%":
            out.append(encoded[i : i + 3].lower())
            i += 3
        else:
            out.append(encoded[i])
            i += 1
    return "".join(out)


def _escape_only(text: str, chars: str) -> str:
    """Percent-encode only `chars` and non-printable ASCII; httpx encodes the rest (spaces, non-ASCII...)."""
    return "".join(quote(c, safe="") if c in chars or ord(c) < 0x20 or ord(c) == 0x7F else c for c in text)


def encode_segment(segment: str, how: str) -> str:
    if how == "sdk":
        return quote(segment, safe="")
    if how == "sub-delims":
        return quote(segment, safe=SUB_DELIMS + ":@")
    if how == "lower-hex":
        return _lower_hex(quote(segment, safe=""))
    return _escape_only(segment, "%/?#")


def encode_query(pairs: tuple[tuple[str, str], ...], how: str, bare_keys: bool) -> str:
    def key(k: str) -> str:
        if how == "plus":
            return quote_plus(k, safe="")
        if how == "quote-safe":
            return quote(k, safe=QUERY_SAFE)
        if how == "raw":
            return _escape_only(k, "%&=+#")
        return quote(k, safe="")

    def value(v: str) -> str:
        if how == "plus":
            return quote_plus(v, safe="")
        if how == "quote-safe":
            return quote(v, safe=QUERY_SAFE + "=")
        if how == "raw":
            return _escape_only(v, "%&+#")
        return quote(v, safe="")

    return "&".join(key(k) if bare_keys and k and not v else f"{key(k)}={value(v)}" for k, v in pairs)


def httpx_request(req: Logical, enc: Encoding) -> httpx.Request:
    path = "/" + "/".join(encode_segment(s, enc.path) for s in req.segments)
    headers = [(DATE_HEADER, req.sdk_date), *req.signed_by_caller, *req.extra_headers]
    if req.content_type is not None:
        headers.append(("Content-Type", req.content_type))
    if enc.query == "params":
        url = f"https://{req.host}{path}"
        return httpx.Request(req.method, url, params=list(req.query), headers=headers, content=req.body)
    query = encode_query(req.query, enc.query, enc.bare_keys)
    url = f"https://{req.host}{path}" + (f"?{query}" if req.query else "")
    return httpx.Request(req.method, url, headers=headers, content=req.body)


# ---------------------------------------------------------------- the official side


def official(req: Logical) -> SdkRequest:
    """The request signed by the official signer, built as the official SDK builds an SdkRequest."""
    credentials = BasicCredentials(AK, SK, req.project_id)
    if req.security_token is not None:
        credentials = credentials.with_security_token(req.security_token)
    headers = {DATE_HEADER: req.sdk_date, **dict(req.signed_by_caller)}
    if req.content_type is not None:
        headers["Content-Type"] = req.content_type
    sdk_request = SdkRequest(
        method=req.method,
        schema="https",
        host=req.host,
        # The SDK substitutes each path parameter quoted with nothing safe.
        resource_path="/" + "/".join(quote(s, safe="") for s in req.segments),
        query_params=list(req.query),
        header_params=headers,
        body=req.body if req.body is not None else "",
    )
    signed: SdkRequest = credentials.sign_request(sdk_request)
    return signed


def verify_from_wire(sent: httpx.Request) -> str:
    """The Authorization a server computes from what is on the wire, with the official signer as verifier."""
    parts = parse_authorization(sent.headers["Authorization"])
    assert parts is not None
    raw_path, _, raw_query = sent.url.raw_path.decode("ascii").partition("?")
    wire = SdkRequest(
        method=sent.method,
        schema="https",
        host=sent.headers["Host"],
        resource_path=raw_path,
        query_params=server_query_pairs(raw_query),
        header_params={name: sent.headers[name] for name in parts.signed_headers},
        body=sent.content,
    )
    Signer(BasicCredentials(parts.access_key, SK)).sign(wire)
    value: str = wire.header_params["Authorization"]
    return value


def wire_segments(raw_path: str) -> list[str]:
    return [unquote(s) for s in raw_path.split("/")[1:]]


def _items(raw_query: str) -> list[tuple[str, str, str]]:
    return [item.partition("=") for item in raw_query.split("&") if item]


def server_query_pairs(raw_query: str) -> list[tuple[str, str]]:
    """Decode a query as a server does, asserting that servers reading "+" as a space or literally agree."""
    pairs = []
    for key, _, value in _items(raw_query):
        assert (unquote(key), unquote(value)) == (unquote_plus(key), unquote_plus(value)), (key, value)
        pairs.append((unquote(key), unquote(value)))
    return pairs


def check(req: Logical, enc: Encoding) -> None:
    expected = official(req)
    auth = AkSkAuth(AK, SK, security_token=req.security_token, project_id=req.project_id)
    request = httpx_request(req, enc)
    # The caller's query, read with form semantics as httpx reads it: the logical pairs, in the order httpx
    # keeps them (params= groups repeated keys).
    written = [(unquote_plus(k), unquote_plus(v)) for k, _, v in _items(request.url.query.decode("ascii"))]
    assert sorted(written) == sorted(req.query)
    sent = next(auth.sync_auth_flow(request))

    ours = parse_authorization(sent.headers["Authorization"])
    theirs = parse_authorization(expected.header_params["Authorization"])
    assert ours is not None and theirs is not None
    assert ours.signed_headers == theirs.signed_headers
    assert ours.signature == theirs.signature
    assert sent.headers["Authorization"] == expected.header_params["Authorization"]
    for name in ("X-Project-Id", "X-Security-Token", "X-Sdk-Content-Sha256", DATE_HEADER):
        assert sent.headers.get(name) == expected.header_params.get(name), name

    # What goes on the wire is the same logical request, and a server verifying it from there agrees.
    raw_path, _, raw_query = sent.url.raw_path.decode("ascii").partition("?")
    assert wire_segments(raw_path) == list(req.segments)
    assert server_query_pairs(raw_query) == written  # nothing lost, changed or reordered
    assert sent.method == req.method
    assert sent.content == (req.body or b"")
    for name, value in req.extra_headers:
        assert sent.headers[name] == value
    assert verify_from_wire(sent) == expected.header_params["Authorization"]


# ---------------------------------------------------------------- generated requests

# Characters that exercise every encoding rule, mixed with arbitrary code points; a text may start with a
# token that looks already encoded, so the already-encoded and the needs-encoding cases both occur.
TRICKY_CHARS = " +%/?#&=~-._!$'()*,;:@[]|\\^`{}\"<>üß训😀\u00a0\t"
ENCODED_LOOKING = ["", "", "%2B", "%2b", "%20", "%41", "%zz", "%", "%E8%AE%AD", "+", " "]
texts = st.builds(
    str.__add__,
    st.sampled_from(ENCODED_LOOKING),
    st.text(st.sampled_from(TRICKY_CHARS) | st.characters(codec="utf-8"), max_size=4),
)
# "." and ".." are dot-segments, which every URL library removes; the client refuses such ids.
segment_lists = st.lists(texts.filter(lambda s: s not in (".", "..")), min_size=1, max_size=4)
CONTENT_TYPES = [
    None,
    "application/json",
    "application/json;charset=UTF-8",
    "application/bson",
    "text/plain",
    "application/octet-stream",
    "application/x-www-form-urlencoded",
    "multipart/form-data; boundary=b0und4ry",
    "Application/JSON",
    "application/json ",
]
JSON_BODIES = [
    b'{"kind":"job","metadata":{"name":"nightly-1"}}',
    json.dumps({"metadata": {"name": "训练-job ü", "description": "😀"}}, ensure_ascii=False).encode("utf-8"),
    b'{"action_type":"terminate"}',
]
bodies = st.one_of(
    st.none(),
    st.just(b""),
    st.sampled_from(JSON_BODIES),
    st.text(max_size=12).map(lambda t: t.encode("utf-8")),
    st.binary(min_size=1, max_size=16),
)
# Not signed by this client; the official signer is never shown them.
EXTRA_HEADERS = [
    ("User-Agent", "pulumi-modelarts/0.1"),
    ("Accept", "application/json"),
    ("Accept-Language", "en-US"),
    ("X-Request-Id", "0f1e2d3c"),
    ("X-Trace_Id", "t-1"),
]
tokens = st.text(alphabet="ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=-_", min_size=8)
# Built once: strategies made inside a composite are rebuilt and revalidated on every draw.
key_lists = st.lists(texts, max_size=3)
value_lists = st.lists(st.just("") | texts, min_size=1, max_size=2)
caller_header_sets = st.lists(st.sampled_from(["project", "token", "content-hash"]), unique=True)
methods = st.sampled_from(["GET", "POST", "PUT", "DELETE", "PATCH", "HEAD"])
hosts = st.sampled_from(["modelarts.cn-north-4.myhuaweicloud.com", "127.0.0.1:8443", "[::1]:8443"])
content_types = st.sampled_from(CONTENT_TYPES)
moments = st.datetimes(min_value=datetime(2000, 1, 1))
project_ids = st.none() | st.sampled_from(["0123456789abcdef0123456789abcdef", "p-1"])
security_tokens = st.none() | tokens
extra_header_sets = st.lists(st.sampled_from(EXTRA_HEADERS), unique=True)


@st.composite
def query_lists(draw: st.DrawFn) -> tuple[tuple[str, str], ...]:
    # Each key has one or two values (repeated keys), some blank; then the pairs are put in any order.
    pairs = [(k, v) for k in draw(key_lists) for v in draw(value_lists)]
    return tuple(draw(st.permutations(pairs)))


@st.composite
def logical_requests(draw: st.DrawFn) -> Logical:
    body = draw(bodies)
    caller_headers = draw(caller_header_sets)
    signed_by_caller = []
    if "project" in caller_headers:
        signed_by_caller.append(("X-Project-Id", "caller-project"))
    if "token" in caller_headers:
        signed_by_caller.append(("X-Security-Token", "caller-token"))
    if "content-hash" in caller_headers:
        digest = hashlib.sha256(body or b"").hexdigest()
        declared = digest if draw(st.booleans()) else "UNSIGNED-PAYLOAD"
        signed_by_caller.append(("X-Sdk-Content-Sha256", declared))
    return Logical(
        method=draw(methods),
        host=draw(hosts),
        segments=tuple(draw(segment_lists)),
        query=draw(query_lists()),
        content_type=draw(content_types),
        body=body,
        sdk_date=draw(moments).strftime(DATE_FORMAT),
        project_id=draw(project_ids),
        security_token=draw(security_tokens),
        signed_by_caller=tuple(signed_by_caller),
        extra_headers=tuple(draw(extra_header_sets)),
    )


encodings = st.builds(
    Encoding,
    path=st.sampled_from(["sdk", "sub-delims", "lower-hex", "raw"]),
    query=st.sampled_from(["params", "quote", "quote-safe", "plus", "raw"]),
    bare_keys=st.booleans(),
)


@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(logical_requests(), encodings)
def test_signed_like_the_official_signer_and_verifiable_from_the_wire(req: Logical, enc: Encoding) -> None:
    check(req, enc)


# ---------------------------------------------------------------- pinned cases


def plain(**changes: Any) -> Logical:
    base = Logical(
        method="GET",
        host="modelarts.cn-north-4.myhuaweicloud.com",
        segments=("v2", "0123456789abcdef0123456789abcdef", "training-job-names"),
        query=(),
        content_type=None,
        body=None,
        sdk_date="20240102T030405Z",
        project_id="0123456789abcdef0123456789abcdef",
        security_token=None,
        signed_by_caller=(),
        extra_headers=(("User-Agent", "pulumi-modelarts/0.1"),),
    )
    return replace(base, **changes)


def sent_query(req: Logical, enc: Encoding) -> str:
    auth = AkSkAuth(AK, SK, security_token=req.security_token, project_id=req.project_id)
    sent = next(auth.sync_auth_flow(httpx_request(req, enc)))
    return sent.url.query.decode("ascii")


def test_a_space_in_params_is_signed_and_sent_as_a_space() -> None:
    # httpx encodes params= with "+" for a space; it was signed as a literal "+".
    req = plain(query=(("job_name", "nightly run"), ("workspace_id", "0")))
    enc = Encoding(path="sdk", query="params", bare_keys=False)
    check(req, enc)
    assert sent_query(req, enc) == "job_name=nightly%20run&workspace_id=0"


@pytest.mark.parametrize("query", ["plus", "raw", "quote"])
def test_plus_and_encoded_plus_in_a_query_keep_their_meaning(query: str) -> None:
    # "a+b" written by quote_plus means "a b"; "%2B" means "+"; "%252B" means the three characters "%2B".
    req = plain(query=(("q", "a b"), ("p", "1+2"), ("e", "%2B")))
    enc = Encoding(path="sdk", query=query, bare_keys=False)
    check(req, enc)
    assert sent_query(req, enc) == "q=a%20b&p=1%2B2&e=%252B"


def test_reserved_characters_and_bare_keys_are_sent_encoded_in_the_callers_order() -> None:
    req = plain(query=(("filter", "a:b,c;d@e!$'()*/?"), ("flag", ""), ("flag", "x=y"), ("", "")))
    enc = Encoding(path="sdk", query="quote-safe", bare_keys=True)
    check(req, enc)
    assert sent_query(req, enc) == "filter=a%3Ab%2Cc%3Bd%40e%21%24%27%28%29%2A%2F%3F&flag=&flag=x%3Dy&="


def test_a_query_already_in_signed_form_is_left_alone() -> None:
    request = httpx.Request("GET", "https://e.com/v2/p?b=x%20y&a=&a=%2B~")
    url = request.url
    signed = next(AkSkAuth(AK, SK).sync_auth_flow(request))
    assert signed.url is url


def test_a_query_that_is_not_utf8_is_refused_rather_than_rewritten() -> None:
    with pytest.raises(ValueError, match="not UTF-8") as refused:
        next(AkSkAuth(AK, SK).sync_auth_flow(httpx.Request("GET", "https://e.com/v2/p?name=%FF")))
    assert SK not in str(refused.value)


def test_query_pairs_reads_plus_as_a_space_and_wire_query_encodes_every_reserved_character() -> None:
    assert query_pairs("a+b=c+d&e=%2B&f&=g&&h=%FF") == [
        ("a b", "c d"), ("e", "+"), ("f", ""), ("", "g"), ("h", "\ufffd"),
    ]  # fmt: skip
    assert wire_query([("b", "x y"), ("a", "+&=#%/?:@~")]) == "b=x%20y&a=%2B%26%3D%23%25%2F%3F%3A%40~"
    assert canonical_query([("b", "x y"), ("a", "2"), ("a", "1")]) == "a=1&a=2&b=x%20y"


@pytest.mark.parametrize(
    ("method", "content_type", "body"),
    [("GET", None, None), ("POST", "text/plain; charset=utf-8", "训练 ü +".encode())],
)
def test_a_real_server_verifies_what_arrived_with_the_official_signer(
    method: str, content_type: str | None, body: bytes | None
) -> None:
    params = [("job_name", "nightly run"), ("q", "a+b"), ("q", ""), ("filter", "x:y;z"), ("名", "值")]
    headers = {"Content-Type": content_type} if content_type else {}
    auth = AkSkAuth(AK, SK, security_token="tok-12345678", project_id="p-1")
    with ScriptedServer() as server, httpx.Client(auth=auth) as client:
        server.queue(Reply(status=204))
        client.request(
            method, f"{server.url}/v2/p-1/a%20b/:@!$'()*", params=params, headers=headers, content=body
        )
    [arrived] = server.requests
    assert arrived.query == "job_name=nightly%20run&q=a%2Bb&q=&filter=x%3Ay%3Bz&%E5%90%8D=%E5%80%BC"
    parts = parse_authorization(arrived.headers["authorization"])
    assert parts is not None
    received = SdkRequest(
        method=arrived.method,
        schema="http",
        host=arrived.headers["host"],
        resource_path=arrived.path,
        query_params=server_query_pairs(arrived.query),
        header_params={name: arrived.headers[name] for name in parts.signed_headers},
        body=arrived.body,
    )
    assert received.query_params == params
    Signer(BasicCredentials(AK, SK)).sign(received)
    assert received.header_params["Authorization"] == arrived.headers["authorization"]
