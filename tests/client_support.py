"""A create through the client as the job layer makes one: handed the recovery of a lost or unusable answer
(``lost_creates.LostCreate``, judged from now), as ``held_names.post_create`` hands it in.

Kept apart from tests/support.py, which loads no provider code (bench/ imports that one).
"""

from __future__ import annotations

import time

from pulumi_modelarts.job.ownership.lost_creates import LostCreate
from pulumi_modelarts.wire.api import ModelArtsAPI
from pulumi_modelarts.wire.models import CreateTrainingJobRequest, TrainingJob

__all__ = ["create_job"]


def create_job(client: ModelArtsAPI, request: CreateTrainingJobRequest) -> TrainingJob:
    """``client.create_job(request)`` with the job layer's recovery of a lost answer."""
    return client.create_job(request, LostCreate(client, request.metadata.name or "", started=time.time()))
