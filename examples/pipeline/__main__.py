"""A two-step pipeline: the training job reads what the preparation job wrote.

``prepare`` is created with ``wait_for="completed"``, so `pulumi up` waits until it finished successfully
(and fails, terminating nothing else, if it does not). ``train`` takes its input path from ``prepare``'s
output, an Output, so Pulumi creates it only after ``prepare`` is done. Changing the preparation replaces
``prepare``; the preview also marks ``train`` for replacement because its input path is not known until then,
and `pulumi up` replaces ``train`` only if that path really changes.

Runs against the embedded emulator as is (HW_MODELARTS_ENDPOINT, HW_ACCESS_KEY, HW_SECRET_KEY,
HW_PROJECT_ID pointing at it; start it with short phases, e.g. ``--running-seconds 1``). For the cloud, no
code change:

    pulumi config set modelarts:region cn-north-4
    pulumi config set modelarts:projectId <project id>
    pulumi config set modelarts:accessKey <access key>
    pulumi config set --secret modelarts:secretKey <secret key>
    pulumi config set bucket <your OBS bucket>
    pulumi config set image <swr org>/<image>:<tag>
"""

import pulumi

from pulumi_modelarts import TrainingJob

config = pulumi.Config()
bucket = config.get("bucket") or "my-bucket"
image = config.get("image") or "my-org/pipeline:1.0"
flavor = config.get("flavorId") or "modelarts.vm.cpu.8u"

prepare = TrainingJob(
    "prepare",
    metadata={"description": "clean and split the raw data"},
    algorithm={
        "engine": {"image_url": image},
        "command": "python prepare.py",
        "inputs": [{"name": "raw_url", "remote": {"obs": {"obs_url": f"/{bucket}/raw/"}}}],
        "outputs": [{"name": "prepared_url", "remote": {"obs": {"obs_url": f"/{bucket}/prepared/"}}}],
    },
    spec={"resource": {"flavor_id": flavor, "node_count": 1}},
    wait_for="completed",
    wait_timeout="2h",
)

# The path as the service reports it, once the job completed.
prepared_url = prepare.algorithm["outputs"][0]["remote"]["obs"]["obs_url"]

train = TrainingJob(
    "train",
    metadata={"description": "train on the prepared data"},
    algorithm={
        "engine": {"image_url": image},
        "command": "python train.py",
        "inputs": [{"name": "data_url", "remote": {"obs": {"obs_url": prepared_url}}}],
        "outputs": [{"name": "train_url", "remote": {"obs": {"obs_url": f"/{bucket}/models/"}}}],
    },
    spec={"resource": {"flavor_id": flavor, "node_count": 1}},
)

pulumi.export("prepare_id", prepare.id)
pulumi.export("prepare_phase", prepare.phase)
pulumi.export("prepared_url", prepared_url)
pulumi.export("train_id", train.id)
pulumi.export("train_phase", train.phase)
