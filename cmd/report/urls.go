package main

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/tracereplay/tracereplay/internal/store"
)

// reportOutputFlags are the flags whose values report writes to: they stay
// local paths.
var reportOutputFlags = []string{"--out", "--html", "--arrow", "--markdown", "--junit"}

// localInputs replaces every results location given as a URL — a positional
// argument, --baseline or --candidate — by a local copy: a file:// URL by
// its path, a bucket URL (s3://…?endpoint=…&region=…, gs://, mem://; see
// internal/store) by a temporary directory holding its objects, which
// cleanup removes. An output flag given a bucket URL is bad usage.
func localInputs(ctx context.Context, args []string) (out []string, cleanup func(), err error) {
	var tmps []string
	cleanup = func() {
		for _, d := range tmps {
			os.RemoveAll(d)
		}
	}
	out = make([]string, len(args))
	for i, a := range args {
		flag, val, isFlagValue := strings.Cut(a, "=")
		if !strings.HasPrefix(a, "-") || !isFlagValue {
			flag, val = "", a
			if i > 0 && strings.HasPrefix(args[i-1], "--") && !strings.Contains(args[i-1], "=") {
				flag = args[i-1]
			}
		}
		out[i] = a
		if !strings.Contains(val, "://") {
			continue
		}
		for _, o := range reportOutputFlags {
			if flag == o && !store.IsLocal(val) {
				cleanup()
				return nil, nil, fmt.Errorf("%s %s: report writes its outputs to a local path", flag, val)
			}
		}
		if store.IsLocal(val) {
			p, err := store.LocalPath(val)
			if err != nil {
				cleanup()
				return nil, nil, err
			}
			out[i] = strings.Replace(a, val, p, 1)
			continue
		}
		d, err := os.MkdirTemp("", "tracereplay-report-*")
		if err != nil {
			cleanup()
			return nil, nil, err
		}
		tmps = append(tmps, d)
		if err := store.Download(ctx, val, d); err != nil {
			cleanup()
			return nil, nil, err
		}
		out[i] = strings.Replace(a, val, d, 1)
	}
	return out, cleanup, nil
}
