package scenes

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"deliverylab/core/scene"
)

// The AT_LEAST_ONCE scene's last caption tells the reader that the same run under
// EXACTLY_ONCE counts each report once: it does, because aligned barriers keep the
// records that overtook the late barrier out of checkpoint 2.
func TestTheAtLeastOnceSceneIsExactWhenAligned(t *testing.T) {
	text, err := Read("flink-at-least-once-counts-twice")
	require.NoError(t, err)
	aligned := strings.Replace(string(text), "mode: AT_LEAST_ONCE", "mode: EXACTLY_ONCE", 1)
	require.NotEqual(t, string(text), aligned)
	rep := runToEnd(t, aligned)
	assert.Equal(t, "exactly-once", rep.Verdict)
	assert.Equal(t, 6, rep.Messages["delivered"])
	require.NotNil(t, rep.Total)
	assert.Equal(t, rep.Total.Expected, rep.Total.Shown)
}

// The shared-prefix scene's last caption says to give every job its own prefix: with
// returns-job's own, its sink's probes touch none of orders-job's transactions, and
// every record is delivered once.
func TestTheSharedPrefixSceneIsExactWithItsOwnPrefix(t *testing.T) {
	text, err := Read("flink-shared-prefix-loses-data")
	require.NoError(t, err)
	i := strings.Index(string(text), "  - job: returns-job")
	require.Positive(t, i)
	own := string(text[:i]) + strings.Replace(string(text[i:]), "transactional.id.prefix: orders", "transactional.id.prefix: returns", 1)
	rep := runToEnd(t, own)
	assert.Equal(t, "exactly-once", rep.Verdict)
	assert.Equal(t, 6, rep.Messages["delivered"])
}

// runToEnd runs a scene's text to its end; it must settle.
func runToEnd(t *testing.T, text string) scene.Report {
	t.Helper()
	s, err := scene.Parse("twin.yaml", []byte(text))
	require.NoError(t, err)
	r := s.NewRun()
	r.ToEnd()
	rep := r.Judge()
	assert.Equal(t, scene.EndSettled, rep.EndNote)
	return rep
}
