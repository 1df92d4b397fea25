"""What a Terraform state says, read from either of its two JSON shapes: the state file itself (format
version 4, written by Terraform 0.12 and later: ``terraform state pull``, ``terraform.tfstate``) or what
``terraform show -json`` prints of it. Both give the same ``Instance`` list (one per resource instance, with
its module path, index key and attributes); anything else is refused with a ``StateError`` that says what the
file is instead.

Pure: it reads the document it is given, never a file, a network or the environment.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["Instance", "Key", "ModuleStep", "StateError", "decode", "instances"]

# A `count` index (int) or a `for_each` key (str); None for a resource or module with neither.
Key = int | str | None
# One step of a module path: its name in the `module` block and its instance key.
ModuleStep = tuple[str, Key]

STATE_VERSION = 4
# `terraform show -json` changes its major format version only for changes that break readers.
SHOW_MAJOR_VERSIONS = ("0", "1")
NEITHER = "neither a Terraform state (version 4) nor `terraform show -json` output"


class StateError(ValueError):
    """The document is not a Terraform state this module reads; the message says what it is instead."""


@dataclass(frozen=True)
class Instance:
    """One resource instance of the state (a data source's too: ``mode`` "data")."""

    modules: tuple[ModuleStep, ...]
    mode: str
    type: str
    name: str
    key: Key
    attributes: Mapping[str, Any]
    deposed: str | None = None  # the deposed object's key: Terraform destroys it at its next apply
    tainted: bool = False  # Terraform replaces it at its next apply

    @property
    def address(self) -> str:
        """The instance's Terraform address, as `terraform state list` prints it."""
        prefix = "".join(f"module.{name}{_index(key)}." for name, key in self.modules)
        data = "data." if self.mode == "data" else ""
        return f"{prefix}{data}{self.type}.{self.name}{_index(self.key)}"

    def sort_key(self) -> tuple[Any, ...]:
        """Terraform's own order: module path, then the resource, then its index (numbers by value)."""
        return (
            [(name, _key_order(key)) for name, key in self.modules],
            self.mode,
            self.type,
            self.name,
            _key_order(self.key),
            self.deposed or "",
        )


def _index(key: Key) -> str:
    if key is None:
        return ""
    if isinstance(key, int):
        return f"[{key}]"
    return f"[{json.dumps(key, ensure_ascii=False)}]"


def _key_order(key: Key) -> tuple[int, int, str]:
    if key is None:
        return (0, 0, "")
    if isinstance(key, int):
        return (1, key, "")
    return (2, 0, key)


def decode(raw: bytes, source: str) -> Any:
    """The JSON document in raw; StateError naming the line and column where it stops being JSON."""
    # PowerShell's `>` writes UTF-16 with a byte-order mark; everything else writes UTF-8.
    encoding = "utf-16" if raw[:2] in (b"\xff\xfe", b"\xfe\xff") else "utf-8-sig"
    try:
        text = raw.decode(encoding)
    except UnicodeDecodeError as exc:
        raise StateError(f"{source} is not text (byte {exc.start} is not {encoding.upper()[:6]})") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise StateError(
            f"{source} is not JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}"
        ) from None


def instances(document: Any, source: str) -> list[Instance]:
    """Every resource instance of a state file (version 4) or of `terraform show -json` output."""
    if not isinstance(document, dict):
        raise StateError(f"{source} holds {_kind(document)}, {NEITHER}")
    if "format_version" in document:
        return list(_show_instances(document, source))
    if "version" in document and {"terraform_version", "lineage", "serial", "resources"} & document.keys():
        return list(_state_instances(document, source))
    raise StateError(f"{source} holds a JSON object with keys {_keys(document)}, {NEITHER}")


def _kind(value: Any) -> str:
    if isinstance(value, list):
        return "a JSON array"
    if isinstance(value, str):
        return "a JSON string"
    if value is None:
        return "JSON null"
    if isinstance(value, dict):
        return "a JSON object"
    return "a JSON " + ("boolean" if isinstance(value, bool) else "number")


def _keys(document: Mapping[str, Any], shown: int = 8) -> str:
    names = [json.dumps(k) for k in list(document)[:shown]]
    more = f" and {len(document) - shown} more" if len(document) > shown else ""
    return (", ".join(names) or "none") + more


def _state_instances(document: Mapping[str, Any], source: str) -> Iterator[Instance]:
    version = document["version"]
    if version != STATE_VERSION:
        raise StateError(
            f"{source} is a Terraform state of version {json.dumps(version)}; this command reads version "
            f"{STATE_VERSION} (Terraform 0.12 and later): `terraform state pull > state.json` with a "
            "current Terraform writes it in that version"
        )
    for i, resource in enumerate(_list(document.get("resources"), f"{source}: resources")):
        where = f"{source}: resources[{i}]"
        resource = _object(resource, where)
        modules = module_path(_text(resource.get("module", ""), f"{where}.module"), f"{where}.module")
        mode, type_, name = (_text(resource.get(k), f"{where}.{k}") for k in ("mode", "type", "name"))
        for j, instance in enumerate(_list(resource.get("instances"), f"{where}.instances")):
            at = f"{where}.instances[{j}]"
            instance = _object(instance, at)
            yield Instance(
                modules,
                mode,
                type_,
                name,
                _key(instance.get("index_key"), f"{at}.index_key"),
                _object(instance.get("attributes") or {}, f"{at}.attributes"),
                deposed=_optional_text(instance.get("deposed"), f"{at}.deposed"),
                tainted=instance.get("status") == "tainted",
            )


def _show_instances(document: Mapping[str, Any], source: str) -> Iterator[Instance]:
    version = document["format_version"]
    if "planned_values" in document or "resource_changes" in document:
        raise StateError(
            f"{source} is a plan's JSON (`terraform show -json PLANFILE`); give the state's: "
            "`terraform show -json` with no plan file, or `terraform state pull`"
        )
    if not isinstance(version, str) or version.split(".")[0] not in SHOW_MAJOR_VERSIONS:
        raise StateError(
            f"{source} is `terraform show -json` output of format version {json.dumps(version)}; "
            "this command reads format versions 0.x and 1.x"
        )
    # An empty state shows as {"format_version": ...} alone.
    values = _object(document.get("values") or {}, f"{source}: values")
    root = values.get("root_module")
    if root is not None:
        yield from _show_module(_object(root, f"{source}: values.root_module"), (), f"{source}: root_module")


def _show_module(module: Mapping[str, Any], path: tuple[ModuleStep, ...], where: str) -> Iterator[Instance]:
    for i, resource in enumerate(_list(module.get("resources") or [], f"{where}.resources")):
        at = f"{where}.resources[{i}]"
        resource = _object(resource, at)
        mode, type_, name = (_text(resource.get(k), f"{at}.{k}") for k in ("mode", "type", "name"))
        yield Instance(
            path,
            mode,
            type_,
            name,
            _key(resource.get("index"), f"{at}.index"),
            _object(resource.get("values") or {}, f"{at}.values"),
            deposed=_optional_text(resource.get("deposed_key"), f"{at}.deposed_key"),
            tainted=resource.get("tainted") is True,
        )
    for i, child in enumerate(_list(module.get("child_modules") or [], f"{where}.child_modules")):
        at = f"{where}.child_modules[{i}]"
        child = _object(child, at)
        address = _text(child.get("address"), f"{at}.address")
        yield from _show_module(child, module_path(address, f"{at}.address"), at)


_MODULE_STEP = re.compile(r'module\.([A-Za-z_][\w-]*)(?:\[(\d+|"(?:[^"\\]|\\.)*")\])?(?:\.|$)')


def module_path(address: str, where: str) -> tuple[ModuleStep, ...]:
    """The steps of a module address (``module.a[0].module.b["x"]``); () for the root module ("")."""
    steps: list[ModuleStep] = []
    at = 0
    while at < len(address):
        match = _MODULE_STEP.match(address, at)
        if match is None:
            raise StateError(f"{where}: {address!r} is not a module address (module.NAME[KEY]...)")
        raw = match.group(2)
        steps.append((match.group(1), None if raw is None else json.loads(raw)))
        at = match.end()
    if address.endswith("."):
        raise StateError(f"{where}: {address!r} is not a module address (module.NAME[KEY]...)")
    return tuple(steps)


def _object(value: Any, where: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise StateError(f"{where} is {_kind(value)} where an object belongs")
    return value


def _list(value: Any, where: str) -> Sequence[Any]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise StateError(f"{where} is {_kind(value)} where a list belongs")
    return value


def _text(value: Any, where: str) -> str:
    if not isinstance(value, str):
        raise StateError(f"{where} is missing or not a string")
    return value


def _optional_text(value: Any, where: str) -> str | None:
    return None if value is None else _text(value, where)


def _key(value: Any, where: str) -> Key:
    if value is None or isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool)):
        return value
    raise StateError(f"{where} is {_kind(value)}, neither a count index nor a for_each key")
