"""Inputs from a ModelArts dataset version and an OBS folder, outputs to OBS, and hyper-parameters.

The code in ``code_dir`` runs on a preset engine; each input and output channel reaches the training script
as a parameter named after the channel (``data_url``, ``pretrained_url``, ``train_url``), next to the
hyper-parameters below. Changing a hyper-parameter or a path replaces the job (a new run); changing only
the description updates it in place.

Runs against the embedded emulator as is (HW_MODELARTS_ENDPOINT, HW_ACCESS_KEY, HW_SECRET_KEY,
HW_PROJECT_ID pointing at it). For the cloud, no code change:

    pulumi config set modelarts:region cn-north-4
    pulumi config set modelarts:projectId <project id>
    pulumi config set modelarts:accessKey <access key>
    pulumi config set --secret modelarts:secretKey <secret key>
    pulumi config set bucket <your OBS bucket>
    pulumi config set datasetId <dataset id>
    pulumi config set datasetVersionId <dataset version id>
"""

import pulumi

from pulumi_modelarts import TrainingJob

config = pulumi.Config()
bucket = config.get("bucket") or "my-bucket"
engine_version = "pytorch_1.8.0-cuda_10.2-py_3.7-ubuntu_18.04-x86_64"
hyper_parameters = {"learning_rate": "0.01", "epochs": "10", "batch_size": "64"}

job = TrainingJob(
    "resnet",
    metadata={"description": "ResNet-50 on the flowers dataset"},
    algorithm={
        "engine": {
            "engine_name": config.get("engineName") or "PyTorch",
            "engine_version": config.get("engineVersion") or engine_version,
        },
        "code_dir": f"/{bucket}/code/resnet/",
        "boot_file": f"/{bucket}/code/resnet/train.py",
        "parameters": [{"name": name, "value": value} for name, value in hyper_parameters.items()],
        "inputs": [
            {
                "name": "data_url",
                "remote": {
                    "dataset": {
                        "id": config.get("datasetId") or "2ff0d6ba-c480-45ae-be41-09a8369bfc90",
                        "version_id": config.get("datasetVersionId") or "Y35cQ9VGbgwYAlSpBRU",
                    }
                },
            },
            {
                "name": "pretrained_url",
                "remote": {"obs": {"obs_url": f"/{bucket}/models/resnet50-pretrained/"}},
            },
        ],
        "outputs": [{"name": "train_url", "remote": {"obs": {"obs_url": f"/{bucket}/output/resnet/"}}}],
    },
    spec={
        "resource": {"flavor_id": config.get("flavorId") or "modelarts.vm.p100.large.eco", "node_count": 1}
    },
)

pulumi.export("job_id", job.id)
pulumi.export("phase", job.phase)
pulumi.export("hyper_parameters", hyper_parameters)
pulumi.export("inputs", job.algorithm["inputs"])
pulumi.export("output_url", job.algorithm["outputs"][0]["remote"]["obs"]["obs_url"])
