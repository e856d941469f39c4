package sim

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// ping is a request that a pinger sends and an echo answers.
type ping struct{ N int }

func (ping) Kind() string       { return "Ping" }
func (p ping) Describe() string { return "Ping " + itoa(int64(p.N)) }
func (ping) IsRequest() bool    { return true }

type pong struct{ N int }

func (pong) Kind() string       { return "Pong" }
func (p pong) Describe() string { return "Pong " + itoa(int64(p.N)) }

type tick struct{}

func (tick) Kind() string     { return "timer" }
func (tick) Describe() string { return "tick" }

// pinger sends a ping every 10 ms; Sent is durable, Pending volatile.
type pinger struct {
	name, peer string
	Sent       int   // durable
	Pongs      []int // durable
	Pending    []int // volatile
	Refused    int
	Resets     int // Disconnected notices
}

func (p *pinger) Name() string { return p.name }
func (p *pinger) Start(env *Env) {
	env.After(10, tick{})
}
func (p *pinger) Receive(env *Env, m Message) {
	switch v := m.Payload.(type) {
	case pong:
		p.Pongs = append(p.Pongs, v.N)
		env.Observe(Observation{Event: "ponged", Msgs: []string{"m#" + itoa(int64(v.N))}})
	case Refused:
		p.Refused++
	case Disconnected:
		p.Resets++
	}
}
func (p *pinger) Fire(env *Env, _ Payload) {
	p.Sent++
	p.Pending = append(p.Pending, p.Sent)
	env.Send(p.peer, ping{N: p.Sent})
	env.Observe(Observation{Event: "pinged", Msgs: []string{"m#" + itoa(int64(p.Sent))}})
	if p.Sent < 20 {
		env.After(10+env.Rand().Intn(3), tick{})
	}
}
func (p *pinger) Crash() { p.Pending = nil }
func (p *pinger) Clone() Node {
	c := *p
	c.Pongs = append([]int(nil), p.Pongs...)
	c.Pending = append([]int(nil), p.Pending...)
	return &c
}

type echo struct{ name string }

func (e *echo) Name() string { return e.name }
func (e *echo) Start(*Env)   {}
func (e *echo) Receive(env *Env, m Message) {
	if p, ok := m.Payload.(ping); ok {
		env.Send(m.From, pong{N: p.N})
	}
}
func (e *echo) Fire(*Env, Payload) {}
func (e *echo) Crash()             {}
func (e *echo) Clone() Node        { c := *e; return &c }

func newPingWorld(seed, jitter int64) *World {
	w := NewWorld(Config{Seed: seed, LatencyMs: 5, JitterMs: jitter})
	w.Add(&pinger{name: "a", peer: "b"}, 0)
	w.Add(&echo{name: "b"}, 0)
	return w
}

func runAll(w *World) { w.RunUntil(10000, nil) }

func pingerOf(w *World) *pinger {
	n, _ := w.Node("a")
	return n.(*pinger)
}

func TestSameSeedAndFaultsGiveTheSameHash(t *testing.T) {
	a, b := newPingWorld(7, 3), newPingWorld(7, 3)
	for _, w := range []*World{a, b} {
		w.Schedule(50, Fault{Kind: FaultCut, From: "a", To: "b", ForMs: 30})
	}
	runAll(a)
	runAll(b)
	assert.Equal(t, a.Trace().Hash(), b.Trace().Hash())
	assert.Equal(t, a.Trace().Lines, b.Trace().Lines)
}

func TestADifferentSeedWithJitterGivesADifferentHash(t *testing.T) {
	a, b := newPingWorld(1, 3), newPingWorld(2, 3)
	runAll(a)
	runAll(b)
	assert.NotEqual(t, a.Trace().Hash(), b.Trace().Hash())
}

