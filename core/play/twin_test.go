package play

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestInjectLikeHitsTheTwinsOwnCopy: a fault on a message made on one run is made on
// its twin (other settings, so other message ids) on the twin's own copy of that
// message; a fault on a node is made as it is; a message the twin does not have on the
// wire is refused, saying which.
func TestInjectLikeHitsTheTwinsOwnCopy(t *testing.T) {
	a, err := Load("acks-1-lost")
	require.NoError(t, err)
	b, err := Load("acks-1-lost")
	require.NoError(t, err)
	require.NoError(t, b.SetSetting("producers.p1.config.acks", "all"))
	// Step both to the first moment a produce request is on the wire in A.
	var hit Flight
	for ms := int64(1); ms < 5000 && hit.ID == 0; ms++ {
		require.NoError(t, a.SeekTo(ms))
		for _, f := range a.State().InFlight {
			if f.Kind == "Produce" {
				hit = f
			}
		}
	}
	require.NotZero(t, hit.ID, "a produce request on the wire")
	require.NoError(t, b.SeekTo(a.State().NowMs))
	require.NoError(t, a.Inject(fmt.Sprintf("{drop: message, id: %d}", hit.ID)))
	entry := a.State().FaultList[0]
	require.NotNil(t, entry.Wire)
	assert.Equal(t, WireMatch{From: hit.From, To: hit.To, Kind: "Produce", Label: hit.Label}, *entry.Wire)

	// The twin (acks=all: an idempotent producer, which first asks for a producer id)
	// sends p1#1 later: the drop is armed for the moment it does.
	require.NoError(t, b.InjectLike(entry.Syntax, entry.Wire))
	require.Len(t, b.State().ArmedList, 1)
	assert.Contains(t, b.State().ArmedList[0].Syntax, `event: requested, message: "p1#1"}, drop: request`)
	b.RunToEnd()
	require.Len(t, b.State().FaultList, 1, "it fired")
	assert.Greater(t, b.State().FaultList[0].AtMs, entry.AtMs, "later, where the twin sent it")

	// A twin that has the message on the wire at that moment drops its own copy of it.
	c, err := Load("acks-1-lost")
	require.NoError(t, err)
	require.NoError(t, c.SeekTo(entry.AtMs))
	require.NoError(t, c.InjectLike(entry.Syntax, entry.Wire))
	got := c.State().FaultList
	require.Len(t, got, 1)
	assert.Equal(t, entry.Wire, got[0].Wire, "the twin hit its own copy of the same message")
	assert.Equal(t, entry.AtMs, got[0].AtMs)

	require.NoError(t, c.InjectLike("{crash: broker-2}", nil))
	assert.Len(t, c.State().FaultList, 2)

	gone := &WireMatch{From: "p1", To: "broker-1", Kind: "Fetch", Label: "p1#99"}
	err = c.InjectLike("{drop: message, id: 1}", gone)
	var ue UserError
	require.ErrorAs(t, err, &ue)
	assert.Contains(t, ue.Error(), "p1#99")
	assert.Contains(t, ue.Zh, "p1#99")
}
