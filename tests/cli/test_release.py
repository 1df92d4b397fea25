"""The release files (`scripts/release`), proven from dist/ alone through the real CLI against the emulator.

`scripts/release` runs once for the module, into a temporary directory. The stacks then run in fresh
virtualenvs that hold only what a user installs from dist/ (no editable install, nothing of the checkout on
PATH but the Pulumi CLI and its language host from .tools/bin), each with a private PULUMI_HOME:

- the `pulumi-modelarts` wheel beside the newest Pulumi SDK it allows: the dynamic provider's up, an empty
  preview and destroy;
- the native SDK's wheel with automatic plugin acquisition on and no `plugins:` block: the engine downloads
  the plugin archive from a loopback HTTP server serving dist/ (PULUMI_PLUGIN_DOWNLOAD_URL_OVERRIDES redirects
  the SDK's github:// server there), its launcher installs the provider on first start from the archive's own
  wheels, with the package index unreachable and another pulumi_modelarts on PYTHONPATH, and the stack goes
  up, previews empty and is destroyed;
- the same with the archive installed by `pulumi plugin install resource modelarts <v> --file <archive>` and
  acquisition off, offline too; and a first start with no bundled wheel for the local Python, which says so
  and installs from what pip is configured with;
- a YAML program (no SDK, no virtualenv) whose resource options name the plugin's version and server: the
  engine downloads the archive the same way.

No command prints a `warning:` line. Needs the package index (the virtualenvs install from it; the plugin's
first start does not) and npm (scripts/release packs the Node.js SDK). scripts/release downloads the archives'
wheels once per constraints.txt (its wheel cache), later runs take them from there.
"""

from __future__ import annotations

import functools
import hashlib
import http.server
import io
import json
import os
import platform
import re
import shutil
import socket
import subprocess
import sys
import tarfile
import threading
import zipfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml  # type: ignore[import-untyped]  # PyYAML: a dependency of the pulumi SDK, no stubs here
from packaging.requirements import Requirement
from packaging.tags import Tag, compatible_tags, cpython_tags, mac_platforms
from packaging.utils import canonicalize_name, parse_wheel_filename
from packaging.version import Version

from modelarts_emulator.testing import EmulatorProcess

from ..support import emulator_env
from .front_ends import DYNAMIC, NATIVE, YAML, FrontEnd
from .languages import schema_args, yaml_program
from .pulumi_cli import PASSPHRASE, REPO, TOOLS_BIN, Stack, pulumi_argv, write_project
from .story import POLL_ENV, PROGRAM, StoryStack, job_args

pytestmark = [
    pytest.mark.cli,
    pytest.mark.skipif(
        shutil.which("npm") is None, reason="scripts/release needs npm to pack the Node.js SDK"
    ),
]

VERSION = re.search(r'^version = "([^"]+)"', (REPO / "pyproject.toml").read_text(), re.M).group(1)  # type: ignore[union-attr]
ARCHIVE_PLATFORMS = ("linux-amd64", "linux-arm64", "darwin-amd64", "darwin-arm64")
# The CPython versions every archive carries wheels for (scripts/release), and the oldest platforms it serves.
ARCHIVE_PYTHONS = ((3, 10), (3, 11), (3, 12), (3, 13), (3, 14))
ARCHIVE_PLATFORM_TAGS = {
    "linux-amd64": [
        "manylinux_2_17_x86_64",
        "manylinux2014_x86_64",
        "manylinux2010_x86_64",
        "manylinux1_x86_64",
    ],
    "linux-arm64": ["manylinux_2_17_aarch64", "manylinux2014_aarch64"],
    "darwin-amd64": list(mac_platforms((11, 0), "x86_64")),
    "darwin-arm64": list(mac_platforms((11, 0), "arm64")),
}
# Only system directories besides .tools/bin and the virtualenv: no checkout .venv, no pyenv shims.
SYSTEM_PATH = ["/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin"]


def archive_name(platform_: str) -> str:
    return f"pulumi-resource-modelarts-v{VERSION}-{platform_}.tar.gz"