func TestCrashDropsVolatileStateAndKeepsDurableState(t *testing.T) {
	w := newPingWorld(1, 0)
	w.RunUntil(35, nil)
	p := pingerOf(w)
	require.Equal(t, 3, p.Sent)
	require.NotEmpty(t, p.Pending)
	w.Inject(Fault{Kind: FaultCrash, Node: "a"})
	_, up := w.Node("a")
	assert.False(t, up)
	assert.Empty(t, p.Pending, "volatile state is lost")
	assert.Equal(t, 3, p.Sent, "durable state survives")
	w.RunUntil(200, nil)
	assert.Equal(t, 3, p.Sent, "a crashed node's timers never fire")
	w.Inject(Fault{Kind: FaultRestart, Node: "a"})
	w.RunUntil(500, nil)
	assert.Greater(t, p.Sent, 3, "a restarted node runs again")
}

func TestACopiedWorldRunsOnToTheSameHash(t *testing.T) {
	w := newPingWorld(3, 4)
	w.Schedule(80, Fault{Kind: FaultCrash, Node: "b", ForMs: 40})
	w.RunUntil(60, nil)
	assertACopyRunsOnAlike(t, w)
}

// assertACopyRunsOnAlike runs w and a copy of it to the end: the same trace, with nodes
// of their own.
func assertACopyRunsOnAlike(t *testing.T, w *World) {
	t.Helper()
	c := w.Clone()
	runAll(w)
	runAll(c)
	assert.Equal(t, w.Trace().Hash(), c.Trace().Hash())
	assert.Equal(t, w.Trace().Lines, c.Trace().Lines)
	assert.Equal(t, pingerOf(w).Pongs, pingerOf(c).Pongs)
	assert.NotSame(t, pingerOf(w), pingerOf(c))
}

func TestCutLinkDropsMessagesUntilHealed(t *testing.T) {
	w := newPingWorld(1, 0)
	w.Schedule(0, Fault{Kind: FaultCutOneway, From: "b", To: "a", ForMs: 100})
	w.RunUntil(99, nil)
	assert.Empty(t, pingerOf(w).Pongs, "answers b->a are cut")
	assert.Equal(t, [][2]string{{"b", "a"}}, w.CutLinks())
	runAll(w)
	assert.NotEmpty(t, pingerOf(w).Pongs, "healed after for.ms")
	assert.Empty(t, w.CutLinks())
}

func TestPartitionPutsUnlistedNodesInTheLastGroup(t *testing.T) {
	w := newPingWorld(1, 0)
	w.Add(&echo{name: "c"}, 0)
	w.Inject(Fault{Kind: FaultPartition, Groups: [][]string{{"a"}, {"b"}}})
	assert.ElementsMatch(t, [][2]string{{"a", "b"}, {"a", "c"}, {"b", "a"}, {"c", "a"}}, w.CutLinks())
}

func TestRequestsToACrashedNodeAreRefused(t *testing.T) {
	w := newPingWorld(1, 0)
	w.RunUntil(1, nil)
	w.Inject(Fault{Kind: FaultCrash, Node: "b"})
	w.RunUntil(100, nil)
	assert.Greater(t, pingerOf(w).Refused, 0)
}

// A crash resets the connections of the nodes whose requests reached the crashed one:
// each hears it once, a link latency later; a node that only answered requests is not
// told; a reset on a cut link is lost, like the rest.
func TestACrashResetsTheConnectionsOfItsClients(t *testing.T) {
	w := newPingWorld(1, 0)
	w.RunUntil(30, nil) // a's first pings reached b
	w.Inject(Fault{Kind: FaultCrash, Node: "b"})
	w.RunUntil(34, nil)
	assert.Zero(t, pingerOf(w).Resets, "the reset travels like any message")
	w.RunUntil(40, nil)
	assert.Equal(t, 1, pingerOf(w).Resets, "one notice per connection")
	w.RunUntil(200, nil)
	assert.Equal(t, 1, pingerOf(w).Resets, "the pings that reach b while it is down are refused, not reset")

	w = newPingWorld(1, 0)
	w.RunUntil(30, nil)
	w.Inject(Fault{Kind: FaultCrash, Node: "a"})
	w.RunUntil(200, nil)
	for _, l := range w.Trace().Lines {
		assert.NotContains(t, l.Text, "Disconnected", "b answered requests but made none: it had no connection to a")
	}

	w = newPingWorld(1, 0)
	w.RunUntil(30, nil)
	w.Inject(Fault{Kind: FaultCut, From: "a", To: "b"})
	w.Inject(Fault{Kind: FaultCrash, Node: "b"})
	w.RunUntil(200, nil)
	assert.Zero(t, pingerOf(w).Resets, "lost on the cut link")
}

