//go:build gcs

package store

import _ "gocloud.dev/blob/gcsblob" // gs://, with Google's client libraries

// gcsLinked reports whether gs:// URLs can be opened (the gcs build tag).
const gcsLinked = true
