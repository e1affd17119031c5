package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/tracereplay/tracereplay/internal/cli"
	"github.com/tracereplay/tracereplay/internal/version"
	"github.com/tracereplay/tracereplay/trace"
)

// Sharded ingest of a JobHistory tree too big for one machine:
//
//	ingest shard --shard K/N --out WORK [ingest flags] TREE   (N times, anywhere)
//	ingest merge --shards N --out TRACE WORK
//
// The tree's files are listed in lexical path order and grouped by the job id
// in their names (job_<cluster>_<n>: a history and its _conf.xml stay
// together); group i goes to shard i mod N. Each shard reads its files as
// `ingest TREE` would and publishes WORK/shard-K-of-N atomically, so that a
// shard is either absent or complete; a shard whose directory is there for the
// same tree is skipped (--force redoes it). merge checks every shard, refuses
// shards of another listing of the tree, and writes the merged trace.
//
// A Rumen topology or SLS node file in the tree fills racks only in the shard
// it falls into: give the topology to every shard with --topology.

// jobKey is the job id in a history's or configuration's file name.
var jobKey = regexp.MustCompile(`job_\d+_\d+`)

// Option keys a shard records in its trace's metadata.
const (
	optShard     = "shard"       // "K/N"
	optTreeSHA   = "tree_sha256" // hash of the tree's sorted listing
	shardDirForm = "shard-%d-of-%d"
)

// shardEnvVars are the variables --shard-from-env reads K from.
var shardEnvVars = []string{"SLURM_ARRAY_TASK_ID", "JOB_COMPLETION_INDEX", "AWS_BATCH_JOB_ARRAY_INDEX"}

// treeGroups lists the regular files under root in lexical order and groups
// them by job id; it returns the groups in order of their first file and the
// hash of the listing (relative paths and sizes).
func treeGroups(root string) ([][]string, string, error) {
	var files []string
	h := sha256.New()
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		st, err := os.Stat(p) // a symbolic link to a file counts as the file
		if err != nil || !st.Mode().IsRegular() {
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		files = append(files, rel)
		fmt.Fprintf(h, "%s\x00%d\n", filepath.ToSlash(rel), st.Size())
		return nil
	})
	if err != nil {
		return nil, "", fmt.Errorf("walk %s: %w", root, err)
	}
	idx := map[string]int{}
	var groups [][]string
	for _, f := range files {
		key := jobKey.FindString(filepath.Base(f))
		if key == "" {
			key = "file:" + f
		}
		i, ok := idx[key]
		if !ok {
			i = len(groups)
			idx[key] = i
			groups = append(groups, nil)
		}
		groups[i] = append(groups[i], f)
	}
	return groups, hex.EncodeToString(h.Sum(nil)), nil
}

// parseShardFlag reads K/N.
func parseShardFlag(s string) (int, int, error) {
	ks, ns, ok := strings.Cut(s, "/")
	k, err1 := strconv.Atoi(ks)
	n, err2 := strconv.Atoi(ns)
	if !ok || ns == "" {
		return 0, 0, fmt.Errorf("--shard %q: want K/N, e.g. --shard 0/3 (the shard count N is required)", s)
	}
	if err1 != nil || err2 != nil || n < 1 {
		return 0, 0, fmt.Errorf("--shard %q: want numbers K/N with N >= 1", s)
	}
	if k < 0 || k >= n {
		return 0, 0, fmt.Errorf("--shard %s: K must be in 0..%d (shards are numbered from 0)", s, n-1)
	}
	return k, n, nil
}

