// Huawei Cloud ModelArts training jobs as Pulumi resources.
package modelarts
