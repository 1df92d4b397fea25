"""Tags: the service's tag rules (``tag_problems``), the tag calls' bodies and the tag query's answer."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from pydantic import Field

from .model_base import RequestModel, ResponseModel

#: The service's tag rules (TMS tags on a training job; the official SDK's ``TmsTag``: key at most 128
#: characters of any language's letters, digits, spaces and ``_ . : = + - @``, no space at either end, not
#: ``_sys_``-prefixed; value at most 255 characters, ``/`` allowed too) and TMS's limit of 20 tags a resource.
TAGS_MAX: Final = 20
TAG_KEY_MAX_LENGTH: Final = 128
TAG_VALUE_MAX_LENGTH: Final = 255
TAG_KEY_PUNCTUATION: Final = frozenset(" _.:=+-@")
TAG_VALUE_PUNCTUATION: Final = frozenset(" _.:/=+-@")
TAG_RESERVED_PREFIX: Final = "_sys_"


def _tag_text_ok(text: str, punctuation: frozenset[str]) -> bool:
    return all(ch.isalpha() or ch.isdigit() or ch in punctuation for ch in text)


def tag_problems(tags: Mapping[str, str]) -> list[str]:
    """What the service would refuse in a tag map, one sentence a problem (none: it accepts them)."""
    found: list[str] = []
    if len(tags) > TAGS_MAX:
        found.append(f"at most {TAGS_MAX} tags, not {len(tags)}")
    for key, value in tags.items():
        if not key or len(key) > TAG_KEY_MAX_LENGTH:
            found.append(f"tag key {key!r}: 1 to {TAG_KEY_MAX_LENGTH} characters")
        elif not _tag_text_ok(key, TAG_KEY_PUNCTUATION):
            found.append(f"tag key {key!r}: only letters, digits, spaces and _ . : = + - @")
        elif key != key.strip(" "):
            found.append(f"tag key {key!r}: no space at the start or end")
        elif key.startswith(TAG_RESERVED_PREFIX):
            found.append(f"tag key {key!r}: keys starting with {TAG_RESERVED_PREFIX} are reserved")
        if len(value) > TAG_VALUE_MAX_LENGTH:
            found.append(f"tag {key!r}: the value has more than {TAG_VALUE_MAX_LENGTH} characters")
        elif not _tag_text_ok(value, TAG_VALUE_PUNCTUATION):
            found.append(f"tag {key!r}: the value may hold only letters, digits, spaces and _ . : / = + - @")
    return found


class TmsTag(RequestModel):
    """One tag of a training job as the tag calls send and return it (``key``, ``value``)."""

    key: str
    value: str = ""


class TagsBody(RequestModel):
    """Body of the tag calls: create and delete send it, the tag query answers it."""

    tags: list[TmsTag] = Field(default_factory=list)


def tags_body(tags: Mapping[str, str]) -> TagsBody:
    return TagsBody(tags=[TmsTag(key=k, value=v) for k, v in sorted(tags.items())])


class TagAnswer(ResponseModel):
    """One tag in the tag query's answer."""

    key: str | None = None
    value: str | None = None


class TagsAnswer(ResponseModel):
    """The tag query's answer (``GET .../modelarts-training-job/{id}/tags``)."""

    tags: list[TagAnswer] | None = None

    def as_map(self) -> dict[str, str]:
        return {t.key: t.value or "" for t in self.tags or [] if t.key}