def this_platform() -> str:
    system = {"Linux": "linux", "Darwin": "darwin"}[platform.system()]
    arch = {"x86_64": "amd64", "amd64": "amd64", "aarch64": "arm64", "arm64": "arm64"}[platform.machine()]
    return f"{system}-{arch}"


def _run(*args: str | Path, timeout: float = 900, **kwargs: object) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(
        [str(a) for a in args],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
        **kwargs,  # type: ignore[call-overload]
    )
    assert proc.returncode == 0, f"{args} exited {proc.returncode}\n{proc.stdout}\n{proc.stderr}"
    return proc  # type: ignore[no-any-return]


@pytest.fixture(scope="session")
def dist(built_once: BuiltOnce) -> Path:
    """scripts/release's files, built once for the run (whichever worker asks first)."""
    return built_once("release-dist", lambda out: _run("bash", REPO / "scripts" / "release", "--out", out))


@dataclass(frozen=True)
class Venv:
    root: Path

    @property
    def bin(self) -> Path:
        return self.root / "bin"

    @property
    def python(self) -> Path:
        return self.bin / "python"

    def pip(self, *args: str | Path) -> str:
        return _run(self.python, "-m", "pip", "--disable-pip-version-check", *args).stdout

    def version_of(self, distribution: str) -> Version:
        return Version(
            _run(
                self.python, "-c", f"import importlib.metadata as m; print(m.version({distribution!r}))"
            ).stdout.strip()
        )


# The session's shared builds (tests/conftest.py).
BuiltOnce = Callable[[str, Callable[[Path], object]], Path]


def _venv(root: Path, *requirements: str | Path) -> Venv:
    _run(sys.executable, "-m", "venv", root)
    venv = Venv(root)
    # No bytecode compiled at install (most of an install's CPU): the processes compile what they import.
    venv.pip("install", "--quiet", "--no-compile", "--upgrade", *requirements)
    return venv


def newest_allowed_pulumi(wheel: Path) -> Version:
    """The newest pulumi on the package index that the wheel's requirement allows."""
    with zipfile.ZipFile(wheel) as zf:
        metadata = next(zf.read(n).decode() for n in zf.namelist() if n.endswith(".dist-info/METADATA"))
    requirement = next(
        Requirement(line.split(":", 1)[1].strip())
        for line in metadata.splitlines()
        if line.startswith("Requires-Dist:") and re.match(r"pulumi\b(?![-_])", line.split(":", 1)[1].strip())
    )
    listing = _run(
        sys.executable, "-m", "pip", "index", "versions", "pulumi", "--disable-pip-version-check"
    ).stdout
    available = re.search(r"Available versions: (.*)", listing)
    assert available, listing
    versions = [Version(v.strip()) for v in available.group(1).split(",")]
    return max(v for v in versions if requirement.specifier.contains(v))


@pytest.fixture(scope="session")
def dynamic_venv(dist: Path, built_once: BuiltOnce) -> Venv:
    wheel = dist / f"pulumi_modelarts-{VERSION}-py3-none-any.whl"
    venv = Venv(built_once("release-venv-dynamic", lambda root: _venv(root, wheel, "pulumi")))
    assert venv.version_of("pulumi") == newest_allowed_pulumi(wheel)
    return venv


@pytest.fixture(scope="session")
def native_venv(dist: Path, built_once: BuiltOnce) -> Venv:
    wheel = dist / f"pulumi_modelarts_native-{VERSION}-py3-none-any.whl"
    venv = Venv(built_once("release-venv-native", lambda root: _venv(root, wheel, "pulumi")))
    # A user's environment for a native program: the SDK, no provider package (and so no plugin on PATH).
    assert not (venv.bin / "pulumi-resource-modelarts").exists()
    return venv


class DistServer:
    """dist/ over HTTP on a loopback port, recording the paths asked for."""

    def __init__(self, directory: Path) -> None:
        self.requested: list[str] = []
        requested = self.requested

        class Handler(http.server.SimpleHTTPRequestHandler):
            def log_message(self, format: str, *args: object) -> None:
                requested.append(self.path)

        self.server = http.server.ThreadingHTTPServer(
            ("127.0.0.1", 0), functools.partial(Handler, directory=str(directory))
        )
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def dist_server(dist: Path) -> Iterator[DistServer]:
    server = DistServer(dist)
    yield server
    server.close()


