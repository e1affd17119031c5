package results

import (
	"bytes"
	"errors"
	"io"

	"github.com/tracereplay/tracereplay/internal/pqfile"
)

// SchemaVersion is the version of the results schema, recorded under
// MetaSchemaVersion in each run's jobs.parquet. Version 2 added the status
// column of jobs.parquet; version 1 (files without the key) has none, and
// reads with status "".
const SchemaVersion = "2"

// MetaSchemaVersion is the key/value metadata key of jobs.parquet that holds
// SchemaVersion.
const MetaSchemaVersion = "tracereplay.results_schema_version"

// jobRowV1 is a jobs.parquet row of results schema version 1: JobRow without
// its status.
type jobRowV1 struct {
	Policy   string `parquet:"policy"`
	JobIndex int32  `parquet:"job_index"`
	JobID    string `parquet:"job_id"`
	Name     string `parquet:"name"`
	User     string `parquet:"user"`
	Queue    string `parquet:"queue"`
	Maps     int32  `parquet:"maps"`
	Reduces  int32  `parquet:"reduces"`

	SubmitUs            int64  `parquet:"submit_us"`
	FirstLaunchUs       *int64 `parquet:"first_launch_us,optional"`
	LastMapEndUs        *int64 `parquet:"last_map_end_us,optional"`
	FirstReduceLaunchUs *int64 `parquet:"first_reduce_launch_us,optional"`
	LastReduceLaunchUs  *int64 `parquet:"last_reduce_launch_us,optional"`
	FinishUs            *int64 `parquet:"finish_us,optional"`

	FlowtimeUs   *int64   `parquet:"flowtime_us,optional"`
	IdealUs      int64    `parquet:"ideal_us"`
	AloneUs      *int64   `parquet:"alone_us,optional"`
	WaitingUs    *int64   `parquet:"waiting_us,optional"`
	StarvationUs int64    `parquet:"starvation_us"`
	Slowdown     *float64 `parquet:"slowdown,optional"`

	MapsNodeLocal int32 `parquet:"maps_node_local"`
	MapsRackLocal int32 `parquet:"maps_rack_local"`
	MapsOffRack   int32 `parquet:"maps_off_rack"`
	ReducesLate   int32 `parquet:"reduces_late"`

	InputBytes         *int64 `parquet:"input_bytes,optional"`
	ShuffleBytes       *int64 `parquet:"shuffle_bytes,optional"`
	OutputBytes        *int64 `parquet:"output_bytes,optional"`
	ObservedFlowtimeUs *int64 `parquet:"observed_flowtime_us,optional"`
}

func (r *jobRowV1) row() JobRow {
	return JobRow{Policy: r.Policy, JobIndex: r.JobIndex, JobID: r.JobID, Name: r.Name, User: r.User, Queue: r.Queue,
		Maps: r.Maps, Reduces: r.Reduces, SubmitUs: r.SubmitUs, FirstLaunchUs: r.FirstLaunchUs,
		LastMapEndUs: r.LastMapEndUs, FirstReduceLaunchUs: r.FirstReduceLaunchUs, LastReduceLaunchUs: r.LastReduceLaunchUs,
		FinishUs: r.FinishUs, FlowtimeUs: r.FlowtimeUs, IdealUs: r.IdealUs, AloneUs: r.AloneUs, WaitingUs: r.WaitingUs,
		StarvationUs: r.StarvationUs, Slowdown: r.Slowdown, MapsNodeLocal: r.MapsNodeLocal, MapsRackLocal: r.MapsRackLocal,
		MapsOffRack: r.MapsOffRack, ReducesLate: r.ReducesLate, InputBytes: r.InputBytes, ShuffleBytes: r.ShuffleBytes,
		OutputBytes: r.OutputBytes, ObservedFlowtimeUs: r.ObservedFlowtimeUs}
}

// ReadJobRows reads a run's jobs.parquet of this results schema or of
// version 1 (no status column: the rows read with status "").
func ReadJobRows(path string) ([]JobRow, error) {
	b, err := readWhole(path)
	if err != nil {
		return nil, err
	}
	return DecodeJobRows(path, bytes.NewReader(b), int64(len(b)))
}

// DecodeJobRows is ReadJobRows of the file r of size bytes; path names it in
// errors.
func DecodeJobRows(path string, r io.ReaderAt, size int64) ([]JobRow, error) {
	// This schema's files are read with one open; a file without the status
	// column fails the column check and is opened again as version 1.
	rows, _, err := pqfile.Read[JobRow](r, size, pqfile.Options{CheckFooter: true, Small: true, Columns: pqfile.SameNames})
	var e *pqfile.Error
	if err == nil || !errors.As(err, &e) || e.Stage != pqfile.Columns {
		if err != nil {
			return nil, readError(path, err)
		}
		return rows, nil
	}
	pf, oerr := pqfile.OpenFile(r, size, pqfile.Options{CheckFooter: true, Small: true})
	if oerr != nil {
		return nil, readError(path, oerr)
	}
	if _, ok := pf.Schema().Lookup("status"); ok {
		return nil, readError(path, err)
	}
	old, err := DecodeParquet[jobRowV1](path, r, size)
	if err != nil {
		return nil, err
	}
	rows = make([]JobRow, len(old))
	for i := range old {
		rows[i] = old[i].row()
	}
	return rows, nil
}
