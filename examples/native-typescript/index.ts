// One custom-image training job through the native modelarts provider; exports its id and phase, and how many
// jobs of the project are running once it runs.
import * as pulumi from "@pulumi/pulumi";
import * as modelarts from "@pulumi-modelarts/modelarts";

const job = new modelarts.TrainingJob("train", {
    metadata: { description: "nightly training" },
    algorithm: {
        engine: { imageUrl: "org/train:1.0" },
        command: "python train.py",
        environments: { EPOCHS: "10" },
    },
    spec: { resource: { flavorId: "modelarts.vm.cpu.8u", nodeCount: 1 } },
    waitFor: "running",
}, { customTimeouts: { create: "20m" } });

export const id = job.id;
export const phase = job.phase;
// The lookup waits for the job (dependsOn), which the create waited for until Running: the count includes it.
export const running = modelarts.getTrainingJobsOutput({ phases: ["Running"] }, { dependsOn: [job] })
    .jobs.apply(jobs => jobs.length);
