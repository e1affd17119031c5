// Package safeout is the one output layer of tracereplay's commands: every file
// and directory they write goes through it, so that a user's data is never lost.
//
//   - WriteFile and WriteFileFunc write a file atomically: a hidden temporary
//     file beside it, fsync, rename over the target, fsync of the directory.
//     Readers see the old file or the complete new one.
//   - Open locks an output directory (flock on a hidden lock file beside it,
//     so a second concurrent writer fails at once), recovers what an
//     interrupted earlier run left beside it, and checks that the directory
//     may be replaced: it does not exist, is empty, or carries the ownership
//     marker (MarkerFile) of the same command and kind of output and holds
//     nothing the marker does not list. Anything else is refused (ErrNotOwned)
//     unless Options.Force is set.
//   - Target.Publish builds the new contents in a hidden temporary directory
//     beside the target, writes the marker, syncs, and swaps it into place with
//     one atomic exchange (renameat2 RENAME_EXCHANGE on Linux), so the target
//     is never missing; where the exchange is not available, the old directory
//     is renamed aside (.NAME.old-*) first and the next Open restores it if the
//     process died between the two renames.
package safeout
