"""Bring the training jobs Terraform manages (``huaweicloud_modelarts_training_job``) into a Pulumi stack
without stopping them: the Terraform state names every job by its id, and ``pulumi import`` adopts a job by
its id. This command writes the file ``pulumi import --file`` reads, one ``modelarts:index:TrainingJob`` (the
native provider's type) per job instance of the state:

    terraform state pull > state.json                  # or: terraform show -json > state.json
    modelarts-from-terraform state.json -o import.json
    pulumi import --file import.json --out jobs.py     # the jobs join the stack, and the code declaring them
    terraform state rm 'huaweicloud_modelarts_training_job.nightly'    # Terraform lets go of them

Each job's Pulumi name comes from its Terraform address (``pulumi_name``): the module names, the resource name
and the instance keys, joined by "-", every run of characters other than ASCII letters and digits made one
"-" (``module.training.huaweicloud_modelarts_training_job.nightly["a"]`` becomes ``training-nightly-a``).
Two addresses that give the same name keep it in Terraform's order: the first has it, the next ones get
"-2", "-3", ... (the first such name no other job has).

Data sources and other resource types are skipped and counted. A job instance whose id is missing, is not
what the provider sends as a job id, or names a job another instance already names is reported and left out.
It reads the file alone: no call to ModelArts, no environment, no other file.
Exit status: see ``EXIT_STATUS``.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import sys
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, TextIO

from ..wire.sendable import path_segment
from .terraform_state import Instance, StateError, decode, instances

__all__ = [
    "EXIT_STATUS",
    "JOB_TYPE",
    "PULUMI_TYPE",
    "Conversion",
    "checked_id",
    "convert",
    "main",
    "pulumi_name",
]

JOB_TYPE = "huaweicloud_modelarts_training_job"
PULUMI_TYPE = "modelarts:index:TrainingJob"

EXIT_DONE = 0
EXIT_PROBLEM = 2
EXIT_LEFT_OUT = 3
EXIT_STATUS = f"""\
exit status:
  {EXIT_DONE}  every training job of the state is in the import file (none at all is no error)
  {EXIT_LEFT_OUT}  the import file is written, but some job instances are not in it: no id, an id that is
     not a job id, or a job another instance already names (listed on stderr)
  {EXIT_PROBLEM}  a usage or file problem: the file is not JSON, not a Terraform state this command reads,
     or FILE exists (--force overwrites it); nothing is written
"""


@dataclass(frozen=True)
class Job:
    """One job of the import file, and where it came from."""

    address: str
    name: str
    id: str
    tainted: bool = False


@dataclass(frozen=True)
class LeftOut:
    address: str
    reason: str


@dataclass
class Conversion:
    """What a state gives: the jobs to import, the job instances left out, and what was skipped."""

    jobs: list[Job] = field(default_factory=list)
    left_out: list[LeftOut] = field(default_factory=list)
    deposed: list[str] = field(default_factory=list)  # addresses of deposed job objects
    skipped: Counter[str] = field(default_factory=Counter)  # instances of other types (data.TYPE for data)

    def document(self) -> dict[str, Any]:
        """The `pulumi import --file` document."""
        return {"resources": [{"type": PULUMI_TYPE, "name": j.name, "id": j.id} for j in self.jobs]}


_NOT_NAME = re.compile(r"[^A-Za-z0-9]+")


def pulumi_name(instance: Instance) -> str:
    """The Pulumi name an instance's address gives, before names are made unique (see the module's doc)."""
    parts: list[str] = []
    for module, key in instance.modules:
        parts += [module, "" if key is None else str(key)]
    parts += [instance.name, "" if instance.key is None else str(instance.key)]
    words = [_NOT_NAME.sub("-", part).strip("-") for part in parts]
    # A resource name is a Terraform identifier, so a word is left unless it was all "_" (then: "job").
    return "-".join(word for word in words if word) or "job"


def unique(names: Sequence[str]) -> list[str]:
    """names, each one that an earlier one already has given the first free "-2", "-3", ... suffix."""
    wanted = set(names)
    used: set[str] = set()
    result: list[str] = []
    for name in names:
        chosen, n = name, 2
        while chosen in used:
            chosen, n = f"{name}-{n}", n + 1
            # A suffixed name never takes the name another instance has by its own address.
            if chosen in wanted:
                chosen = name
        used.add(chosen)
        result.append(chosen)
    return result


def checked_id(value: Any) -> str:
    """value as the job id the provider would send; ValueError saying why it is not one."""
    if value is None:
        raise ValueError("no id in the state")
    if not isinstance(value, str):
        raise ValueError(f"its id {json.dumps(value)} is not a string")
    path_segment(value, "its id")  # the provider's own rule for an id in a request's path
    return value


def convert(found: Iterable[Instance]) -> Conversion:
    """The import file's jobs from a state's instances, in Terraform's order."""
    result = Conversion()
    kept: list[tuple[Instance, str]] = []
    first_with: dict[str, str] = {}  # job id -> the address that names it first
    for instance in sorted(found, key=Instance.sort_key):
        if instance.mode != "managed" or instance.type != JOB_TYPE:
            result.skipped[("data." if instance.mode == "data" else "") + instance.type] += 1
            continue
        if instance.deposed is not None:
            result.deposed.append(f"{instance.address} (deposed object {instance.deposed})")
            continue
        try:
            job_id = checked_id(instance.attributes.get("id"))
        except ValueError as exc:
            result.left_out.append(LeftOut(instance.address, str(exc)))
            continue
        if job_id in first_with:
            # Two Pulumi resources for one job would each act on it: the first address keeps it.
            result.left_out.append(
                LeftOut(instance.address, f"its job {job_id} is already {first_with[job_id]}'s")
            )
            continue
        first_with[job_id] = instance.address
        kept.append((instance, job_id))
    names = unique([pulumi_name(instance) for instance, _ in kept])
    for (instance, job_id), name in zip(kept, names, strict=True):
        result.jobs.append(Job(instance.address, name, job_id, instance.tainted))
    return result


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="modelarts-from-terraform",
        description=(
            "Write the `pulumi import --file` document that adopts the training jobs a Terraform state\n"
            "manages (huaweicloud_modelarts_training_job), so they move to Pulumi without being stopped."
        ),
        epilog=EXIT_STATUS,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "state",
        metavar="STATE",
        help="a Terraform state (`terraform state pull`, terraform.tfstate) or `terraform show -json` "
        "output; - reads stdin",
    )
    p.add_argument("-o", "--output", metavar="FILE", help="write the document to FILE (default: stdout)")
    p.add_argument("--force", action="store_true", help="overwrite FILE when it exists")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    source = "stdin" if args.state == "-" else args.state
    try:
        if args.state == "-":
            raw = sys.stdin.buffer.read()
        else:
            with open(args.state, "rb") as handle:
                raw = handle.read()
        conversion = convert(instances(decode(raw, source), source))
        text = json.dumps(conversion.document(), indent=2) + "\n"
        if args.output is None:
            sys.stdout.write(text)
        else:
            _write(args.output, text, args.state, force=args.force)
    except (OSError, StateError) as exc:
        print(f"error: {_os_message(exc)}", file=sys.stderr)
        return EXIT_PROBLEM
    _report(conversion, source, args.output or "stdout", sys.stderr)
    return EXIT_LEFT_OUT if conversion.left_out else EXIT_DONE


