package sim

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// oneShot sends one ping when it starts.
type oneShot struct{ name, peer string }

func (o *oneShot) Name() string          { return o.name }
func (o *oneShot) Start(env *Env)        { env.Send(o.peer, ping{N: 1}) }
func (o *oneShot) Receive(*Env, Message) {}
func (o *oneShot) Fire(*Env, Payload)    {}
func (o *oneShot) Crash()                {}
func (o *oneShot) Clone() Node           { c := *o; return &c }

// onePingOnTheWire: a's ping to b (an echo) just sent, and the wire's messages (nil
// unless that is all there is).
func onePingOnTheWire(t *testing.T) (*World, []Message) {
	w := NewWorld(Config{Seed: 1, LatencyMs: 5})
	w.Add(&oneShot{name: "a", peer: "b"}, 0)
	w.Add(&echo{name: "b"}, 0)
	w.RunUntil(0, nil)
	in := w.InFlight()
	if !assert.Len(t, in, 1) {
		return w, nil
	}
	return w, in
}

// A message a delay fault holds keeps the wire busy until it would have arrived; after
// that it only waits, and the page may hurry (Quiet), until it arrives.
func TestAHeldMessageStopsKeepingTheWireBusyOnceItWouldHaveArrived(t *testing.T) {
	w, in := onePingOnTheWire(t)
	if in == nil {
		return
	}
	w.Inject(Fault{Kind: FaultDelay, WireID: in[0].ID, DelayMs: 1000})
	assert.False(t, w.Quiet(), "on its way: worth watching")
	w.RunUntil(4, nil)
	assert.False(t, w.Quiet(), "not yet due")
	w.RunUntil(6, nil)
	assert.True(t, w.Quiet(), "past its arrival, it only waits for the fault")
	w.RunUntil(1006, nil)
	assert.False(t, w.Quiet(), "delivered: the echo's answer is on the wire")
}

// Quiet answers from a count of the messages on the wire that are not background
// traffic, kept through sends, arrivals, drops, delays and duplicates.
func TestQuietKeepsCountOfTheForegroundMessages(t *testing.T) {
	w, in := onePingOnTheWire(t)
	if in == nil {
		return
	}
	w.Inject(Fault{Kind: FaultDuplicate, WireID: in[0].ID})
	assert.Equal(t, 2, w.foreground)
	w.Inject(Fault{Kind: FaultDrop, WireID: in[0].ID})
	assert.Equal(t, 1, w.foreground)
	w.Inject(Fault{Kind: FaultDelay, WireID: w.InFlight()[0].ID, DelayMs: 10})
	assert.Equal(t, 1, w.foreground, "a delayed message is replaced, counted once")
	assert.False(t, w.Quiet())
	w.RunUntil(100, nil)
	assert.Empty(t, w.InFlight(), "the copy arrived, and the echo's answer")
	assert.Equal(t, 0, w.foreground)
	assert.True(t, w.Quiet())
}
