// One custom-image training job through the native modelarts provider, on the account's 8-core CPU flavor (from
// its catalogue); exports its id and phase, how many jobs of the project are running once it runs, and the ids
// of the PyTorch engines the account lists.
import * as pulumi from "@pulumi/pulumi";
import * as modelarts from "@pulumi-modelarts/modelarts";

const flavorId = modelarts.getTrainingJobFlavorsOutput({ flavorType: "CPU" }).flavors.apply(flavors => {
    const eightCores = flavors.find(f => f.flavorInfo?.cpu?.coreNum === 8);
    if (!eightCores?.flavorId) {
        throw new Error("the account is offered no 8-core CPU flavor");
    }
    return eightCores.flavorId;
});

const job = new modelarts.TrainingJob("train", {
    metadata: { description: "nightly training" },
    algorithm: {
        engine: { imageUrl: "org/train:1.0" },
        command: "python train.py",
        environments: { EPOCHS: "10" },
    },
    spec: { resource: { flavorId, nodeCount: 1 } },
    waitFor: "running",
}, { customTimeouts: { create: "20m" } });

export const id = job.id;
export const phase = job.phase;
// The lookup waits for the job (dependsOn), which the create waited for until Running: the count includes it.
export const running = modelarts.getTrainingJobsOutput({ phases: ["Running"] }, { dependsOn: [job] })
    .jobs.apply(jobs => jobs.length);
export const flavor = flavorId;
export const pytorchEngines = modelarts.getTrainingJobEnginesOutput({}).engines
    .apply(engines => engines.filter(e => e.engineName === "PyTorch").map(e => e.engineId));
