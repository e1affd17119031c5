//go:build !linux

package safeout

// exchange is not available outside Linux; Publish renames aside instead.
func exchange(a, b string) error { return errNoExchange }
