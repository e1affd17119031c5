package main

import (
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"

	"github.com/spf13/pflag"

	"github.com/tracereplay/tracereplay/internal/version"
	"github.com/tracereplay/tracereplay/report/preset/workloads"
	"github.com/tracereplay/tracereplay/trace"
)

// runGenerate is ingest --generate: it makes a synthetic trace from the named
// generator, its --param key=value pairs and --seed, and writes it to out.
// Parameter values are passed as strings; the generator parses and checks them.
// Unless GOMEMLIMIT or GOGC is set, it runs under trace.GenerateMemoryLimit.
func runGenerate(fs *pflag.FlagSet, name string, params []string, seed uint64, out *outDir, stdout, stderr io.Writer) int {
	fail := func(status int, format string, args ...any) int {
		fmt.Fprintf(stderr, "ingest: "+format+"\n", args...)
		return status
	}
	switch {
	case name == "":
		return fail(exitUsage, "--param and --seed need --generate NAME\n%s", usageHint())
	case fs.NArg() > 0:
		return fail(exitUsage, "--generate takes no input files (got %s)", strings.Join(fs.Args(), " "))
	case fs.Changed("format") || fs.Changed("strict") || fs.Changed("topology") || fs.Changed("workers"):
		return fail(exitUsage, "--format, --strict, --topology and --workers apply to input files, not to --generate")
	}
	p := trace.GenParams{}
	for _, kv := range params {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return fail(exitUsage, "--param %q: want key=value", kv)
		}
		if _, dup := p[k]; dup {
			return fail(exitUsage, "--param %s given twice", k)
		}
		p[k] = v
	}
	if os.Getenv("GOMEMLIMIT") == "" && os.Getenv("GOGC") == "" {
		defer debug.SetMemoryLimit(debug.SetMemoryLimit(trace.GenerateMemoryLimit))
	}
	t, err := workloads.Generate(name, p, seed)
	if err != nil {
		return fail(exitUsage, "%v", err)
	}
	t.Meta.SchemaVersion = trace.SchemaVersion
	t.Meta.Tool = version.Tool("ingest")
	return write(out, t, treeTotals{}, stdout, fail)
}
