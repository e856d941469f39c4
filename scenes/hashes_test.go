package scenes_test

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"

	"deliverylab/core/scene"
	"deliverylab/scenes"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite testdata/trace-hashes.txt from this run")

const hashesFile = "testdata/trace-hashes.txt"

// The trace hash of every shipped scene is pinned in a file that this test checks both
// natively and under WebAssembly (make test runs it in Node): if the browser's build
// computed a different run from the same scene and seed, one of the two fails.
// After a deliberate change to the simulation, regenerate natively with
// `go test ./scenes -update` and review the diff.
func TestTraceHashesArePinnedOnEveryPlatform(t *testing.T) {
	var got strings.Builder
	for _, name := range scenes.Names() {
		r := runShipped(t, name)
		fmt.Fprintf(&got, "%s %s %d\n", name, r.World.Trace().Hash(), r.World.EventsRun())
	}
	if *update {
		require.NoError(t, os.WriteFile(hashesFile, []byte(got.String()), 0o644))
		return
	}
	want, err := os.ReadFile(hashesFile)
	require.NoError(t, err, "run `go test ./scenes -update` once to create it")
	assert.Equal(t, string(want), got.String(), "a scene's run changed: if on purpose, regenerate with `go test ./scenes -update`")
}

// runShipped runs a shipped scene to its end.
func runShipped(t *testing.T, name string) *scene.Run {
	t.Helper()
	data, err := scenes.Read(name)
	require.NoError(t, err)
	s, err := scene.Parse(name+".yaml", data)
	require.NoError(t, err)
	r := s.NewRun()
	r.ToEnd()
	return r
}
