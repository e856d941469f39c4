package play

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The diagram of a session replays its run with every message logged, to where the
// session stands, and leaves the session where it was.
func TestDiagramReplaysTheRunSoFar(t *testing.T) {
	s, err := Load("acks-1-lost")
	require.NoError(t, err)
	require.NoError(t, s.SeekTo(4000))
	before := s.run.World.Trace().Hash()
	events := s.run.World.EventsRun()

	svg := string(s.Diagram("p1#5"))
	assert.Equal(t, before, s.run.World.Trace().Hash(), "the session's run is untouched")
	assert.Equal(t, events, s.run.World.EventsRun())
	for _, n := range s.run.World.NodeNames() {
		assert.Contains(t, svg, `data-node="`+n+`"`, "every node has its line")
	}
	assert.Contains(t, svg, `data-label="p1#5"`)
	assert.Contains(t, svg, `stroke="#e6007e"`, "p1#5 stands out")
	assert.Contains(t, svg, `data-node="broker-1" x=`, "broker-1's time down is marked")
	assert.Equal(t, svg, string(s.Diagram("p1#5")), "the same run draws the same diagram")

	// Later in the run (after the election), more of it.
	msgs := strings.Count(svg, `class="msg"`)
	require.NoError(t, s.SeekTo(13000))
	assert.Greater(t, strings.Count(string(s.Diagram("")), `class="msg"`), msgs)
}

// A fault made by hand is in the replay too: the diagram shows the run the page shows.
func TestDiagramReplaysFaultsMadeByHand(t *testing.T) {
	s, err := Load("acks-all-safe")
	require.NoError(t, err)
	require.NoError(t, s.SeekTo(1200))
	require.NoError(t, s.Inject("{crash: broker-2}"))
	require.NoError(t, s.SeekTo(3000))
	svg := string(s.Diagram(""))
	assert.Contains(t, svg, `class="span" data-node="broker-2"`, "the crash made by hand is on broker-2's line")
}
