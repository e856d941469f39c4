package benchtable

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const output = `goos: linux
goarch: amd64
pkg: deliverylab/core/scene
cpu: Intel(R) Xeon(R) Processor
BenchmarkKernelEventsPerSecond-2   	      52	  22216888 ns/op	    360177 events/s
PASS
goos: js
goarch: wasm
pkg: deliverylab/core/scene
BenchmarkKernelEventsPerSecond   	      10	 102216888 ns/op	    90044 events/s
BenchmarkScrubberSeek   	       3	 433992635 ns/op	         2.970 median-ms	        42.63 worst-ms
--- BENCH: BenchmarkScrubberSeek
    seek_bench_test.go:1: a log line 12 34
size: main.wasm.gz 4765015
referee: 59 real runs, 22.4 s a run on average, the slowest 46.0 s (txn-zombie-fenced)
BenchmarkRefereeRun	59	22412 ms/run	46020 slowest-ms/run	11800 wall-ms/run
`

// Figures are read per architecture, unit by unit, with the -N suffix dropped; logs and
// other lines are passed over.
func TestParseReadsEachFigureWhereItRan(t *testing.T) {
	res, err := Parse(strings.NewReader(output))
	require.NoError(t, err)
	assert.Equal(t, Results{
		{Arch: "amd64", Bench: "BenchmarkKernelEventsPerSecond", Unit: "ns/op"}:    22216888,
		{Arch: "amd64", Bench: "BenchmarkKernelEventsPerSecond", Unit: "events/s"}: 360177,
		{Arch: "wasm", Bench: "BenchmarkKernelEventsPerSecond", Unit: "ns/op"}:     102216888,
		{Arch: "wasm", Bench: "BenchmarkKernelEventsPerSecond", Unit: "events/s"}:  90044,
		{Arch: "wasm", Bench: "BenchmarkScrubberSeek", Unit: "ns/op"}:              433992635,
		{Arch: "wasm", Bench: "BenchmarkScrubberSeek", Unit: "median-ms"}:          2.970,
		{Arch: "wasm", Bench: "BenchmarkScrubberSeek", Unit: "worst-ms"}:           42.63,
		{Bench: "size/main.wasm.gz", Unit: "B"}:                                    4765015,
		{Arch: "wasm", Bench: "BenchmarkRefereeRun", Unit: "ms/run"}:               22412,
		{Arch: "wasm", Bench: "BenchmarkRefereeRun", Unit: "slowest-ms/run"}:       46020,
		{Arch: "wasm", Bench: "BenchmarkRefereeRun", Unit: "wall-ms/run"}:          11800,
	}, res)
}

// Each row says its figure, its budget and whether it is met; a figure not measured says
// so and is not counted as missed.
func TestRenderSetsFiguresBesideTheirBudgets(t *testing.T) {
	res, err := Parse(strings.NewReader(output))
	require.NoError(t, err)
	var out strings.Builder
	missed := Render(&out, Rows, res)
	text := out.String()
	assert.Contains(t, text, "| kernel, busiest shipped scene, natively | 360,177 events/s | ≥ 2,000,000 events/s | **no** |")
	assert.Contains(t, text, "| kernel, WebAssembly ÷ native | 0.25× | ≥ 0.50× | **no** |")
	assert.Contains(t, text, "| scrubber seek, worst shipped scene, WebAssembly (the page) | 42.6 ms | ≤ 16.0 ms | **no** |")
	assert.Contains(t, text, "| main.wasm gzipped | 4.77 MB | ≤ 4.00 MB | **no** |")
	assert.Contains(t, text, "| deliverylab check of every shipped scene | not measured in this run | ≤ 1000 ms | ? |")
	assert.Contains(t, text, "| Draw per frame, crowd scene at its busiest (the page) | not measured in this run | ≤ 4.0 ms | ? |")
	// make conformance's line, appended after the WebAssembly benchmarks, is read all the same.
	assert.Contains(t, text, "| referee: the last make conformance's wall time per real run | 11.8 s | ≤ 20.0 s | yes |")
	assert.Contains(t, text, "| referee: a real run, mean | 22.4 s | — |  |")
	assert.Contains(t, text, "| referee: the slowest real run | 46.0 s | — |  |")
	assert.Equal(t, 4, missed)

	res[Key{Arch: "amd64", Bench: "BenchmarkKernelEventsPerSecond", Unit: "events/s"}] = 2_500_000
	out.Reset()
	Render(&out, Rows, res)
	assert.Contains(t, out.String(), "| kernel, busiest shipped scene, natively | 2,500,000 events/s | ≥ 2,000,000 events/s | yes |")
}
