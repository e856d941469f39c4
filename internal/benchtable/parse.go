// Package benchtable reads what `go test -bench` prints (natively, under WebAssembly in
// Node, in headless Chromium) and sets each figure beside its budget: `make bench`'s one
// table (issue 22).
package benchtable

import (
	"bufio"
	"io"
	"regexp"
	"strconv"
	"strings"
)

// Key names one figure: the architecture it ran on ("amd64", "wasm"), the benchmark
// (without its -N suffix) and the unit it reported.
type Key struct {
	Arch, Bench, Unit string
}

// Results are the figures read, the last of each.
type Results map[Key]float64

// procs is the -N go test appends to a benchmark's name (GOMAXPROCS).
var procs = regexp.MustCompile(`-\d+$`)

// Parse reads go test's output: the "goarch:" line before a package's benchmarks says
// where they ran, and each "BenchmarkX-N  iterations  value unit  value unit ..." line
// gives its figures. Other lines are passed over. "size: NAME BYTES" lines (make bench
// writes them for the WebAssembly files) are read as Key{Bench: "size/NAME", Unit: "B"}.
func Parse(r io.Reader) (Results, error) {
	res := Results{}
	arch := ""
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		switch {
		case len(f) == 2 && f[0] == "goarch:":
			arch = f[1]
		case len(f) == 3 && f[0] == "size:":
			if v, err := strconv.ParseFloat(f[2], 64); err == nil {
				res[Key{Bench: "size/" + f[1], Unit: "B"}] = v
			}
		case len(f) >= 4 && strings.HasPrefix(f[0], "Benchmark") && len(f)%2 == 0:
			if _, err := strconv.Atoi(f[1]); err != nil {
				continue
			}
			name := procs.ReplaceAllString(f[0], "")
			for i := 2; i+1 < len(f); i += 2 {
				v, err := strconv.ParseFloat(f[i], 64)
				if err != nil {
					break
				}
				res[Key{Arch: arch, Bench: name, Unit: f[i+1]}] = v
			}
		}
	}
	return res, sc.Err()
}
