// Package resultstest builds results rows for the tests of the packages that
// read them (report and its presets).
package resultstest

import "github.com/tracereplay/tracereplay/internal/results"

// Sec is one second in microseconds, the unit of result times.
const Sec = 1_000_000

// AllocRows makes the rows of an allocation study: every case, system, seed
// (1..seeds) and algorithm, the first algorithm fastest and most local, with a
// 100-server, 300-task system at q = 10 s, W = 40 s, C_loc = 20 s.
func AllocRows(cases, systems, algs []string, seeds int) []results.AllocRow {
	var rows []results.AllocRow
	for _, c := range cases {
		for si, s := range systems {
			for seed := 1; seed <= seeds; seed++ {
				ref := int64(0)
				for k, a := range algs {
					ms := int64(10*(si+1)*(k+1)+seed) * Sec
					if k == 0 {
						ref = ms
					}
					rows = append(rows, results.AllocRow{Case: c, System: s, Servers: 100, Tasks: 300, QUs: 10 * Sec, WUs: 40 * Sec,
						CLocUs: 20 * Sec, Seed: uint64(seed), Algorithm: a, MakespanUs: ms, LocalTasks: int32(270 - 30*k),
						RemoteTasks: int32(30 + 30*k), Locality: float64(90-10*k) / 100, Ratio: float64(ms) / float64(ref)})
				}
			}
		}
	}
	return rows
}

// T975DF1 is the 0.975 quantile of Student's t with one degree of freedom, the
// factor of a 95% interval over two seeds.
const T975DF1 = 12.706204736174703
