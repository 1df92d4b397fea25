"""The release files (`scripts/release`), proven from dist/ alone through the real CLI against the emulator.

`scripts/release` runs once for the module, into a temporary directory. The stacks then run in fresh
virtualenvs that hold only what a user installs from dist/ (no editable install, nothing of the checkout on
PATH but the Pulumi CLI and its language host from .tools/bin), each with a private PULUMI_HOME:

- the `pulumi-modelarts` wheel beside the newest Pulumi SDK it allows: the dynamic provider's up, an empty
  preview and destroy;
- the native SDK's wheel with automatic plugin acquisition on and no `plugins:` block: the engine downloads
  the plugin archive from a loopback HTTP server serving dist/ (PULUMI_PLUGIN_DOWNLOAD_URL_OVERRIDES redirects
  the SDK's github:// server there), its launcher installs the provider on first start, and the stack goes up,
  previews empty and is destroyed;
- the same with the archive installed by `pulumi plugin install resource modelarts <v> --file <archive>` and
  acquisition off.

No command prints a `warning:` line. Needs the package index (the virtualenvs and the plugin's first start
install from it) and npm (scripts/release packs the Node.js SDK).
"""

from __future__ import annotations

import functools
import hashlib
import http.server
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tarfile
import threading
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.version import Version

from modelarts_emulator.testing import EmulatorProcess

from ..support import emulator_env
from .front_ends import DYNAMIC, NATIVE, FrontEnd
from .pulumi_cli import PASSPHRASE, REPO, TOOLS_BIN, Stack, write_project
from .story import POLL_ENV, PROGRAM, StoryStack, job_args

pytestmark = [
    pytest.mark.cli,
    pytest.mark.skipif(
        shutil.which("npm") is None, reason="scripts/release needs npm to pack the Node.js SDK"
    ),
]

VERSION = re.search(r'^version = "([^"]+)"', (REPO / "pyproject.toml").read_text(), re.M).group(1)  # type: ignore[union-attr]
ARCHIVE_PLATFORMS = ("linux-amd64", "linux-arm64", "darwin-amd64", "darwin-arm64")
# Only system directories besides .tools/bin and the virtualenv: no checkout .venv, no pyenv shims.
PULUMI = shutil.which("pulumi", path=str(TOOLS_BIN)) or "pulumi"  # the CLI set-up built, not one on PATH
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


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("release") / "dist"
    _run("bash", REPO / "scripts" / "release", "--out", out)
    return out


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


def _venv(root: Path, *requirements: str | Path) -> Venv:
    _run(sys.executable, "-m", "venv", root)
    venv = Venv(root)
    venv.pip("install", "--quiet", "--upgrade", *requirements)
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


@pytest.fixture(scope="module")
def dynamic_venv(dist: Path, tmp_path_factory: pytest.TempPathFactory) -> Venv:
    wheel = dist / f"pulumi_modelarts-{VERSION}-py3-none-any.whl"
    venv = _venv(tmp_path_factory.mktemp("venv") / "dynamic", wheel, "pulumi")
    assert venv.version_of("pulumi") == newest_allowed_pulumi(wheel)
    return venv


@pytest.fixture(scope="module")
def native_venv(dist: Path, tmp_path_factory: pytest.TempPathFactory) -> Venv:
    wheel = dist / f"pulumi_modelarts_native-{VERSION}-py3-none-any.whl"
    venv = _venv(tmp_path_factory.mktemp("venv") / "native", wheel, "pulumi")
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


def install_plugin_archive(dist: Path, env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    """`pulumi plugin install resource modelarts <version> --file <archive>`, as a user would."""
    archive = dist / archive_name(this_platform())
    return _run(
        PULUMI, "plugin", "install", "resource", "modelarts", VERSION, "--file", archive, env=env, cwd=cwd
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

    with tarfile.open(dist / archive_name("linux-amd64")) as archive:
        members = {m.name: m for m in archive.getmembers()}
        assert set(members) == {"pulumi-resource-modelarts", f"pulumi_modelarts-{VERSION}-py3-none-any.whl"}
        assert members["pulumi-resource-modelarts"].mode & 0o111 == 0o111
        wheel = archive.extractfile(f"pulumi_modelarts-{VERSION}-py3-none-any.whl")
        assert (
            wheel is not None
            and wheel.read() == (dist / f"pulumi_modelarts-{VERSION}-py3-none-any.whl").read_bytes()
        )
    # A pure-Python launcher: the same files serve every platform.
    assert len({sums[archive_name(p)] for p in ARCHIVE_PLATFORMS}) == 1

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


def test_release_refuses_versions_that_disagree(tmp_path: Path) -> None:
    # The check reads only these files and comes before any build.
    for rel in (
        "scripts/release",
        "pyproject.toml",
        "CHANGELOG.md",
        "provider/pulumi_modelarts/schema.json",
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
    assert "CHANGELOG.md top entry: Unreleased" in proc.stderr
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
    env = user_env(tmp_path, native_venv, emulator, PULUMI_PLUGIN_DOWNLOAD_URL_OVERRIDES=override)
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
    env = user_env(tmp_path, native_venv, emulator, PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION="true")
    install = install_plugin_archive(dist, env, tmp_path)
    listed = _run(PULUMI, "plugin", "ls", "--json", env=env).stdout
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
    # The stack then runs on the installed plugin (later starts).
    no_warning(install, *up_preview_destroy(tmp_path, env, NATIVE))


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
