// Command pulumi-sdkgen turns a Pulumi package schema into the Python, Node.js and Go SDKs, using Pulumi's own
// code generators (the packages `pulumi package gen-sdk` delegates to through the language hosts).
//
//	pulumi-sdkgen -schema schema.json -out sdk
//
// writes sdk/python, sdk/nodejs and sdk/go. Each of those directories is owned by the generator: files it no
// longer produces are removed, files whose content is unchanged are left untouched. The same schema always
// gives byte-identical files.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime/debug"
	"sort"
	"strings"

	"github.com/blang/semver"
	"github.com/hashicorp/hcl/v2"
	"golang.org/x/mod/modfile"

	gogen "github.com/pulumi/pulumi/pkg/v3/codegen/go"
	"github.com/pulumi/pulumi/pkg/v3/codegen/nodejs"
	"github.com/pulumi/pulumi/pkg/v3/codegen/python"
	"github.com/pulumi/pulumi/pkg/v3/codegen/schema"
)

const (
	pulumiSDKModule = "github.com/pulumi/pulumi/sdk/v3"
	codegenModule   = "github.com/pulumi/pulumi/pkg/v3"
)

// languages is the fixed set of SDKs, in the order they are generated.
var languages = []string{"python", "nodejs", "go"}

func main() {
	schemaPath := flag.String("schema", "", "the Pulumi package schema (JSON)")
	outDir := flag.String("out", "", "directory that receives python/, nodejs/ and go/")
	flag.Parse()
	if *schemaPath == "" || *outDir == "" || flag.NArg() != 0 {
		fmt.Fprintln(os.Stderr, "usage: pulumi-sdkgen -schema schema.json -out sdk")
		os.Exit(2)
	}
	if err := run(*schemaPath, *outDir); err != nil {
		fmt.Fprintf(os.Stderr, "pulumi-sdkgen: %v\n", err)
		os.Exit(1)
	}
}

func run(schemaPath, outDir string) error {
	codegenVersion, sdkVersion, err := buildVersions()
	if err != nil {
		return err
	}
	pkg, err := bind(schemaPath)
	if err != nil {
		return err
	}
	// The header of every generated file names this; regenerating with another codegen version shows up there.
	tool := "scripts/sdk (Pulumi codegen " + codegenVersion + ")"
	for _, lang := range languages {
		files, err := generate(lang, tool, pkg, sdkVersion)
		if err != nil {
			return fmt.Errorf("%s SDK: %w", lang, err)
		}
		if err := sync(filepath.Join(outDir, lang), files); err != nil {
			return fmt.Errorf("%s SDK: %w", lang, err)
		}
	}
	return nil
}

// buildVersions reads, from this binary's own build information, the codegen version it was built with and the
// Pulumi Go SDK version that goes with it, so the generated Go SDK requires exactly the SDK the generator knows.
func buildVersions() (codegen, sdk string, err error) {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "", "", errors.New("no build information in this binary; build it with module support")
	}
	for _, dep := range info.Deps {
		mod := dep
		if dep.Replace != nil {
			mod = dep.Replace
		}
		switch dep.Path {
		case codegenModule:
			codegen = mod.Version
		case pulumiSDKModule:
			sdk = mod.Version
		}
	}
	if codegen == "" || sdk == "" {
		return "", "", fmt.Errorf("build information lacks %s or %s", codegenModule, pulumiSDKModule)
	}
	return codegen, sdk, nil
}

// bind reads and validates the schema. Binding reports every problem with its location in the schema.
func bind(schemaPath string) (*schema.Package, error) {
	raw, err := os.ReadFile(schemaPath)
	if err != nil {
		return nil, err
	}
	var spec schema.PackageSpec
	decoder := json.NewDecoder(bytes.NewReader(raw))
	decoder.DisallowUnknownFields() // a misspelt top-level key would otherwise vanish silently
	if err := decoder.Decode(&spec); err != nil {
		return nil, fmt.Errorf("%s: %w", schemaPath, err)
	}
	pkg, diags, err := schema.BindSpec(spec, noDependencies{}, schema.ValidationOptions{})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", schemaPath, err)
	}
	var problems []string
	for _, d := range diags {
		text := d.Summary
		if d.Detail != "" {
			text += ": " + d.Detail
		}
		if d.Severity == hcl.DiagError {
			problems = append(problems, "  "+text)
		} else {
			fmt.Fprintf(os.Stderr, "pulumi-sdkgen: warning: %s: %s\n", schemaPath, text)
		}
	}
	if len(problems) > 0 {
		return nil, fmt.Errorf("%s is not a valid package schema:\n%s", schemaPath, strings.Join(problems, "\n"))
	}
	return pkg, nil
}

func generate(lang, tool string, pkg *schema.Package, sdkVersion string) (map[string][]byte, error) {
	loader := noDependencies{}
	switch lang {
	case "python":
		files, err := python.GeneratePackage(tool, pkg, nil, loader)
		if err != nil {
			return nil, err
		}
		if err := addPythonReadme(files); err != nil {
			return nil, err
		}
		return files, asksForPlugin(files, "pulumi-plugin.json", pkg)
	case "nodejs":
		files, err := nodejs.GeneratePackage(tool, pkg, nil, nil, false, loader)
		if err != nil {
			return nil, err
		}
		return files, asksForPlugin(files, "package.json", pkg)
	case "go":
		files, err := gogen.GeneratePackage(tool, pkg, nil)
		if err != nil {
			return nil, err
		}
		if err := pinGoSDK(files, sdkVersion); err != nil {
			return nil, err
		}
		return files, asksForPlugin(files, "pulumi-plugin.json", pkg)
	}
	return nil, fmt.Errorf("unknown language %q", lang)
}

