// Package samples embeds the bundled sample trace and hardware model, so that
// `replay` with no arguments runs without any set-up.
package samples

import _ "embed"

// SampleTraceName is the file name of the embedded sample trace.
const SampleTraceName = "samples/traces/fb2009-first50.tsv"

// SampleTrace is the first 50 jobs of SWIM's FB-2009 workload (BSD-3-Clause; see
// traces/README.md).
//
//go:embed traces/fb2009-first50.tsv
var SampleTrace []byte

// SampleHardwareName is the file name of the embedded hardware model.
const SampleHardwareName = "samples/hardware/fb-600.toml"

// SampleHardware is the 600-node model of Facebook's 2009 cluster.
//
//go:embed hardware/fb-600.toml
var SampleHardware []byte
