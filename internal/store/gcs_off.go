//go:build !gcs

package store

// gcsLinked reports whether gs:// URLs can be opened: not without the gcs
// build tag, which would link Google's client libraries (about 30 more
// modules and twice the binary) into every build.
const gcsLinked = false