// addPythonReadme puts the package's README beside pyproject.toml, which names it as the project's readme: the
// generator writes it only inside the package, and without it the SDK cannot be built into a wheel.
func addPythonReadme(files map[string][]byte) error {
	if _, ok := files["README.md"]; ok {
		return nil
	}
	for name := range files {
		if dir, base := path.Split(name); base == "pulumi-plugin.json" && strings.Count(dir, "/") == 1 {
			if readme, ok := files[dir+"README.md"]; ok {
				files["README.md"] = readme
				return nil
			}
		}
	}
	return errors.New("the Python generator wrote no README.md beside pulumi-plugin.json")
}

// asksForPlugin checks that the SDK's plugin metadata (pulumi-plugin.json, or the "pulumi" block of
// package.json) asks the engine for the provider plugin: "resource": true, the package's name and version, and
// the server it is downloaded from (the schema's pluginDownloadURL). A program using the SDK then gets the plugin
// installed by the engine itself, from the release archives, with no Pulumi.yaml `plugins:` block.
func asksForPlugin(files map[string][]byte, base string, pkg *schema.Package) error {
	found := 0
	for name, content := range files {
		if path.Base(name) != base {
			continue
		}
		var meta struct {
			Resource bool   `json:"resource"`
			Name     string `json:"name"`
			Version  string `json:"version"`
			Server   string `json:"server"`
		}
		if base == "package.json" {
			var manifest struct {
				Pulumi json.RawMessage `json:"pulumi"`
			}
			if err := json.Unmarshal(content, &manifest); err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
			content = manifest.Pulumi
		}
		if err := json.Unmarshal(content, &meta); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		version := ""
		if pkg.Version != nil {
			version = pkg.Version.String()
		}
		if !meta.Resource || meta.Name != pkg.Name || meta.Version != version || meta.Server != pkg.PluginDownloadURL {
			return fmt.Errorf("%s: the plugin metadata %s does not ask for plugin %s %s from %q", name,
				strings.Join(strings.Fields(string(content)), " "), pkg.Name, version, pkg.PluginDownloadURL)
		}
		found++
	}
	if found == 0 {
		return fmt.Errorf("the generator wrote no %s", base)
	}
	return nil
}

// pinGoSDK makes the generated go.mod require the Pulumi Go SDK of the generator's own version (the generator
// writes a fixed older minimum). Only packages that set meta.supportPack get a go.mod.
func pinGoSDK(files map[string][]byte, sdkVersion string) error {
	raw, ok := files["go.mod"]
	if !ok {
		return errors.New("the Go generator wrote no go.mod: set \"meta\": {\"supportPack\": true} in the schema")
	}
	mod, err := modfile.Parse("go.mod", raw, nil)
	if err != nil {
		return err
	}
	if err := mod.AddRequire(pulumiSDKModule, sdkVersion); err != nil {
		return err
	}
	mod.Cleanup()
	formatted, err := mod.Format()
	if err != nil {
		return err
	}
	files["go.mod"] = formatted
	return nil
}

// sync makes dir hold exactly files: it writes new and changed files, removes the others and any directory left
// empty. Unchanged files keep their modification time, so builds that depend on them are not redone.
func sync(dir string, files map[string][]byte) error {
	wanted := make(map[string]bool, len(files))
	names := make([]string, 0, len(files))
	for name := range files {
		clean := filepath.Clean(filepath.FromSlash(name))
		if !filepath.IsLocal(clean) {
			return fmt.Errorf("generated file %q is outside the SDK directory", name)
		}
		wanted[clean] = true
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		file := filepath.Join(dir, filepath.FromSlash(name))
		if old, err := os.ReadFile(file); err == nil && bytes.Equal(old, files[name]) {
			continue
		}
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(file, files[name], 0o644); err != nil {
			return err
		}
	}

	var stale, dirs []string
	err := filepath.WalkDir(dir, func(file string, entry fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, file)
		if err != nil {
			return err
		}
		if entry.IsDir() {
			if rel != "." {
				dirs = append(dirs, file)
			}
			return nil
		}
		if !wanted[rel] {
			stale = append(stale, file)
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, file := range stale {
		if err := os.Remove(file); err != nil {
			return err
		}
	}
	// Deepest first, so a directory whose subdirectories were all removed goes too.
	sort.Sort(sort.Reverse(sort.StringSlice(dirs)))
	for _, file := range dirs {
		if entries, err := os.ReadDir(file); err == nil && len(entries) == 0 {
			if err := os.Remove(file); err != nil {
				return err
			}
		}
	}
	return nil
}

// noDependencies is the schema loader for a package that stands alone: the modelarts schema references no
// other Pulumi package, and a reference to one is an error rather than a reason to download a plugin.
type noDependencies struct{}

var _ schema.ReferenceLoader = noDependencies{}

func refused(name string) error {
	return fmt.Errorf("the schema refers to package %q; this generator only handles packages without dependencies",
		name)
}

func (noDependencies) LoadPackage(name string, _ *semver.Version) (*schema.Package, error) {
	return nil, refused(name)
}

func (noDependencies) LoadPackageV2(_ context.Context, d *schema.PackageDescriptor) (*schema.Package, error) {
	return nil, refused(d.Name)
}

func (noDependencies) LoadPackageReference(name string, _ *semver.Version) (schema.PackageReference, error) {
	return nil, refused(name)
}

func (noDependencies) LoadPackageReferenceV2(
	_ context.Context, d *schema.PackageDescriptor,
) (schema.PackageReference, error) {
	return nil, refused(d.Name)
}
