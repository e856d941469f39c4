package scenes_test

import (
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"

	"deliverylab/core/fate"
	"deliverylab/core/scene"
	"deliverylab/scenes"

	"github.com/stretchr/testify/require"
)

// Every shipped scene has a golden file, testdata/<scene>.txt, in the style of etcd
// raft's testdata: the readable trace of its run (background traffic left out) and the
// ledger the CLI prints, each message's reason in English and in Chinese. The hash file
// already catches that a run changed; the golden file shows a reviewer how, as a diff
// of the story. Like the hashes, it is checked natively and under WebAssembly. After a
// deliberate change, regenerate with `go test ./scenes -update` and review
// `git diff scenes/testdata`.
func TestGoldenTraceOfEveryShippedScene(t *testing.T) {
	for _, name := range scenes.Names() {
		t.Run(name, func(t *testing.T) {
			got := golden(t, name)
			file := "testdata/" + name + ".txt"
			if *update {
				require.NoError(t, os.WriteFile(file, []byte(got), 0o644))
				return
			}
			want, err := os.ReadFile(file)
			require.NoError(t, err, "scene %s has no golden file: run `go test ./scenes -update` to create %s", name, file)
			if msg := firstDifference(string(want), got); msg != "" {
				t.Fatalf("scene %s: the run differs from %s: %s\nif on purpose, run `go test ./scenes -update` and review the diff with `git diff scenes/testdata`", name, file, msg)
			}
		})
	}
}

// golden runs a shipped scene to its end and renders its golden file.
func golden(t *testing.T, name string) string {
	t.Helper()
	r := runShipped(t, name)
	rep := r.Judge()

	var b strings.Builder
	fmt.Fprintf(&b, "# %s: %s\n\n", name, r.Scene.Title.En)
	for _, line := range r.Timeline() {
		fmt.Fprintln(&b, line)
	}
	writeLedger(&b, rep)
	return b.String()
}

// writeLedger is the CLI's ledger (printLedger in cmd/deliverylab) without the trace
// hash, which the hash file pins, and with each reason in Chinese too.
func writeLedger(b *strings.Builder, rep scene.Report) {
	fmt.Fprintf(b, "\nended at %d ms (%s), %d events\n", rep.EndMs, rep.EndNote, rep.Events)
	if rep.Output != "" {
		fmt.Fprintf(b, "output %s: %s\n", rep.Output, rep.Verdict)
		for _, f := range rep.Ledger {
			fmt.Fprintf(b, "  %-8s %-11s %s\n", f.Msg, f.Fate, f.Reason.Text(fate.En))
			fmt.Fprintf(b, "           zh: %s\n", f.Reason.Text(fate.Zh))
		}
	}
	fmt.Fprintf(b, "messages: %s\n", sortedCounts(rep.Messages))
	if len(rep.Errors) > 0 {
		fmt.Fprintf(b, "errors: %s\n", sortedCounts(rep.Errors))
	}
	fmt.Fprintf(b, "anomalies: %s\n", sortedCounts(rep.Anomalies))
}

// sortedCounts is "k=v k=v", sorted by key.
func sortedCounts[K ~string](m map[K]int) string {
	parts := make([]string, 0, len(m))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		parts = append(parts, fmt.Sprintf("%s=%d", k, m[k]))
	}
	return strings.Join(parts, " ")
}

// firstDifference names the first line where got differs from want, with both lines, or
// returns "" when they are equal. A whole trace runs to thousands of lines: one line
// says more than a diff of two blobs.
func firstDifference(want, got string) string {
	if want == got {
		return ""
	}
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < max(len(w), len(g)); i++ {
		wl, gl := lineAt(w, i), lineAt(g, i)
		if wl != gl {
			return fmt.Sprintf("line %d:\n  want: %s\n  got:  %s", i+1, wl, gl)
		}
	}
	return "the files differ" // unreachable: equal lines make equal texts
}

func lineAt(lines []string, i int) string {
	if i < len(lines) {
		return lines[i]
	}
	return "(end of file)"
}
