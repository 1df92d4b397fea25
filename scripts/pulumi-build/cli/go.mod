module example.invalid/pulumi-cli

go 1.26

require github.com/pulumi/pulumi/pkg/v3 v3.259.0

replace github.com/atotto/clipboard => github.com/tgummerer/clipboard v0.0.0-20241001131231-d02d263e614e