def _write(path: str, text: str, state: str, *, force: bool) -> None:
    if state != "-" and os.path.exists(path) and os.path.samefile(path, state):
        raise StateError(f"{path} is the state itself: write the import file elsewhere")
    try:
        # "x": an existing file is never replaced unless asked to, even one that appears meanwhile.
        with open(path, "w" if force else "x", encoding="utf-8") as handle:
            handle.write(text)
    except FileExistsError:
        raise StateError(f"{path} exists: give --force to overwrite it, or another FILE") from None


def _os_message(exc: Exception) -> str:
    if isinstance(exc, OSError) and exc.filename is not None:
        return f"{exc.filename}: {exc.strerror or exc}"
    return str(exc)


def _report(conversion: Conversion, source: str, target: str, out: TextIO) -> None:
    jobs = conversion.jobs
    if jobs:
        print(f"{len(jobs)} training job(s) of {source}, written to {target}:", file=out)
        for job in jobs:
            note = "  (tainted: Terraform would have replaced it; imported as it is)" if job.tainted else ""
            print(f"  {job.address}  ->  {job.name}  ({job.id}){note}", file=out)
    else:
        print(f"no training job ({JOB_TYPE}) in {source}: {target} lists no resources", file=out)
    if conversion.skipped:
        counts = ", ".join(f"{kind} {n}" for kind, n in sorted(conversion.skipped.items()))
        print(f"skipped {sum(conversion.skipped.values())} other resource instance(s): {counts}", file=out)
    if conversion.deposed:
        print(
            "skipped deposed job object(s), which Terraform means to destroy; they run on, managed by neither"
            " once Terraform lets go (stop them in the ModelArts console if they are not wanted):",
            file=out,
        )
        for address in conversion.deposed:
            print(f"  {address}", file=out)
    if conversion.left_out:
        print(f"left out {len(conversion.left_out)} job instance(s):", file=out)
        for left in conversion.left_out:
            print(f"  {left.address}: {left.reason}", file=out)
    if jobs:
        file = shlex.quote(target) if target != "stdout" else "<the import file>"
        print("Next (nothing is stopped; each step changes a state, not a job):", file=out)
        print(f"  pulumi import --file {file} --out <program file>", file=out)
        print("  then, once the import has succeeded, Terraform lets go of them:", file=out)
        removed = " \\\n      ".join(shlex.quote(job.address) for job in jobs)
        print(f"  terraform state rm {removed}", file=out)


if __name__ == "__main__":
    raise SystemExit(main())
