package play

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The export is the run the session shows: the same trace (by its hash, which covers
// every line), every line of it where the session keeps only a tail, its observations and
// its outcome; the session is left where it was.
func TestExportIsTheRunSoFar(t *testing.T) {
	s, err := Load("acks-1-lost")
	require.NoError(t, err)
	require.NoError(t, s.SeekTo(5000))
	events := s.run.World.EventsRun()

	e := s.Export()
	assert.Equal(t, s.run.World.Trace().Hash(), e.Report.TraceHash)
	assert.Greater(t, len(e.Trace), traceTail, "the whole trace, not the tail the page keeps")
	assert.Len(t, e.Observations, s.run.World.Observations().Len())
	assert.Equal(t, s.run.Judge().Verdict, e.Report.Verdict)
	assert.Equal(t, int64(5000), e.NowMs)
	assert.Equal(t, "acks-1-lost", e.Scene)
	assert.Equal(t, s.Link(), e.Link)
	assert.Equal(t, events, s.run.World.EventsRun(), "the session's run is untouched")
	_, err = json.Marshal(e)
	require.NoError(t, err)
}

// At the end of a shipped scene the export's outcome is the one `deliverylab run --json`
// prints for it.
func TestExportAtTheEndIsTheCommandLinesReport(t *testing.T) {
	s, err := Load("retry-duplicate")
	require.NoError(t, err)
	s.RunToEnd()
	cli := s.sc.NewRun()
	cli.ToEnd()
	want := cli.Judge()
	got := s.Export().Report
	assert.Equal(t, want.TraceHash, got.TraceHash)
	assert.Equal(t, want.Verdict, got.Verdict)
	assert.Equal(t, want.Messages, got.Messages)
}
