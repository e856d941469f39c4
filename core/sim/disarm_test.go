package sim

import (
	"maps"
	"slices"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
)

type alarmTimer struct{ N int }

func (alarmTimer) Kind() string       { return "Alarm" }
func (a alarmTimer) Describe() string { return "alarm " + strconv.Itoa(a.N) }

// alarm sets three timers when it starts, the third from a port, and notes each that
// reaches it; the first, when it fires, sets a fourth and disarms itself (by then a
// stale id, whose slot the fourth has taken).
type alarm struct {
	name  string
	Fired []string // "N@port"
	ids   map[int]TimerID
}

func (a *alarm) Name() string { return a.name }
func (a *alarm) Start(env *Env) {
	a.ids = map[int]TimerID{1: env.After(10, alarmTimer{1}), 2: env.After(20, alarmTimer{2}), 3: env.Port("p").After(30, alarmTimer{3})}
}
func (a *alarm) Receive(*Env, Message) {}
func (a *alarm) Fire(env *Env, t Payload) {
	n := t.(alarmTimer).N
	a.Fired = append(a.Fired, strconv.Itoa(n)+"@"+env.PortName())
	if n == 1 {
		a.ids[4] = env.After(5, alarmTimer{4})
		env.Disarm(a.ids[1])
	}
}
func (a *alarm) Crash() {}
func (a *alarm) Clone() Node {
	c := *a
	c.Fired, c.ids = slices.Clone(a.Fired), maps.Clone(a.ids)
	return &c
}

func alarmOf(w *World) *alarm {
	n, _ := w.Node("n")
	return n.(*alarm)
}

// A disarmed timer reaches no handler, yet still comes due as an event: the events
// counted are those of the run without the disarm. Disarming a timer that came due
// already leaves the timer that took its slot armed; a clone taken before the disarm
// keeps its own timer armed.
func TestADisarmedTimerComesDueWithoutReachingItsNode(t *testing.T) {
	run := func(disarm bool) (*World, *World) {
		w := NewWorld(Config{Seed: 1})
		w.Add(&alarm{name: "n"}, 0)
		w.RunUntil(1, nil)
		before := w.Clone()
		w.Act("n", func(env *Env) {
			if disarm {
				env.Disarm(alarmOf(w).ids[2])
			} else {
				env.Disarm(TimerID{}) // names no timer
			}
		})
		w.RunUntil(100, nil)
		before.RunUntil(100, nil)
		return w, before
	}
	armed, _ := run(false)
	assert.Equal(t, []string{"1@", "4@", "2@", "3@p"}, alarmOf(armed).Fired, "the stale disarm left the fourth armed; the port came back")

	w, clone := run(true)
	assert.Equal(t, []string{"1@", "4@", "3@p"}, alarmOf(w).Fired, "the second was disarmed")
	assert.Equal(t, armed.EventsRun(), w.EventsRun(), "a disarmed timer is still an event")
	assert.Equal(t, armed.Trace().Hash(), w.Trace().Hash(), "and the trace is the same")
	assert.Equal(t, []string{"1@", "4@", "2@", "3@p"}, alarmOf(clone).Fired, "the clone's timer stayed armed")
}
