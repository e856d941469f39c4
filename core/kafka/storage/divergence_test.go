package storage

import (
	"math/rand/v2"
	"slices"
	"testing"

	"deliverylab/core/kafka/protocol"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDivergesComparesEpochRuns(t *testing.T) {
	var leader, follower Log
	leader.AppendAsLeader(batch("a", "b"), 0)
	leader.AppendAsLeader(batch("c"), 2)
	follower.AppendAsFollower(leader.Read(0, 2))
	assert.False(t, leader.Diverges(&follower), "a prefix of the leader's log")
	follower.AppendAsFollower(leader.Read(2, 3))
	assert.False(t, leader.Diverges(&follower), "the whole log")

	follower.TruncateTo(2)
	follower.AppendAsLeader(batch("x"), 1) // written by a leader of epoch 1 the others never saw
	assert.True(t, leader.Diverges(&follower), "offset 2 is epoch 1 here, epoch 2 on the leader")

	follower.TruncateTo(2)
	follower.AppendAsLeader(batch("c", "d"), 2)
	assert.True(t, leader.Diverges(&follower), "past the leader's log end")
	follower.TruncateTo(3)
	assert.False(t, leader.Diverges(&follower), "cut back to the leader's log: it agrees again")

	var short Log
	short.AppendAsLeader(batch("a", "b", "c"), 0)
	assert.True(t, leader.Diverges(&short), "epoch 0 runs on here where the leader began epoch 2")
}

// TestDivergesIsTheBatchWalk builds random pairs of logs with the storage API — appends
// as leader in rising and sometimes falling epochs, empty batches, copies as a follower,
// truncations, epochs begun at the log end — and checks that Diverges answers what
// looking up both ends of every batch answers (the check the settle test ran before),
// and that the epoch runs are those of the batches.
func TestDivergesIsTheBatchWalk(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 0))
	outcomes := map[bool]int{}
	irregular := 0
	for round := 0; round < 3000; round++ {
		logs := [2]*Log{{}, {}}
		epoch := int32(0)
		for step := 0; step < 1+rng.IntN(30); step++ {
			l, other := logs[rng.IntN(2)], logs[rng.IntN(2)]
			if rng.IntN(3) == 0 {
				l.Problems() // as the tests' per-instant checks do: it remembers what it checked
			}
			switch op := rng.IntN(10); {
			case op < 4:
				e := epoch
				if rng.IntN(20) == 0 {
					e-- // a batch Problems reports: the epoch goes back
				}
				n := rng.IntN(4)
				if n == 0 && rng.IntN(5) != 0 {
					n = 1 // empty batches, which Problems reports too, now and then
				}
				msgs := make([]string, n)
				for i := range msgs {
					msgs[i] = "m"
				}
				l.AppendAsLeader(batch(msgs...), e)
			case op < 6:
				l.AppendAsFollower(other.Read(l.LEO(), other.LEO()))
			case op < 8:
				if lo := l.LEO(); lo > 0 {
					l.TruncateTo(rng.Int64N(lo + 1))
				}
			case op < 9:
				epoch++
				l.AssignEpochStart(epoch, l.LEO())
			default:
				epoch++
			}
		}
		for _, l := range logs {
			want := l.Clone()
			want.recheck()
			require.True(t, slices.Equal(want.runs, l.runs), "round %d: runs kept on append and truncation: %v, want %v", round, l.runs, want.runs)
			require.Equal(t, want.irregular, l.irregular, "round %d", round)
			require.Equal(t, len(l.Problems()) > 0, l.irregular, "round %d: irregular iff Problems says so: %v", round, l.Problems())
			whole := l.Clone()
			whole.checked = 0
			require.Equal(t, whole.Problems(), l.Problems(), "round %d: checking only what came after the checked batches finds what a whole walk finds", round)
		}
		for _, pair := range [][2]*Log{{logs[0], logs[1]}, {logs[1], logs[0]}} {
			leader, follower := pair[0], pair[1]
			want := follower.LEO() > leader.LEO() || leader.divergesByBatch(follower)
			require.Equal(t, want, leader.Diverges(follower), "round %d: leader %v follower %v", round, leader.batches.copyRange(0, leader.batches.len()), follower.batches.copyRange(0, follower.batches.len()))
			if !leader.irregular && !follower.irregular {
				outcomes[want]++
			} else {
				irregular++
			}
		}
	}
	assert.Greater(t, outcomes[true], 500, "regular pairs that diverge")
	assert.Greater(t, outcomes[false], 500, "regular pairs that agree")
	assert.Greater(t, irregular, 100, "pairs that take the batch walk")
}

func TestEmptyBatchMakesTheLogIrregularUntilCut(t *testing.T) {
	var l Log
	l.AppendAsLeader(batch("a"), 0)
	l.AppendAsLeader(protocol.NewBatch(nil), 0)
	assert.True(t, l.irregular)
	l.TruncateTo(0)
	assert.False(t, l.irregular, "the truncation removed the empty batch")
	assert.Empty(t, l.runs)
}
