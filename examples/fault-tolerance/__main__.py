"""Fault tolerance: ModelArts restarts the job on faults and hangs, as set in ``metadata.annotations``.

The annotations are the service's advanced settings: ``fault-tolerance/job-retry-num`` (how many automatic
restarts after a fault), ``fault-tolerance/job-unconditional-retry`` (restart whatever the cause) and
``fault-tolerance/hang-retry`` (restart a hung job). Each recovery appears in ``status.running_records``,
exported below as of the last run of this program: `pulumi refresh` updates the job's own outputs in the state
but not the stack outputs, which change at the next `pulumi up` (or `pulumi refresh --run-program`). Changing
an annotation replaces the job.

Runs against the embedded emulator as is (HW_MODELARTS_ENDPOINT, HW_ACCESS_KEY, HW_SECRET_KEY,
HW_PROJECT_ID pointing at it). For the cloud, no code change:

    pulumi config set modelarts:region cn-north-4
    pulumi config set modelarts:projectId <project id>
    pulumi config set modelarts:accessKey <access key>
    pulumi config set --secret modelarts:secretKey <secret key>
    pulumi config set image <swr org>/<image>:<tag>
    pulumi config set flavorId <flavor>
    pulumi config set retries 5
"""

import pulumi

from pulumi_modelarts import TrainingJob

config = pulumi.Config()

job = TrainingJob(
    "resilient",
    metadata={
        "description": "two-node training that survives node faults",
        "annotations": {
            "fault-tolerance/job-retry-num": str(config.get_int("retries") or 3),
            "fault-tolerance/job-unconditional-retry": "true",
            "fault-tolerance/hang-retry": "true",
        },
    },
    algorithm={
        "engine": {"image_url": config.get("image") or "my-org/train:2.0"},
        "command": "python -m torch.distributed.run train.py",
    },
    spec={
        "resource": {"flavor_id": config.get("flavorId") or "modelarts.vm.pnt1.large.eco", "node_count": 2},
        # A runaway job stops by itself after a day.
        "auto_stop": {"time_unit": "HOURS", "duration": 24},
    },
    wait_for="running",
)

pulumi.export("job_id", job.id)
pulumi.export("phase", job.phase)
pulumi.export("annotations", job.metadata.apply(lambda metadata: metadata.get("annotations", {})))
pulumi.export("running_records", job.status.apply(lambda status: status.get("running_records", [])))
