"""Quickstart: one training job on the free flavor, from an existing algorithm.

Credentials and the endpoint come from stack config (`modelarts:*`) or the environment; see the README.
"""

import pulumi

from pulumi_modelarts import TrainingJob

job = TrainingJob(
    "quickstart",
    metadata={"description": "Quickstart training job"},
    algorithm={
        "id": "3f5d6706-7b67-408d-8ba0-ec08048c45ed",
        "parameters": [
            {"name": "input_dir", "value": "obs://my-bucket/datasets/mnist/"},
            {"name": "large_file_method", "value": "1"},
        ],
    },
    spec={"resource": {"flavor_id": "modelarts.p3.large.public.free", "node_count": 1}},
)

pulumi.export("job_id", job.id)
pulumi.export("job_name", job.metadata["name"])
pulumi.export("phase", job.phase)
