// One custom-image training job through the native modelarts provider, on the account's 8-core CPU flavor (from
// its catalogue); exports its id and phase, the flavor, and how many engines the account lists.
package main

import (
	"errors"

	"github.com/pulumi-modelarts/pulumi-modelarts/sdk/go/modelarts"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

// eightCoreFlavor is the id of the first flavor with 8 CPU cores, or "".
func eightCoreFlavor(flavors []modelarts.OfferedFlavor) string {
	for _, f := range flavors {
		if f.FlavorId != nil && f.FlavorInfo != nil && f.FlavorInfo.Cpu != nil &&
			f.FlavorInfo.Cpu.CoreNum != nil && *f.FlavorInfo.Cpu.CoreNum == 8 {
			return *f.FlavorId
		}
	}
	return ""
}

func main() {
	pulumi.Run(func(ctx *pulumi.Context) error {
		cpu, err := modelarts.GetTrainingJobFlavors(ctx, &modelarts.GetTrainingJobFlavorsArgs{
			FlavorType: pulumi.StringRef("CPU"),
		})
		if err != nil {
			return err
		}
		flavorID := eightCoreFlavor(cpu.Flavors)
		if flavorID == "" {
			return errors.New("the account is offered no 8-core CPU flavor")
		}
		engines, err := modelarts.GetTrainingJobEngines(ctx, &modelarts.GetTrainingJobEnginesArgs{})
		if err != nil {
			return err
		}
		job, err := modelarts.NewTrainingJob(ctx, "train", &modelarts.TrainingJobArgs{
			Metadata: &modelarts.TrainingJobMetadataArgs{Description: pulumi.String("nightly training")},
			Algorithm: &modelarts.TrainingJobAlgorithmArgs{
				Engine:       &modelarts.TrainingJobEngineArgs{ImageUrl: pulumi.String("org/train:1.0")},
				Command:      pulumi.String("python train.py"),
				Environments: pulumi.StringMap{"EPOCHS": pulumi.String("10")},
			},
			Spec: &modelarts.TrainingJobSpecArgs{
				Resource: &modelarts.TrainingJobResourceArgs{
					FlavorId:  pulumi.String(flavorID),
					NodeCount: pulumi.Int(1),
				},
			},
			WaitFor: pulumi.String("running"),
		}, pulumi.Timeouts(&pulumi.CustomTimeouts{Create: "20m"}))
		if err != nil {
			return err
		}
		ctx.Export("id", job.ID())
		ctx.Export("phase", job.Phase)
		ctx.Export("flavor", pulumi.String(flavorID))
		ctx.Export("engines", pulumi.Int(len(engines.Engines)))
		return nil
	})
}
