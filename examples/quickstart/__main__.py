"""Quickstart: one training job on the free flavor, from an existing algorithm.

`scripts/demo` runs it against the embedded emulator (it sets HW_MODELARTS_ENDPOINT, HW_ACCESS_KEY,
HW_SECRET_KEY and HW_PROJECT_ID). For the cloud, no code change: set those variables (HW_REGION_NAME instead
of the endpoint) or the stack config, and name your own algorithm and data:

    pulumi config set algorithmId <algorithm id from algorithm management>
    pulumi config set inputDir obs://<bucket>/<path>/
    pulumi config set modelarts:region cn-north-4
    pulumi config set modelarts:projectId <project id>
    pulumi config set modelarts:accessKey <access key>
    pulumi config set --secret modelarts:secretKey <secret key>
"""

import pulumi

from pulumi_modelarts import TrainingJob

config = pulumi.Config()

job = TrainingJob(
    "quickstart",
    metadata={"description": "Quickstart training job"},
    algorithm={
        "id": config.get("algorithmId") or "3f5d6706-7b67-408d-8ba0-ec08048c45ed",
        "parameters": [
            {"name": "input_dir", "value": config.get("inputDir") or "obs://my-bucket/datasets/mnist/"},
            {"name": "large_file_method", "value": "1"},
        ],
    },
    spec={"resource": {"flavor_id": "modelarts.p3.large.public.free", "node_count": 1}},
)

pulumi.export("job_id", job.id)
pulumi.export("job_name", job.metadata["name"])
pulumi.export("phase", job.phase)