// runShard is `ingest shard`.
func runShard(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := pflag.NewFlagSet("ingest shard", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	shard := fs.String("shard", "", "read the groups of files whose index mod N is K (`K/N`)")
	fromEnv := fs.Bool("shard-from-env", false, "take K from "+strings.Join(shardEnvVars, ", ")+"; N from --shards")
	shards := fs.Int("shards", 0, "shard count `N` with --shard-from-env")
	out := fs.String("out", "", "work `DIR` shared by the shards: this one writes DIR/shard-K-of-N")
	force := fs.Bool("force", false, "redo the shard even if its directory is there")
	format := fs.String("format", "auto", "as ingest's --format")
	strict := fs.Bool("strict", false, "as ingest's --strict")
	topology := fs.String("topology", "", "as ingest's --topology")
	workers := fs.Int("workers", 0, "as ingest's --workers")
	fail := func(status int, format string, args ...any) int {
		fmt.Fprintf(stderr, "ingest shard: "+format+"\n", args...)
		return status
	}
	if err := fs.Parse(args); err != nil {
		fmt.Fprint(stderr, cli.BadUsage("ingest shard", "ingest shard", err))
		return exitUsage
	}
	if fs.NArg() != 1 || !isDir(fs.Arg(0)) {
		return fail(exitUsage, "want one job history directory (TREE), got %q", fs.Args())
	}
	if *out == "" {
		return fail(exitUsage, "--out DIR is required (the work directory every shard shares)")
	}
	var k, n int
	switch {
	case *shard != "" && *fromEnv:
		return fail(exitUsage, "give --shard K/N or --shard-from-env --shards N, not both")
	case *shard != "":
		var err error
		if k, n, err = parseShardFlag(*shard); err != nil {
			return fail(exitUsage, "%v", err)
		}
	case *fromEnv:
		if *shards < 1 {
			return fail(exitUsage, "--shard-from-env needs --shards N, the shard count (it is never taken from the environment)")
		}
		n = *shards
		k = -1
		for _, v := range shardEnvVars {
			if s := os.Getenv(v); s != "" {
				i, err := strconv.Atoi(s)
				if err != nil || i < 0 || i >= n {
					return fail(exitUsage, "--shard-from-env: %s=%q is not in 0..%d (--shards %d)", v, s, n-1, n)
				}
				k = i
				break
			}
		}
		if k < 0 {
			return fail(exitUsage, "--shard-from-env: none of %s is set", strings.Join(shardEnvVars, ", "))
		}
	default:
		return fail(exitUsage, "--shard K/N or --shard-from-env --shards N is required")
	}
	tree := fs.Arg(0)
	groups, treeSHA, err := treeGroups(tree)
	if err != nil {
		return fail(exitUsage, "%v", err)
	}
	dir := filepath.Join(*out, fmt.Sprintf(shardDirForm, k, n))
	if !*force {
		if t, err := trace.Read(dir); err == nil && t.Meta.Options[optTreeSHA] == treeSHA {
			fmt.Fprintf(stderr, "ingest shard: skip %s: done for this tree (--force redoes it)\n", dir)
			return exitOK
		}
	}
	var mine []string
	for i, g := range groups {
		if i%n == k {
			mine = append(mine, g...)
		}
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return fail(exitFail, "--out: %v", err)
	}
	dst, status := openOut(ctx, dir, *force, stderr)
	if dst == nil {
		return status
	}
	defer dst.close()
	t := &trace.Trace{}
	if len(mine) > 0 {
		// The shard's files, as links under a folder of their own, read as a
		// tree; diagnostics name the files by their path in TREE.
		links, err := os.MkdirTemp("", "tracereplay-ingest-shard-*")
		if err != nil {
			return fail(exitFail, "%v", err)
		}
		defer os.RemoveAll(links)
		abs, err := filepath.Abs(tree)
		if err != nil {
			return fail(exitFail, "%v", err)
		}
		for _, f := range mine {
			p := filepath.Join(links, f)
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				return fail(exitFail, "%v", err)
			}
			if err := os.Symlink(filepath.Join(abs, f), p); err != nil {
				return fail(exitFail, "%v", err)
			}
		}
		ew := &replaceWriter{w: stderr, old: links, new: filepath.Clean(tree)}
		warnings := newWarnWriter(ew)
		opt := trace.ReadOptions{Strict: *strict, Warnings: warnings}
		var trees treeTotals
		var pf trace.Format
		t, pf, err = readTree(ctx, links, *format, *workers, opt, ew, &trees)
		warnings.flush()
		var pe *trace.ParseError
		if errors.As(err, &pe) && strings.HasPrefix(pe.Msg, "no ") && pe.File == links {
			t, err = &trace.Trace{}, nil // no history in this shard's files (configurations only, say)
		}
		if err != nil {
			return fail(statusOf(err), "%s", strings.ReplaceAll(err.Error(), links, filepath.Clean(tree)))
		}
		t.Meta.SourceFormat = pf.Name
	}
	t.Meta.SchemaVersion = trace.SchemaVersion
	t.Meta.Tool = version.Tool("ingest")
	t.Meta.Options = map[string]string{"format": *format, "strict": strconv.FormatBool(*strict),
		optShard: fmt.Sprintf("%d/%d", k, n), optTreeSHA: treeSHA}
	t.Meta.Sources = []string{tree}
	if *topology != "" {
		topo, err := readTopology(*topology)
		if err != nil {
			return fail(statusOf(err), "--topology: %v", err)
		}
		trace.FillRacks(t, topo)
		t.Meta.Options["topology"] = *topology
	}
	fmt.Fprintf(stderr, "ingest shard: %d/%d: %d of %d files (%d jobs)\n", k, n, len(mine), countFiles(groups), len(t.Jobs))
	return write(dst, t, treeTotals{}, stdout, func(status int, format string, args ...any) int {
		return fail(status, format, args...)
	})
}