def user_env(tmp_path: Path, venv: Venv, emu: EmulatorProcess, **extra: str) -> dict[str, str]:
    """A user's shell: the CLI, the virtualenv and the system on PATH; a private backend and Pulumi home."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("HW_", "HUAWEICLOUD_SDK_", "PULUMI_", "PYTHON", "VIRTUAL_ENV"))
    }
    env.update(
        PATH=os.pathsep.join([str(TOOLS_BIN), str(venv.bin), *SYSTEM_PATH]),
        PULUMI_HOME=str(tmp_path / "home"),
        PULUMI_BACKEND_URL=f"file://{tmp_path / 'backend'}",
        PULUMI_CONFIG_PASSPHRASE=PASSPHRASE,
        PULUMI_SKIP_UPDATE_CHECK="true",
        NO_COLOR="1",
        **emulator_env(emu),
        **POLL_ENV,
        **extra,
    )
    (tmp_path / "backend").mkdir(exist_ok=True)
    return env


def offline_pip() -> dict[str, str]:
    """pip with no package index: a loopback port nothing listens on, no configuration, no other wheels."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]  # closed when the block ends: connections to it are refused
    return {
        "PIP_INDEX_URL": f"http://127.0.0.1:{port}/simple/",
        "PIP_CONFIG_FILE": os.devnull,
        "PIP_FIND_LINKS": "",
        "PIP_RETRIES": "0",
    }


def another_pulumi_modelarts(tmp_path: Path) -> str:
    """A directory for PYTHONPATH holding another pulumi_modelarts (as a checkout or a monorepo would), which
    pip would count as installed and Python would import; neither may happen to the plugin."""
    root = tmp_path / "elsewhere"
    (root / "pulumi_modelarts").mkdir(parents=True)
    (root / "pulumi_modelarts" / "__init__.py").write_text('raise ImportError("not the plugin\'s package")\n')
    info = root / f"pulumi_modelarts-{VERSION}.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: pulumi-modelarts\nVersion: {VERSION}\n")
    (info / "RECORD").write_text("")
    return str(root)


