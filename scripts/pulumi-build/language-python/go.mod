module example.invalid/pulumi-language-python

go 1.26

require github.com/pulumi/pulumi/sdk/v3 v3.79.0