func countFiles(groups [][]string) int {
	n := 0
	for _, g := range groups {
		n += len(g)
	}
	return n
}

// replaceWriter writes to w with old replaced by new in every write (the
// shard's folder of links by the tree's path).
type replaceWriter struct {
	w        io.Writer
	old, new string
}

func (r *replaceWriter) Write(p []byte) (int, error) {
	_, err := io.WriteString(r.w, strings.ReplaceAll(string(p), r.old, r.new))
	return len(p), err
}

// runMergeShards is `ingest merge`.
func runMergeShards(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := pflag.NewFlagSet("ingest merge", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	shards := fs.Int("shards", 0, "the shard count `N` (required)")
	out := fs.String("out", "", "the merged trace `DIR`")
	force := fs.Bool("force", false, "replace --out even if it holds files ingest did not write")
	fail := func(status int, format string, args ...any) int {
		fmt.Fprintf(stderr, "ingest merge: "+format+"\n", args...)
		return status
	}
	if err := fs.Parse(args); err != nil {
		fmt.Fprint(stderr, cli.BadUsage("ingest merge", "ingest merge", err))
		return exitUsage
	}
	if fs.NArg() != 1 || *out == "" || *shards < 1 {
		return fail(exitUsage, "usage: ingest merge --shards N --out DIR WORK (WORK holds shard-K-of-N)")
	}
	work := fs.Arg(0)
	var parts []*trace.Trace
	var missing []string
	treeSHA, format := "", ""
	var sources []string
	for k := range *shards {
		dir := filepath.Join(work, fmt.Sprintf(shardDirForm, k, *shards))
		t, err := trace.Read(dir)
		if err != nil {
			missing = append(missing, strconv.Itoa(k))
			fmt.Fprintf(stderr, "ingest merge: missing shard %s: %v\n", dir, err)
			continue
		}
		if treeSHA == "" {
			treeSHA, sources = t.Meta.Options[optTreeSHA], t.Meta.Sources
		} else if t.Meta.Options[optTreeSHA] != treeSHA {
			return fail(exitUsage, "%s is of another listing of the tree (tree_sha256 %.16s, not %.16s): the tree changed between shards; redo that shard with --force", dir, t.Meta.Options[optTreeSHA], treeSHA)
		}
		if len(t.Jobs) == 0 {
			continue
		}
		if format != "" && t.Meta.SourceFormat != format {
			return fail(exitUsage, "%s is %s, another shard %s", dir, t.Meta.SourceFormat, format)
		}
		format = t.Meta.SourceFormat
		parts = append(parts, t)
	}
	if len(missing) > 0 {
		return fail(exitFail, "%d of %d shards missing; resubmit --array=%s", len(missing), *shards, strings.Join(missing, ","))
	}
	if len(parts) == 0 {
		return fail(exitUsage, "no jobs in any shard of %s", work)
	}
	f, err := trace.LookupFormat(format)
	if err != nil {
		f = trace.Format{Name: format}
	}
	t, err := trace.Merge(f, parts)
	if err != nil {
		return fail(exitUsage, "%v", err)
	}
	t.Meta.SchemaVersion = trace.SchemaVersion
	t.Meta.Tool = version.Tool("ingest")
	opts := parts[0].Meta.Options
	t.Meta.Options = map[string]string{}
	for key, v := range opts {
		if key != optShard {
			t.Meta.Options[key] = v
		}
	}
	t.Meta.Options["shards"] = strconv.Itoa(*shards)
	t.Meta.Sources = slices.Clone(sources)
	dst, status := openOut(ctx, *out, *force, stderr)
	if dst == nil {
		return status
	}
	defer dst.close()
	return write(dst, t, treeTotals{}, stdout, fail)
}
