"""A custom image on a dedicated resource pool: an NFS volume, log export, environment variables, tags.

The job runs the image's own start command (``algorithm.command``) on one node of a dedicated pool, mounts an
NFS share, and exports its logs to OBS. Environment variables are kept secret in the state.

Runs against the embedded emulator as is (``scripts/demo`` style: HW_MODELARTS_ENDPOINT, HW_ACCESS_KEY,
HW_SECRET_KEY, HW_PROJECT_ID pointing at it). For the cloud, set your own values, no code change:

    pulumi config set modelarts:region cn-north-4
    pulumi config set modelarts:projectId <project id>
    pulumi config set modelarts:accessKey <access key>
    pulumi config set --secret modelarts:secretKey <secret key>
    pulumi config set image <swr org>/<image>:<tag>
    pulumi config set poolId <dedicated pool id>
    pulumi config set flavorId <flavor of that pool>
    pulumi config set nfsServerPath <server>:/<export>
    pulumi config set logObsUrl /<bucket>/<path>/
"""

import pulumi

from pulumi_modelarts import TrainingJob

config = pulumi.Config()

job = TrainingJob(
    "ddp-demo",
    metadata={"description": "DDP training on a custom image"},
    algorithm={
        "engine": {"image_url": config.get("image") or "my-org/fastseq:1.2"},
        "command": "cd /home/ma-user/ddp_demo && sh run_ddp.sh",
        "environments": {"NCCL_DEBUG": "INFO", "NCCL_IB_DISABLE": "0"},
    },
    spec={
        "resource": {
            "flavor_id": config.get("flavorId") or "modelarts.pool.visual.xlarge",
            "node_count": 1,
            "pool_id": config.get("poolId") or "poolfaf38d76",
        },
        "log_export_path": {"obs_url": config.get("logObsUrl") or "/my-bucket/ddp-demo/logs/"},
        "volumes": [
            {
                "nfs": {
                    "nfs_server_path": config.get("nfsServerPath") or "192.168.0.82:/",
                    "local_path": "/home/ma-user/nfs/",
                    "read_only": False,
                }
            }
        ],
    },
    # Go on once the containers run: a broken image or pool shows up in this `pulumi up`.
    wait_for="running",
    # Who owns the job and who pays for it, as the account's cost reports group them; change in place.
    tags={"team": config.get("team") or "nlp", "cost-center": config.get("costCenter") or "research-42"},
)

pulumi.export("job_id", job.id)
pulumi.export("job_name", job.name)
pulumi.export("phase", job.phase)
pulumi.export("tags", job.tags)
pulumi.export("log_export_path", job.spec.apply(lambda spec: spec.get("log_export_path")))
