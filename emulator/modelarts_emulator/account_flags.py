"""Command-line flags of IAM and the metadata service (``iam.py``, ``metadata.py``), kept beside the rest of
``__main__``'s so that the account settings live in one place."""

from __future__ import annotations

import argparse

from .config import AccountSettings
from .flags import from_flags, positive_seconds

_D = AccountSettings()


def add_arguments(parser: argparse.ArgumentParser) -> None:
    g = parser.add_argument_group("IAM and instance metadata (on the same server)")
    g.add_argument(
        "--region", default=_D.region, help="the region; its project is --project-id (default %(default)s)"
    )
    g.add_argument("--domain-id", default=_D.domain_id, help="the account's id (default %(default)s)")
    g.add_argument("--domain-name", default=_D.domain_name, help="the account's name (default %(default)s)")
    g.add_argument(
        "--sub-project",
        action="append",
        default=[],
        dest="sub_projects",
        metavar="NAME",
        help="a sub-project REGION_NAME (or NAME) of the account; repeatable",
    )
    g.add_argument(
        "--iam-list-projects-forbidden",
        action="store_true",
        dest="list_projects_forbidden",
        help="answer GET /v3/projects 403, as for a user lacking the permission (/v3/auth/projects works)",
    )
    g.add_argument(
        "--agency-name", default=_D.agency_name, help="the agency assume_role accepts (default %(default)s)"
    )
    g.add_argument(
        "--agency-domain-name", default=_D.agency_domain_name, help="its account's name (default %(default)s)"
    )
    g.add_argument(
        "--agency-domain-id", default=_D.agency_domain_id, help="its account's id (default %(default)s)"
    )
    g.add_argument(
        "--agency-project-id",
        default=_D.agency_project_id,
        help="its account's project in the region, the one the agency's keys see (default %(default)s)",
    )
    g.add_argument(
        "--idp-id",
        default=_D.idp_id,
        help="the identity provider id-token login accepts (default %(default)s)",
    )
    g.add_argument(
        "--id-token", default=_D.id_token, help="the id token it accepts (default: the demo value)"
    )
    g.add_argument(
        "--temporary-key-seconds",
        type=positive_seconds,
        help="lifetime of every temporary key and token issued (default: as asked; 24 h for metadata keys)",
    )
    g.add_argument(
        "--metadata-tokens",
        action=argparse.BooleanOptionalAction,
        default=_D.metadata_tokens,
        help="metadata tokens required (default); --no-metadata-tokens answers the token PUT with 404",
    )
    g.add_argument(
        "--metadata-agency",
        action=argparse.BooleanOptionalAction,
        default=_D.metadata_agency,
        help="an agency is attached (default); --no-metadata-agency answers securitykey 401 "
        '"Please configure Cloud Service Agency first"',
    )


def settings_from(args: argparse.Namespace) -> AccountSettings:
    """The account's settings from the flags above (each flag's destination is its field's name)."""
    return from_flags(AccountSettings, args)
