// Package report reads the results datasets that cmd/replay writes, computes
// per-run statistics, and renders them as tables (text, Markdown, CSV) and figures
// (PNG, SVG, PDF via gonum/plot). It reads results through their schema,
// internal/results, and does not link the simulator. The paper presets (report
// --preset) are packages of their own under report/preset, which build on the
// figure and series helpers exported here (Figure, SeriesStyle, MeanBand,
// WriteFigureSet, ...).
//
// A results tree holds one directory per run; a run directory is any directory that
// contains jobs.parquet. Its labels are the key=value segments of its path (Hive
// partitioning, e.g. policy=fair/hw=small/seed=3), so that runs of an experiment can
// be told apart and sorted without reading a manifest.
//
// Percentiles use the nearest-rank definition: the p-th percentile of n values is
// the ceil(p·n)-th smallest value (the smallest observed value with at least a
// fraction p of the values at or below it), so every reported percentile is the
// flowtime of a real job.
package report
