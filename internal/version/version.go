// Package version holds tracereplay's version: the one string that every
// command's --version prints and that trace metadata, results metadata and
// manifests record.
package version

// Version is tracereplay's version (semantic versioning, no "v" prefix).
const Version = "0.1.0"

// Tool names a command and the version, as outputs record it:
// "tracereplay ingest 0.1.0".
func Tool(command string) string { return "tracereplay " + command + " " + Version }