def install_plugin_archive(dist: Path, env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    """`pulumi plugin install resource modelarts <version> --file <archive>`, as a user would."""
    archive = dist / archive_name(this_platform())
    return _run(
        *pulumi_argv("plugin", "install", "resource", "modelarts", VERSION, "--file", str(archive)),
        env=env,
        cwd=cwd,
    )


def no_warning(*procs: subprocess.CompletedProcess[str]) -> None:
    for proc in procs:
        text = proc.stdout + proc.stderr
        lines = [line for line in text.splitlines() if "warning:" in line.lower()]
        assert not lines, text


def up_preview_destroy(
    tmp_path: Path, env: dict[str, str], front_end: FrontEnd
) -> list[subprocess.CompletedProcess[str]]:
    """The one-job story: up (waiting until Running), an empty preview, destroy; the commands' results."""
    workdir = tmp_path / "project"
    write_project(workdir, "release-story", front_end.program(PROGRAM))  # no plugins: block
    stack = Stack(workdir, tmp_path, env=env).init()
    story = StoryStack(stack, workdir, front_end)
    story.declare({"train": job_args(wait_for="running")})
    up = stack.up()
    assert stack.outputs()["train"]["phase"] == "Running"
    assert [r["type"] for r in stack.export()["deployment"]["resources"] if front_end.is_job(r)] == [
        front_end.type_token
    ]
    preview = stack.preview("--expect-no-changes")
    destroy = stack.destroy()
    assert stack.export()["deployment"].get("resources", []) == []
    return [up, preview, destroy]


def test_dist_holds_every_release_file_with_checksums(dist: Path) -> None:
    expected = {
        f"pulumi_modelarts-{VERSION}-py3-none-any.whl",
        f"pulumi_modelarts-{VERSION}.tar.gz",
        f"pulumi_modelarts_native-{VERSION}-py3-none-any.whl",
        f"pulumi-modelarts-modelarts-{VERSION}.tgz",
        f"pulumi-modelarts-policy-{VERSION}.tar.gz",
        *(archive_name(p) for p in ARCHIVE_PLATFORMS),
    }
    assert {p.name for p in dist.iterdir()} == expected | {"SHA256SUMS"}
    sums: dict[str, str] = {}
    for line in (dist / "SHA256SUMS").read_text().splitlines():
        digest, name = line.split("  ", 1)
        sums[name] = digest
    assert set(sums) == expected
    for name, digest in sums.items():
        assert hashlib.sha256((dist / name).read_bytes()).hexdigest() == digest, name

    # The policy pack: the directory a user names in --policy-pack, its launcher executable.
    with tarfile.open(dist / f"pulumi-modelarts-policy-{VERSION}.tar.gz") as pack:
        members = {m.name: m for m in pack.getmembers()}
        shipped = [p.name for p in (REPO / "policy").iterdir() if p.name not in ("venv", "__pycache__")]
        assert set(members) == {"policy", *(f"policy/{name}" for name in shipped)}, sorted(members)
        assert members["policy/pulumi-analyzer-modelarts"].mode & 0o111 == 0o111
        settings = pack.extractfile("policy/PulumiPolicy.yaml") or io.BytesIO()
        assert "virtualenv: venv" in settings.read().decode()

    package_wheel = (dist / f"pulumi_modelarts-{VERSION}-py3-none-any.whl").read_bytes()
    launchers: set[bytes] = set()
    pure_wheels: dict[str, set[str]] = {}
    for platform_ in ARCHIVE_PLATFORMS:
        with tarfile.open(dist / archive_name(platform_)) as archive:
            members = {m.name: m for m in archive.getmembers()}
            wheels = {n.removeprefix("wheels/") for n in members if n.startswith("wheels/")}
            assert set(members) == {
                "pulumi-resource-modelarts",
                f"pulumi_modelarts-{VERSION}-py3-none-any.whl",
                "wheels",
                *(f"wheels/{w}" for w in wheels),
            }, platform_
            assert members["pulumi-resource-modelarts"].mode & 0o111 == 0o111
            launcher = archive.extractfile("pulumi-resource-modelarts")
            assert launcher is not None
            launchers.add(launcher.read())
            wheel = archive.extractfile(f"pulumi_modelarts-{VERSION}-py3-none-any.whl")
            assert wheel is not None and wheel.read() == package_wheel, platform_
        assert_a_complete_set_of_wheels(platform_, wheels)
        pure_wheels[platform_] = {w for w in wheels if w.endswith("-none-any.whl")}
    # The same launcher, package and pure-Python wheels everywhere; compiled wheels are each platform's own.
    assert len(launchers) == 1
    assert all(pure == pure_wheels["linux-amd64"] for pure in pure_wheels.values()), pure_wheels
    assert len({sums[archive_name(p)] for p in ARCHIVE_PLATFORMS}) == len(ARCHIVE_PLATFORMS)

    with tarfile.open(dist / f"pulumi-modelarts-modelarts-{VERSION}.tgz") as npm:
        names = set(npm.getnames())
        assert {
            "package/index.js",
            "package/index.d.ts",
            "package/trainingJob.js",
            "package/package.json",
        } <= names
        assert not any(n.endswith(".ts") and not n.endswith(".d.ts") for n in names)  # compiled, not sources
        manifest = npm.extractfile("package/package.json")
        assert manifest is not None
        package = json.loads(manifest.read())
    assert package["name"] == "@pulumi-modelarts/modelarts" and package["version"] == VERSION
    assert package["pulumi"] == {
        "resource": True,
        "name": "modelarts",
        "version": VERSION,
        "server": "github://api.github.com/pulumi-modelarts",
    }


def assert_a_complete_set_of_wheels(platform_: str, wheels: set[str]) -> None:
    """Every distribution in an archive has a wheel for each supported CPython on that platform, at the
    version constraints.txt pins, and no wheel serves only another platform."""
    pins = {
        canonicalize_name(Requirement(line).name): Version(line.split("==", 1)[1])
        for line in (REPO / "constraints.txt").read_text().splitlines()
        if "==" in line and not line.startswith("#")
    }
    parsed = [parse_wheel_filename(w) for w in wheels]
    for name, version, _build, tags in parsed:
        assert any(t.platform == "any" or t.platform in ARCHIVE_PLATFORM_TAGS[platform_] for t in tags), (
            platform_,
            name,
            tags,
        )
        if name in pins:
            assert version == pins[name], (platform_, name, version)
    names = {name for name, *_ in parsed}
    assert {"pulumi", "httpx", "pydantic", "pydantic-core", "grpcio"} <= names, platform_
    # What constraints.txt (frozen from the 3.11 development environment) cannot pin: the pip the launcher
    # runs (scripts/release pins it) and what a dependency needs only on 3.10.
    assert names - set(pins) <= {"pip", "exceptiongroup"}, platform_
    for python in ARCHIVE_PYTHONS:
        supported: set[Tag] = {
            *cpython_tags(python, platforms=ARCHIVE_PLATFORM_TAGS[platform_]),
            *compatible_tags(python, f"cp{python[0]}{python[1]}", ARCHIVE_PLATFORM_TAGS[platform_]),
        }
        lacking = names - {name for name, _, _, tags in parsed if tags & supported}
        assert not lacking, (platform_, python, lacking)


def test_release_refuses_versions_that_disagree(tmp_path: Path) -> None:
    # The check reads only these files and comes before any build.
    for rel in (
        "scripts/release",
        "pyproject.toml",
        "CHANGELOG.md",
        "provider/pulumi_modelarts/generated/schema.json",
        "sdk/python/pyproject.toml",
        "sdk/python/pulumi_modelarts_native/pulumi-plugin.json",
        "sdk/nodejs/package.json",
        "sdk/go/modelarts/pulumi-plugin.json",
    ):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(REPO / rel, tmp_path / rel)
    package_json = tmp_path / "sdk/nodejs/package.json"
    package = json.loads(package_json.read_text())
    package["version"] = "9.9.9"
    package_json.write_text(json.dumps(package))
    changelog = tmp_path / "CHANGELOG.md"
    changelog.write_text(changelog.read_text().replace(f"## [{VERSION}]", "## [Unreleased]", 1))

    proc = subprocess.run(
        ["bash", str(tmp_path / "scripts/release"), "--out", str(tmp_path / "dist")],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 1, proc.stderr
    assert f"the version is {VERSION} in pyproject.toml but:" in proc.stderr
    assert "sdk/nodejs/package.json version: 9.9.9" in proc.stderr
    # The entry below "Unreleased" is the top one: 0.2.0's renamed, the one before it.
    assert re.search(r"CHANGELOG.md top entry: (?!Unreleased)\d+\.\d+\.\d+", proc.stderr), proc.stderr
    assert "sdk/go/modelarts/pulumi-plugin.json" not in proc.stderr  # that one agrees
    assert not (tmp_path / "dist").exists()


def test_the_package_wheel_with_the_newest_pulumi_runs_the_dynamic_story(
    tmp_path: Path, emulator: EmulatorProcess, dynamic_venv: Venv
) -> None:
    # Acquisition stays on, as for any user: the package must not make the engine look for a plugin.
    env = user_env(tmp_path, dynamic_venv, emulator)
    no_warning(*up_preview_destroy(tmp_path, env, DYNAMIC))
    assert not (tmp_path / "home" / "plugins").exists() or not list(
        (tmp_path / "home" / "plugins").glob("resource-modelarts*")
    )


def test_the_engine_downloads_and_installs_the_plugin_for_the_native_sdk(
    tmp_path: Path, emulator: EmulatorProcess, native_venv: Venv, dist_server: DistServer
) -> None:
    # The SDK asks for plugin modelarts <v> from github://api.github.com/pulumi-modelarts; the override sends
    # the engine to the loopback server instead of GitHub.
    override = rf"^github://api\.github\.com/pulumi-modelarts={dist_server.url}"
    # The first start needs no package index (the archive carries the wheels; pip finds no other source, so a
    # fallback to the index would fail the up), and a pulumi_modelarts on the user's PYTHONPATH replaces the
    # bundled one neither in the installation nor at run time.
    env = user_env(
        tmp_path,
        native_venv,
        emulator,
        PULUMI_PLUGIN_DOWNLOAD_URL_OVERRIDES=override,
        PYTHONPATH=another_pulumi_modelarts(tmp_path),
        **offline_pip(),
    )
    no_warning(*up_preview_destroy(tmp_path, env, NATIVE))
    assert f"/{archive_name(this_platform())}" in dist_server.requested
    plugin_dir = tmp_path / "home" / "plugins" / f"resource-modelarts-v{VERSION}"
    assert (plugin_dir / "pulumi-resource-modelarts").is_file()
    assert (
        plugin_dir / "python-env" / ".installed"
    ).read_text().strip() == f"pulumi_modelarts-{VERSION}-py3-none-any.whl"


def test_a_plugin_installed_from_the_archive_file_serves_the_native_sdk(
    tmp_path: Path, emulator: EmulatorProcess, native_venv: Venv, dist: Path
) -> None:
    env = user_env(
        tmp_path, native_venv, emulator, PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION="true", **offline_pip()
    )
    install = install_plugin_archive(dist, env, tmp_path)
    listed = _run(*pulumi_argv("plugin", "ls", "--json"), env=env).stdout
    assert {"name": "modelarts", "kind": "resource", "version": VERSION}.items() <= next(
        p for p in json.loads(listed) if p["name"] == "modelarts"
    ).items()
    # Two first starts at once: one installs the provider's environment, the other waits for it; both serve.
    launcher = tmp_path / "home" / "plugins" / f"resource-modelarts-v{VERSION}" / "pulumi-resource-modelarts"
    starts = [
        subprocess.Popen(
            [str(launcher), "127.0.0.1:1"],  # an engine address; nothing calls it before the engine connects
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(2)
    ]
    try:
        ports = [start.stdout.readline() if start.stdout else "" for start in starts]
    finally:
        for start in starts:
            start.terminate()
    errors = [start.communicate(timeout=60)[1] for start in starts]
    assert all(re.fullmatch(r"\d+\n", port) for port in ports), (ports, errors)
    assert sum("first start: installing" in e for e in errors) == 1, errors
    assert sum("waiting for another start" in e for e in errors) == 1, errors
    assert not any("no bundled wheel fits" in e for e in errors), errors
    # The stack then runs on the installed plugin (later starts).
    no_warning(install, *up_preview_destroy(tmp_path, env, NATIVE))


def test_a_yaml_program_names_the_plugin_and_the_engine_downloads_it(
    tmp_path: Path, emulator: EmulatorProcess, dist_server: DistServer
) -> None:
    # No SDK names the plugin for YAML: the program's options do (docs/installation-configuration.md#yaml).
    override = rf"^github://api\.github\.com/pulumi-modelarts={dist_server.url}"
    no_venv = Venv(tmp_path / "no-venv")  # a YAML user needs no Python environment of their own
    no_venv.bin.mkdir(parents=True)
    env = user_env(tmp_path, no_venv, emulator, PULUMI_PLUGIN_DOWNLOAD_URL_OVERRIDES=override)
    program = yaml.safe_load(yaml_program({"train": schema_args(job_args(wait_for="running"))}, {}))
    program["resources"]["train"]["options"] = {
        "version": VERSION,
        "pluginDownloadURL": "github://api.github.com/pulumi-modelarts",
    }
    workdir = tmp_path / "project"
    workdir.mkdir()
    (workdir / "Pulumi.yaml").write_text(
        yaml.safe_dump({"name": "release-yaml", "runtime": "yaml", **program})
    )
    stack = Stack(workdir, tmp_path, env=env).init()
    up = stack.up()
    [resource] = stack.resources(YAML.type_token)
    assert stack.outputs()["train"] == {
        "id": resource["id"],
        "name": resource["outputs"]["name"],
        "phase": "Running",
    }
    no_warning(up, stack.preview("--expect-no-changes"), stack.destroy())
    assert f"/{archive_name(this_platform())}" in dist_server.requested
    assert (
        tmp_path / "home" / "plugins" / f"resource-modelarts-v{VERSION}" / "pulumi-resource-modelarts"
    ).is_file()
    assert stack.resources(YAML.type_token) == []


def test_a_plugin_without_a_usable_python_says_what_to_do(
    tmp_path: Path, emulator: EmulatorProcess, native_venv: Venv, dist: Path
) -> None:
    missing = tmp_path / "no-such-python3"
    env = user_env(
        tmp_path,
        native_venv,
        emulator,
        PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION="true",
        PULUMI_MODELARTS_PYTHON=str(missing),
    )
    install_plugin_archive(dist, env, tmp_path)
    workdir = tmp_path / "project"
    write_project(workdir, "release-story", NATIVE.program(PROGRAM))
    stack = Stack(workdir, tmp_path, env=env).init()
    StoryStack(stack, workdir, NATIVE).declare({"train": job_args()})
    preview = stack.preview(check=False)
    assert preview.returncode != 0
    assert f"PULUMI_MODELARTS_PYTHON={missing}: no such program" in preview.stdout + preview.stderr
    plugin_dir = tmp_path / "home" / "plugins" / f"resource-modelarts-v{VERSION}"
    assert not (plugin_dir / "python-env").exists()
    assert not (plugin_dir / ".install-lock").exists()


def test_a_first_start_with_no_bundled_wheel_for_the_local_python_says_so_and_uses_pip_s_configuration(
    tmp_path: Path, emulator: EmulatorProcess, native_venv: Venv, dist: Path
) -> None:
    # As with a Python the archive has no wheels for (3.15, PyPy, musl): this Python's compiled wheels taken
    # out of the installed plugin.
    env = user_env(
        tmp_path, native_venv, emulator, PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION="true", **offline_pip()
    )
    install_plugin_archive(dist, env, tmp_path)
    plugin_dir = tmp_path / "home" / "plugins" / f"resource-modelarts-v{VERSION}"
    major, minor = _run(native_venv.python, "-c", "import sys; print(*sys.version_info[:2])").stdout.split()
    configured = tmp_path / "configured-wheels"
    configured.mkdir()
    for wheel in (plugin_dir / "wheels").glob(f"*-cp{major}{minor}-*.whl"):
        wheel.rename(configured / wheel.name)
    assert list(configured.iterdir())
    # With the package index unreachable, the preview fails and says why, and the next start begins afresh.
    workdir = tmp_path / "project"
    write_project(workdir, "release-story", NATIVE.program(PROGRAM))
    stack = Stack(workdir, tmp_path, env=env).init()
    StoryStack(stack, workdir, NATIVE).declare({"train": job_args()})
    preview = stack.preview(check=False)
    output = preview.stdout + preview.stderr
    assert preview.returncode != 0
    assert f"no bundled wheel fits Python {major}.{minor}." in output, output
    assert "this first start needs the index pip is configured for" in output, output
    assert not (plugin_dir / "python-env").exists()
    assert not (plugin_dir / ".install-lock").exists()
    # With pip configured to find the missing wheels (no index, a directory), the next start says where the
    # dependencies come from and installs them from there and the bundled wheels. (The engine shows a plugin's
    # stderr only when it fails, so the start is watched directly.)
    env.update(PIP_NO_INDEX="1", PIP_FIND_LINKS=str(configured))
    start = subprocess.Popen(
        [str(plugin_dir / "pulumi-resource-modelarts"), "127.0.0.1:1"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        port = start.stdout.readline() if start.stdout else ""
    finally:
        start.terminate()
    errors = start.communicate(timeout=60)[1]
    assert re.fullmatch(r"\d+\n", port), errors
    assert f"no bundled wheel fits Python {major}.{minor}." in errors, errors
    assert "installing the dependencies from the package index pip is configured for" in errors, errors
    assert (plugin_dir / "python-env" / ".installed").is_file()
