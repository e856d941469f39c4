package scene

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The runs the fault-schedule swarm found stuck (findings/README.md), each kept as a
// scene: every one whose faults all heal now settles, and the one whose sink stays down
// ends at its limit saying so, in well under a second.
func TestFindingsOfTheSwarmEndAsTheyShould(t *testing.T) {
	files, err := filepath.Glob("../../findings/*.yaml")
	require.NoError(t, err)
	require.Len(t, files, 6)
	for _, f := range files {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		s, err := Parse(filepath.Base(f), data)
		require.NoError(t, err, f)
		r := s.NewRun()
		r.World.Trace().Keep = false
		r.ToEnd()
		if filepath.Base(f) == "05-auto-commit-sink-down-slow.yaml" {
			assert.Equal(t, EndTimeLimit, r.EndNote, f)
			assert.Contains(t, r.EndDetail, "c1 keeps writing to db, which does not answer", f)
			continue
		}
		assert.Equal(t, EndSettled, r.EndNote, "%s: %s", f, r.EndDetail)
	}
}
