"""The story's program in TypeScript, Go and YAML: the first two against the repository's generated SDKs
(sdk/nodejs, sdk/go), YAML with no SDK at all (its language host reads the schema from the plugin).

Every program declares what a jobs.json file declares (story.py), with the schema's property names: the test
side writes jobs with the wire names and ``schema_args`` renames their keys through the generated name map
(pulumi_modelarts.generated.schema_names, what the plugin translates with).

* TypeScript: one ``index.ts`` reads jobs.json and passes each job's arguments to ``new TrainingJob`` as they
  are, the way a program passes configuration it loads. Its ``node_modules`` is a link to one directory per
  test session: the pinned toolchain scripts/sdk installs (scripts/pulumi-build/nodejs, with
  ``@pulumi/pulumi``) plus the SDK compiled from sdk/nodejs by that toolchain's ``tsc``, so nothing is
  installed per stack and the program and the SDK share one ``@pulumi/pulumi``.
* Go: ``main.go`` is generated from the jobs as typed ``TrainingJobArgs{...}`` literals, the code users write,
  so the compiler checks every field name and type the schema gives the Go SDK. Its go.mod requires the SDK's
  module with a ``replace`` to sdk/go; go.mod and go.sum are resolved once per session (offline when the
  module cache has everything) and copied into each stack; Go's build cache serves every compile after the
  first.
* YAML: ``Main.yaml`` (which the YAML host reads before Pulumi.yaml) is generated from the jobs, as Go's
  main.go is: one ``modelarts:index:TrainingJob`` resource per job with the schema's property names, a ``get``
  resource per existing job, and the {id, name, phase} outputs.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import re
import shutil
import subprocess
from collections.abc import Iterator, Mapping
from functools import cache
from pathlib import Path
from typing import Any

import yaml  # type: ignore[import-untyped]  # PyYAML: a dependency of the pulumi SDK, no stubs here

from pulumi_modelarts.frontends.renaming import to_schema
from pulumi_modelarts.generated import schema_names

REPO = Path(__file__).resolve().parents[2]
SCHEMA_FILE = REPO / "provider" / "pulumi_modelarts" / "generated" / "schema.json"
NODE_TOOLCHAIN = REPO / "scripts" / "pulumi-build" / "nodejs"
SDK_NODEJS = REPO / "sdk" / "nodejs"
SDK_GO = REPO / "sdk" / "go"
JOB_TOKEN = "modelarts:index:TrainingJob"

# The Go language host runs `go build` in the program's directory with the user's environment: with the flags
# scripts/sdk compiles sdk/go with, the Go build cache serves the Pulumi Go SDK's packages from that build.
GO_ENV = {"GOTOOLCHAIN": "local", "GOFLAGS": "-trimpath"}

_session_cache: list[Path] = []


def use_session_cache(directory: Path) -> None:
    """Where this test session keeps its node_modules and Go module (tests/cli/conftest.py sets it)."""
    _session_cache[:] = [directory]


def session_cache() -> Path:
    assert _session_cache, "tests/cli/conftest.py sets the session's cache directory"
    return _session_cache[0]


@contextlib.contextmanager
def _locked(cache_dir: Path) -> Iterator[None]:
    """One builder at a time for what the session's processes share (the workers of a parallel run)."""
    cache_dir.mkdir(parents=True, exist_ok=True)
    with open(cache_dir / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


# Resource options a jobs.json entry may carry next to the job's arguments (the Python program's names).
OPTION_KEYS = {"custom_timeouts": "customTimeouts"}


@cache
def schema() -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(SCHEMA_FILE.read_text())
    return loaded


def _object_type(spec: Mapping[str, Any]) -> dict[str, Any] | None:
    ref = spec.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/types/"):
        found: dict[str, Any] = schema()["types"][ref.removeprefix("#/types/")]
        return found
    return None


def schema_args(job: Mapping[str, Any]) -> dict[str, Any]:
    """A jobs.json entry with the schema's property names (imageUrl), renamed from the wire names
    (image_url) through the generated name map the plugin translates with, and the resource options'
    TypeScript/Go names."""
    options = {OPTION_KEYS[k]: v for k, v in job.items() if k in OPTION_KEYS}
    args = to_schema({k: v for k, v in job.items() if k not in OPTION_KEYS}, schema_names.INPUTS)
    return {**args, **options}


# --- TypeScript -------------------------------------------------------------------------------------------

TS_PROGRAM = """\
// Jobs declared in jobs.json (the CLI tests rewrite it between runs), exported as {id, name, phase}.
import * as fs from "fs";
import * as path from "path";
import * as pulumi from "@pulumi/pulumi";
import * as modelarts from "@pulumi-modelarts/modelarts";

interface Declared {
    jobs?: Record<string, modelarts.TrainingJobArgs & { customTimeouts?: pulumi.CustomTimeouts }>;
    existing?: Record<string, string>;
}

const declared: Declared = JSON.parse(fs.readFileSync(path.join(__dirname, "jobs.json"), "utf8"));

function summary(job: modelarts.TrainingJob) {
    return pulumi.output({ id: job.id, name: job.name, phase: job.phase });
}

const outputs: Record<string, pulumi.Output<unknown>> = {};
for (const [name, { customTimeouts, ...args }] of Object.entries(declared.jobs ?? {})) {
    outputs[name] = summary(new modelarts.TrainingJob(name, args, customTimeouts ? { customTimeouts } : {}));
}
for (const [name, id] of Object.entries(declared.existing ?? {})) {
    outputs[name] = summary(modelarts.TrainingJob.get(name, id));
}
export = outputs;
"""

# As examples/native-typescript: @pulumi/pulumi compiles with the project's `typescript` if it finds one (here
# the toolchain's 4.9.5), else with its vendored TypeScript 3.8, which knows targets up to ES2020.
TS_CONFIG = {
    "compilerOptions": {
        "strict": True,
        "target": "ES2020",
        "module": "commonjs",
        "moduleResolution": "node",
        "skipLibCheck": True,
    },
    "files": ["index.ts"],
}


def _run(cmd: list[str], cwd: Path, env: Mapping[str, str] | None = None) -> None:
    result = subprocess.run(
        cmd, cwd=cwd, env={**os.environ, **(env or {})}, capture_output=True, text=True, timeout=600
    )
    if result.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed in {cwd}:\n{result.stdout}\n{result.stderr}")


def node_modules(cache_dir: Path) -> Path:
    """One node_modules for every TypeScript program of the session: the pinned toolchain's packages (links)
    and the SDK compiled from sdk/nodejs, as its package would be published (package.json beside the .js)."""
    target = cache_dir / "node_modules"
    with _locked(cache_dir):
        if not target.is_dir():
            _build_node_modules(cache_dir, target)
    return target


def _build_node_modules(cache_dir: Path, target: Path) -> None:
    # What scripts/sdk and scripts/release compile with, installed by the script they share (one install at a
    # time, whichever process asks first).
    _run(["bash", str(REPO / "scripts" / "node-toolchain")], REPO)
    staging = cache_dir / "node_modules.partial"
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    for entry in (NODE_TOOLCHAIN / "node_modules").iterdir():
        if not entry.name.startswith("."):
            (staging / entry.name).symlink_to(entry)
    package = json.loads((SDK_NODEJS / "package.json").read_text())
    sdk_out = staging.joinpath(*package["name"].split("/"))
    # Compiled as scripts/sdk checks it: a copy of the sources beside the toolchain's node_modules.
    sources = cache_dir / "sdk-nodejs"
    shutil.rmtree(sources, ignore_errors=True)
    shutil.copytree(SDK_NODEJS, sources)
    (sources / "node_modules").symlink_to(NODE_TOOLCHAIN / "node_modules")
    _run(
        [str(NODE_TOOLCHAIN / "node_modules" / ".bin" / "tsc"), "-p", ".", "--outDir", str(sdk_out)], sources
    )
    shutil.copy(SDK_NODEJS / "package.json", sdk_out / "package.json")
    staging.rename(target)


# The program runs as the JavaScript tsc made of it (once per session, type-checked against the SDK's types
# with the project's tsconfig): `typescript: false` spares each pulumi command compiling it again.
TS_RUNTIME = "runtime:\n  name: nodejs\n  options:\n    typescript: false\n"


def write_typescript_project(workdir: Path, modules: Path) -> None:
    (workdir / "index.ts").write_text(TS_PROGRAM)
    (workdir / "tsconfig.json").write_text(json.dumps(TS_CONFIG, indent=4))
    (workdir / "package.json").write_text(json.dumps({"name": workdir.name, "main": "index.js"}))
    (workdir / "node_modules").symlink_to(modules)
    cache_dir = session_cache()
    compiled = cache_dir / "ts-program" / "index.js"
    with _locked(cache_dir):
        if not compiled.is_file():
            tsc = NODE_TOOLCHAIN / "node_modules" / ".bin" / "tsc"
            _run([str(tsc), "-p", ".", "--outDir", str(compiled.parent)], workdir)
    shutil.copy(compiled, workdir / "index.js")


# --- Go ---------------------------------------------------------------------------------------------------


def go_sdk_module() -> str:
    found = re.search(r"^module (\S+)$", (SDK_GO / "go.mod").read_text(), re.MULTILINE)
    assert found, "sdk/go/go.mod names its module"
    return found.group(1)


def go_module(cache_dir: Path) -> Path:
    """A directory with the go.mod and go.sum of a program using the SDK in sdk/go (resolved once)."""
    target = cache_dir / "go-module"
    with _locked(cache_dir):
        if not (target / "go.sum").is_file():
            _build_go_module(cache_dir, target)
    return target


def _build_go_module(cache_dir: Path, target: Path) -> None:
    staging = cache_dir / "go-module.partial"
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    sdk_mod = (SDK_GO / "go.mod").read_text()
    go_version = re.search(r"^go (\S+)$", sdk_mod, re.MULTILINE)
    pulumi_version = re.search(r"github\.com/pulumi/pulumi/sdk/v3 (v\S+)", sdk_mod)
    assert go_version and pulumi_version, sdk_mod
    module = go_sdk_module()
    (staging / "go.mod").write_text(
        f"module example.invalid/story\n\ngo {go_version.group(1)}\n\n"
        f"require (\n\t{module} v0.0.0\n\tgithub.com/pulumi/pulumi/sdk/v3 {pulumi_version.group(1)}\n)\n\n"
        f"replace {module} => {SDK_GO}\n"
    )
    shutil.copy(SDK_GO / "go.sum", staging / "go.sum")
    (staging / "main.go").write_text(go_program())
    env = {"GOTOOLCHAIN": "local", "GOFLAGS": "-mod=mod"}
    try:
        _run(["go", "mod", "tidy"], staging, {**env, "GOPROXY": "off"})
    except RuntimeError:  # a module the cache lacks: from the module proxy
        _run(["go", "mod", "tidy"], staging, env)
    # Warm the build cache with the SDK and the Pulumi Go SDK, once, as the language host will build.
    _run(["go", "build", "-o", os.devnull, "."], staging, GO_ENV)
    (staging / "main.go").unlink()
    staging.rename(target)


def _go_title(name: str) -> str:
    return name[:1].upper() + name[1:]


def _go_type_name(ref_spec: Mapping[str, Any]) -> str:
    name = str(ref_spec["$ref"]).rsplit(":", 1)[-1]
    # Pulumi's Go generator keeps the Input/Output/Args suffixes for its own types: a schema type named so
    # becomes <name>Type.
    return f"{name}Type" if name.endswith(("Input", "Output", "Args")) else name


_GO_SCALARS = {"string": "String", "integer": "Int", "number": "Float64", "boolean": "Bool"}


def _go_collection(items: Mapping[str, Any], suffix: str) -> str:
    if _object_type(items) is not None:
        return f"modelarts.{_go_type_name(items)}{suffix}"
    return f"pulumi.{_GO_SCALARS[str(items.get('type'))]}{suffix}"


def _go_decode(spec: Mapping[str, Any], expr: str) -> str:
    """A Go expression turning expr (a value of jobs.json, decoded by encoding/json into interface{}) into the
    SDK's input type for a value of this schema type."""
    if _object_type(spec) is not None:
        return f"decode{_go_type_name(spec)}({expr})"
    if spec.get("$ref") == "pulumi.json#/Any":
        return f"pulumi.Any({expr})"
    if "oneOf" in spec:
        return f"decodeOneOf({expr})"
    kind = spec.get("type")
    if kind == "string":
        return f"pulumi.String({expr}.(string))"
    if kind == "integer":
        return f"pulumi.Int(int({expr}.(float64)))"
    if kind == "number":
        return f"pulumi.Float64({expr}.(float64))"
    if kind == "boolean":
        return f"pulumi.Bool({expr}.(bool))"
    if kind == "array":
        items = spec.get("items", {})
        collection = _go_collection(items, "Array")
        return (
            f"func(x interface{{}}) {collection} {{ out := {collection}{{}}; "
            f"for _, e := range x.([]interface{{}}) {{ out = append(out, {_go_decode(items, 'e')}) }}; "
            f"return out }}({expr})"
        )
    if kind == "object":
        items = spec.get("additionalProperties", {"type": "string"})
        collection = _go_collection(items, "Map")
        return (
            f"func(x interface{{}}) {collection} {{ out := {collection}{{}}; "
            f"for k, e := range x.(map[string]interface{{}}) {{ out[k] = {_go_decode(items, 'e')} }}; "
            f"return out }}({expr})"
        )
    raise ValueError(f"no Go input for a value of schema type {dict(spec)!r}")


def _go_decoder(function: str, args_type: str, properties: Mapping[str, Any]) -> str:
    cases = "".join(
        f"\t\tcase {json.dumps(name)}:\n\t\t\ta.{_go_title(name)} = {_go_decode(spec, 'value')}\n"
        for name, spec in properties.items()
    )
    return (
        f"func {function}(x interface{{}}) *modelarts.{args_type} {{\n"
        f"\ta := &modelarts.{args_type}{{}}\n"
        "\tfor key, value := range x.(map[string]interface{}) {\n"
        "\t\tswitch key {\n"
        f"{cases}"
        "\t\tdefault:\n"
        f'\t\t\tpanic(fmt.Sprintf("{args_type}: no property %q", key))\n'
        "\t\t}\n\t}\n\treturn a\n}\n"
    )


def _go_decoders() -> str:
    """One decoder per object type the resource's inputs reach, and the resource's own (decodeJobArgs)."""
    properties = schema()["resources"][JOB_TOKEN]["inputProperties"]
    found: dict[str, Mapping[str, Any]] = {}

    def reach(spec: Mapping[str, Any]) -> None:
        target = _object_type(spec)
        if target is not None:
            name = _go_type_name(spec)
            if name not in found:
                found[name] = target.get("properties", {})
                for inner in found[name].values():
                    reach(inner)
        elif spec.get("type") == "array":
            reach(spec.get("items", {}))
        elif spec.get("type") == "object":
            reach(spec.get("additionalProperties", {}))

    for spec in properties.values():
        reach(spec)
    decoders = [_go_decoder("decodeJobArgs", "TrainingJobArgs", properties)]
    decoders += [_go_decoder(f"decode{name}", f"{name}Args", props) for name, props in sorted(found.items())]
    return "\n".join(decoders)


GO_PROGRAM_HEAD = """\
// The jobs declared in jobs.json, exported as {id, name, phase}: each job's arguments (the schema's names)
// built into the SDK's typed inputs by the decoders below, generated from the schema
// (tests/cli/languages.py), so one program serves every declaration and is built once.
package main

import (
\t"bytes"
\t"encoding/json"
\t"fmt"
\t"os"

\t"%(module)s/modelarts"
\t"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

type member struct {
\tname  string
\tvalue interface{}
}

// members: the members of the document's object at key, in the order they are written.
func members(raw []byte, key string) ([]member, error) {
\tvar doc map[string]json.RawMessage
\tif err := json.Unmarshal(raw, &doc); err != nil {
\t\treturn nil, err
\t}
\tsection, ok := doc[key]
\tif !ok {
\t\treturn nil, nil
\t}
\tdecoder := json.NewDecoder(bytes.NewReader(section))
\tif _, err := decoder.Token(); err != nil {
\t\treturn nil, err
\t}
\tvar out []member
\tfor decoder.More() {
\t\tname, err := decoder.Token()
\t\tif err != nil {
\t\t\treturn nil, err
\t\t}
\t\tvar value interface{}
\t\tif err := decoder.Decode(&value); err != nil {
\t\t\treturn nil, err
\t\t}
\t\tout = append(out, member{name.(string), value})
\t}
\treturn out, nil
}

func decodeOneOf(x interface{}) pulumi.Input {
\tswitch v := x.(type) {
\tcase string:
\t\treturn pulumi.String(v)
\tcase float64:
\t\treturn pulumi.Float64(v)
\t}
\tpanic(fmt.Sprintf("no input for %%v", x))
}

func text(x interface{}) string {
\tif x == nil {
\t\treturn ""
\t}
\treturn x.(string)
}

func main() {
\tpulumi.Run(func(ctx *pulumi.Context) error {
\t\traw, err := os.ReadFile("jobs.json")
\t\tif err != nil {
\t\t\treturn err
\t\t}
\t\tdeclared, err := members(raw, "jobs")
\t\tif err != nil {
\t\t\treturn err
\t\t}
\t\texisting, err := members(raw, "existing")
\t\tif err != nil {
\t\t\treturn err
\t\t}
\t\texport := func(name string, job *modelarts.TrainingJob) {
\t\t\tctx.Export(name, pulumi.Map{"id": job.ID(), "name": job.Name, "phase": job.Phase})
\t\t}
\t\tfor _, m := range declared {
\t\t\targs := m.value.(map[string]interface{})
\t\t\tvar options []pulumi.ResourceOption
\t\t\tif t, ok := args["customTimeouts"].(map[string]interface{}); ok {
\t\t\t\ttimeouts := pulumi.CustomTimeouts{
\t\t\t\t\tCreate: text(t["create"]), Update: text(t["update"]), Delete: text(t["delete"]),
\t\t\t\t}
\t\t\t\toptions = append(options, pulumi.Timeouts(&timeouts))
\t\t\t\tdelete(args, "customTimeouts")
\t\t\t}
\t\t\tjob, err := modelarts.NewTrainingJob(ctx, m.name, decodeJobArgs(args), options...)
\t\t\tif err != nil {
\t\t\t\treturn err
\t\t\t}
\t\t\texport(m.name, job)
\t\t}
\t\tfor _, m := range existing {
\t\t\tjob, err := modelarts.GetTrainingJob(ctx, m.name, pulumi.ID(m.value.(string)), nil)
\t\t\tif err != nil {
\t\t\t\treturn err
\t\t\t}
\t\t\texport(m.name, job)
\t\t}
\t\treturn nil
\t})
}

"""


@cache
def go_program() -> str:
    """main.go: the jobs declared in jobs.json (schema names, see schema_args) and the existing ones read."""
    return GO_PROGRAM_HEAD % {"module": go_sdk_module()} + _go_decoders()


# The program's executable in the project directory, which Pulumi.yaml names (runtime option `binary`).
GO_BINARY = "story-program"
GO_RUNTIME = f"runtime:\n  name: go\n  options:\n    binary: {GO_BINARY}\n"


def write_go_project(workdir: Path, module: Path) -> None:
    for name in ("go.mod", "go.sum"):
        shutil.copy(module / name, workdir / name)
    write_go_program(workdir, go_program())


def write_go_program(workdir: Path, source: str) -> None:
    """main.go and its executable, built with `go build` as the language host would build it: once per
    distinct program in the session, not at each pulumi command (where the host links it again, some
    seconds of CPU each time; the program compiled against the SDK all the same)."""
    (workdir / "main.go").write_text(source)
    cache_dir = session_cache()
    digest = hashlib.sha256((source + (workdir / "go.mod").read_text()).encode()).hexdigest()[:20]
    built = cache_dir / "go-programs" / digest
    with _locked(cache_dir):
        if not built.is_file():
            built.parent.mkdir(parents=True, exist_ok=True)
            _run(["go", "build", "-o", str(built.with_suffix(".partial")), "."], workdir, GO_ENV)
            built.with_suffix(".partial").rename(built)
    shutil.copy(built, workdir / GO_BINARY)


# --- YAML -------------------------------------------------------------------------------------------------


def _yaml_literal(value: Any) -> Any:
    """value with every string escaped for Pulumi YAML, where `${...}` interpolates and `$$` is one `$`."""
    if isinstance(value, str):
        return value.replace("$", "$$")
    if isinstance(value, list):
        return [_yaml_literal(item) for item in value]
    if isinstance(value, dict):
        return {key: _yaml_literal(item) for key, item in value.items()}
    return value


def yaml_program(jobs: Mapping[str, Any], existing: Mapping[str, str]) -> str:
    """Main.yaml declaring these jobs (schema names, see schema_args) and reading the existing ones."""
    options_keys = set(OPTION_KEYS.values())
    resources: dict[str, Any] = {}
    for name, declared in jobs.items():
        resource: dict[str, Any] = {
            "type": JOB_TOKEN,
            "properties": _yaml_literal({k: v for k, v in declared.items() if k not in options_keys}),
        }
        if options := {k: v for k, v in declared.items() if k in options_keys}:
            resource["options"] = options
        resources[name] = resource
    for name, job_id in existing.items():
        resources[name] = {"type": JOB_TOKEN, "get": {"id": _yaml_literal(job_id)}}
    outputs = {name: {key: f"${{{name}.{key}}}" for key in ("id", "name", "phase")} for name in resources}
    document = {"resources": resources, "outputs": outputs} if resources else {}
    header = "# Jobs declared in jobs.json (generated from it), exported as {id, name, phase}.\n"
    body: str = yaml.safe_dump(document, sort_keys=False, default_flow_style=False)
    return header + body


def write_yaml_project(workdir: Path) -> None:
    (workdir / "Main.yaml").write_text(yaml_program({}, {}))
