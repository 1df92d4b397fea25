"""Pure: the accounts (IAM domains) and projects the emulator knows, and IAM's answer shapes for projects.

Two accounts: the caller's own ("home": the base keys, id-token logins and the metadata service's keys belong
to it), whose region project is ``EmulatorConfig.project_id`` and whose sub-projects are
``{region}_{suffix}``; and a second one whose agency the base keys may assume ("partner"), with one region
project. Keys see the projects of their own account only, in IAM and in the ModelArts API.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

from .config import AccountSettings


@dataclass(frozen=True)
class Project:
    id: str
    name: str
    domain_id: str
    parent_id: str  # the account for a region project, the region project for a sub-project (as IAM has it)
    description: str = ""


@dataclass(frozen=True)
class Account:
    domain_id: str
    domain_name: str
    projects: tuple[Project, ...]

    @property
    def project_ids(self) -> frozenset[str]:
        return frozenset(project.id for project in self.projects)


def sub_project_name(region: str, name: str) -> str:
    """A sub-project's full name: ``ml`` and ``cn-north-4_ml`` both name ``cn-north-4_ml``."""
    return name if name.startswith(f"{region}_") else f"{region}_{name}"


def sub_project_id(domain_id: str, name: str) -> str:
    # Derived, not random, so a test (or a restarted emulator) can predict it.
    return hashlib.sha256(f"{domain_id}/{name}".encode()).hexdigest()[:32]


def home_account(settings: AccountSettings, project_id: str) -> Account:
    region_project = Project(project_id, settings.region, settings.domain_id, settings.domain_id)
    subs = tuple(
        Project(sub_project_id(settings.domain_id, name), name, settings.domain_id, project_id)
        for name in dict.fromkeys(sub_project_name(settings.region, s) for s in settings.sub_projects)
    )
    return Account(settings.domain_id, settings.domain_name, (region_project, *subs))


def partner_account(settings: AccountSettings) -> Account:
    project = Project(
        settings.agency_project_id, settings.region, settings.agency_domain_id, settings.agency_domain_id
    )
    return Account(settings.agency_domain_id, settings.agency_domain_name, (project,))


def project_shape(project: Project, base_url: str) -> dict[str, Any]:
    """One project as ``GET /v3/projects`` shows it."""
    return {
        "id": project.id,
        "name": project.name,
        "domain_id": project.domain_id,
        "parent_id": project.parent_id,
        "is_domain": False,
        "enabled": True,
        "description": project.description,
        "links": {"self": f"{base_url}/v3/projects/{project.id}"},
    }


def projects_shape(projects: list[Project], base_url: str, self_url: str) -> dict[str, Any]:
    return {
        "projects": [project_shape(project, base_url) for project in projects],
        "links": {"self": self_url, "previous": None, "next": None},
    }


def matching(projects: tuple[Project, ...], query: dict[str, str]) -> list[Project]:
    """The projects a keystone listing's filters keep (name, domain_id, parent_id, enabled, is_domain)."""
    kept = list(projects)
    for key in ("name", "domain_id", "parent_id"):
        if key in query:
            kept = [p for p in kept if getattr(p, key) == query[key]]
    if query.get("enabled", "true").lower() == "false" or query.get("is_domain", "false").lower() == "true":
        return []  # every project here is enabled and none is a domain
    return kept


@dataclass(frozen=True)
class Directory:
    """Both accounts, found by their domain id."""

    home: Account
    partner: Account

    def account(self, domain_id: str) -> Account:
        return self.partner if domain_id == self.partner.domain_id else self.home


def directory(settings: AccountSettings, project_id: str) -> Directory:
    return Directory(home_account(settings, project_id), partner_account(settings))
