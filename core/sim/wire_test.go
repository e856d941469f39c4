package sim

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The wire log has every message, a duplicate's copy too, each with how and when it left
// the wire; a clone's log runs on apart; a world that did not ask keeps none.
func TestWireLogSaysHowEachMessageLeftTheWire(t *testing.T) {
	w := newPingWorld(1, 0)
	w.KeepWire()
	w.RunUntil(11, nil)
	w.Inject(Fault{Kind: FaultDuplicate, WireID: w.InFlight()[0].ID})
	w.RunUntil(16, nil)
	w.Inject(Fault{Kind: FaultDrop, WireID: w.InFlight()[1].ID})
	before := w.Clone()
	w.RunUntil(25, nil)

	log := w.Wire()
	require.GreaterOrEqual(t, len(log), 4)
	ends := map[WireEnd]int{}
	for i, r := range log {
		assert.Equal(t, log[0].ID+int64(i), r.ID, "one record per id, in order")
		ends[r.End]++
		if r.End != WireInFlight {
			assert.GreaterOrEqual(t, r.EndMs, r.SentMs)
		}
	}
	assert.Equal(t, 1, ends[WireDropped], "the dropped answer")
	assert.Equal(t, "Ping", log[1].Payload.Kind(), "the duplicate's copy is logged as it is made")
	assert.Equal(t, WireReceived, log[1].End)
	assert.Less(t, len(before.Wire()), len(log), "the clone's log stopped where it was cloned")
	assert.Nil(t, newPingWorld(1, 0).Wire())
}