func TestTriggeredFaultRunsAtTheProtocolPoint(t *testing.T) {
	w := newPingWorld(1, 0)
	w.AddTrigger(Trigger{Event: "pinged", Message: "m#3", Fault: Fault{Kind: FaultCrash, Node: "a"}})
	runAll(w)
	p := pingerOf(w)
	assert.Equal(t, 3, p.Sent)
	// The crash came right after the third ping left, so its pong found "a" down.
	assert.Equal(t, []int{1, 2}, p.Pongs)
}

func TestDropDelayAndDuplicateAMessageInFlight(t *testing.T) {
	w := newPingWorld(1, 0)
	w.RunUntil(11, nil)
	inflight := w.InFlight()
	require.Len(t, inflight, 1)
	w.Inject(Fault{Kind: FaultDuplicate, WireID: inflight[0].ID})
	w.RunUntil(16, nil)
	require.Len(t, w.InFlight(), 2, "the echo answered both copies")
	id := w.InFlight()[0].ID
	w.Inject(Fault{Kind: FaultDelay, WireID: id, DelayMs: 100})
	w.Inject(Fault{Kind: FaultDrop, WireID: w.InFlight()[1].ID})
	w.RunUntil(25, nil)
	assert.Empty(t, pingerOf(w).Pongs, "one answer delayed, the other dropped")
	w.RunUntil(120, nil)
	assert.Contains(t, pingerOf(w).Pongs, 1)
}

func TestLinksAreFIFOEvenWithJitter(t *testing.T) {
	w := newPingWorld(5, 50)
	runAll(w)
	p := pingerOf(w)
	for i := 1; i < len(p.Pongs); i++ {
		assert.Less(t, p.Pongs[i-1], p.Pongs[i])
	}
}

func TestFaultsAtATimeComeBeforeOtherEventsAtThatTime(t *testing.T) {
	w := newPingWorld(1, 0)
	w.Schedule(10, Fault{Kind: FaultCrash, Node: "a"})
	runAll(w)
	assert.Equal(t, 0, pingerOf(w).Sent, "the crash at 10 ms beat the timer at 10 ms")
}

func TestRandStreamsAreIndependent(t *testing.T) {
	a, b := NewRand(1, "network"), NewRand(1, "workload")
	assert.NotEqual(t, a.Uint64(), b.Uint64())
	c, d := NewRand(1, "network"), NewRand(1, "network")
	for i := 0; i < 10; i++ {
		assert.Equal(t, c.Uint64(), d.Uint64())
	}
	r := NewRand(9, "x")
	for i := 0; i < 1000; i++ {
		v := r.Intn(7)
		assert.True(t, v >= 0 && v < 7)
	}
}

func TestACrashBeforeStartKeepsTheNodeDownUntilARestart(t *testing.T) {
	w := newPingWorld(1, 0)
	w.Schedule(0, Fault{Kind: FaultCrash, Node: "a"})
	w.Schedule(100, Fault{Kind: FaultRestart, Node: "a"})
	w.RunUntil(50, nil)
	_, up := w.Node("a")
	assert.False(t, up)
	assert.Equal(t, 0, pingerOf(w).Sent)
	w.RunUntil(200, nil)
	_, up = w.Node("a")
	assert.True(t, up)
	assert.Greater(t, pingerOf(w).Sent, 0)
}
