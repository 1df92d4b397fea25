// One custom-image training job through the native modelarts provider; exports its id and phase.
package main

import (
	"github.com/pulumi-modelarts/pulumi-modelarts/sdk/go/modelarts"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

func main() {
	pulumi.Run(func(ctx *pulumi.Context) error {
		job, err := modelarts.NewTrainingJob(ctx, "train", &modelarts.TrainingJobArgs{
			Metadata: &modelarts.TrainingJobMetadataArgs{Description: pulumi.String("nightly training")},
			Algorithm: &modelarts.TrainingJobAlgorithmArgs{
				Engine:       &modelarts.TrainingJobEngineArgs{ImageUrl: pulumi.String("org/train:1.0")},
				Command:      pulumi.String("python train.py"),
				Environments: pulumi.StringMap{"EPOCHS": pulumi.String("10")},
			},
			Spec: &modelarts.TrainingJobSpecArgs{
				Resource: &modelarts.TrainingJobResourceArgs{
					FlavorId:  pulumi.String("modelarts.vm.cpu.8u"),
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
		return nil
	})
}
