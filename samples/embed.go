// Package samples embeds the bundled sample trace and hardware model, so that
// `replay` with no arguments runs without any set-up.
package samples

import _ "embed"

// SampleTraceName is the file name of the embedded sample trace.
const SampleTraceName = "samples/traces/fb2009-day.tsv"

// SampleTrace is the whole day of SWIM's FB-2009 workload, 5,894 jobs
// (BSD-3-Clause; see traces/README.md): `replay` with no --trace replays it.
// Its first 50 jobs, traces/fb2009-first50.tsv, stay a file for tests and
// experiments/ci-sample.toml and are not embedded.
//
//go:embed traces/fb2009-day.tsv
var SampleTrace []byte

// SampleHardwareName is the file name of the embedded hardware model.
const SampleHardwareName = "samples/hardware/fb-600.toml"

// SampleHardware is the 600-node model of Facebook's 2009 cluster.
//
//go:embed hardware/fb-600.toml
var SampleHardware []byte
