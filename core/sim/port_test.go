package sim

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// twoClients is one process with two clients (a Streams thread's consumer and
// producer): each pings the echo from its own port, and counts the answers and timers
// that come back to it.
type twoClients struct {
	name  string
	pongs map[string]int // port -> answers received
	ticks map[string]int // port -> timers fired
}

func (n *twoClients) Name() string { return n.name }
func (n *twoClients) Start(env *Env) {
	for _, port := range []string{"a", "b"} {
		pe := env.Port(port)
		pe.Send("echo", ping{N: 1})
		pe.After(5, tick{})
	}
}
func (n *twoClients) Receive(env *Env, m Message) {
	if _, ok := m.Payload.(pong); ok {
		n.pongs[env.PortName()]++
		env.Send("echo", ping{N: 2}) // the answer's Env keeps its port
	}
}
func (n *twoClients) Fire(env *Env, _ Payload) { n.ticks[env.PortName()]++ }
func (n *twoClients) Crash()                   {}
func (n *twoClients) Clone() Node              { c := *n; return &c }

// Each port's requests are answered to that port, its timers fire on it, and a fault
// on the node covers every port: after a cut nothing reaches either.
func TestPortsRouteAnswersAndTimersToTheirClient(t *testing.T) {
	w := NewWorld(Config{Seed: 1, LatencyMs: 5})
	n := &twoClients{name: "app", pongs: map[string]int{}, ticks: map[string]int{}}
	w.Add(n, 0)
	w.Add(&echo{name: "echo"}, 0)
	w.Schedule(17, Fault{Kind: FaultCut, From: "app", To: "echo"})
	w.RunUntil(100, nil)
	got, _ := w.Node("app")
	app := got.(*twoClients)
	assert.Equal(t, map[string]int{"a": 1, "b": 1}, app.ticks, "each port's timer fires on that port")
	assert.Equal(t, map[string]int{"a": 1, "b": 1}, app.pongs,
		"each port gets its own answer (at 10 ms); the second pings, sent at 10 ms, are answered after the cut at 17 ms and lost")
	assert.Equal(t, "app", NodeOf("app/a"))
	assert.Equal(t, "a", PortOf("app/a"))
	assert.Equal(t, "", PortOf("app"))
	assert.Contains(t, w.Trace().Texts(false)[0:], "0 send #1 app/a->echo Ping 1")
}
