package sim

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// The queue pops in (time, faults first, sequence) order whatever the mix of events near
// and far past its horizon, with pushes between pops never earlier than the last popped,
// as the kernel's are; a clone taken midway pops the same from there on.
func TestQueuePopsInOrderAcrossItsHorizon(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var q queue
	var want []event // what is queued, in the order it must come out
	seq, now := int64(0), int64(0)
	push := func() {
		seq++
		delay := r.Int64N(50)
		if r.IntN(3) == 0 {
			delay = r.Int64N(40_000) // a timeout far ahead
		}
		kind := evTimer
		if r.IntN(10) == 0 {
			kind = evFault
		}
		e := event{queued: queued{AtMs: now + delay, Seq: seq, Kind: kind}}
		q.push(e)
		want = append(want, e)
	}
	sortWant := func() {
		slices.SortFunc(want, func(a, b event) int {
			ka, kb := keyOf(a), keyOf(b)
			if ka.less(&kb) {
				return -1
			}
			return 1
		})
	}
	var clone *queue
	var cloneWant []event
	for step := 0; step < 20_000; step++ {
		for range r.IntN(3) {
			push()
		}
		if step == 10_000 {
			c := q.clone()
			clone = &c
			sortWant()
			cloneWant = slices.Clone(want)
		}
		if q.len() == 0 {
			continue
		}
		sortWant()
		require.Equal(t, want[0].AtMs, q.nextAtMs(), "step %d", step)
		got := q.pop()
		require.Equal(t, want[0], got, "step %d", step)
		want = want[1:]
		now = got.AtMs
	}
	for clone.len() > 0 {
		got := clone.pop()
		require.Equal(t, cloneWant[0], got)
		cloneWant = cloneWant[1:]
	}
	require.Empty(t, cloneWant)
}

func keyOf(e event) queueKey {
	rank := e.Seq
	if e.Kind != evFault {
		rank |= faultLast
	}
	return queueKey{atMs: e.AtMs, rank: rank}
}
