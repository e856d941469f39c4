package scene

import (
	"testing"

	"deliverylab/core/kafka/server"
	"deliverylab/core/kafka/storage"
	"deliverylab/core/sim"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// oldDiverges is the settle check's divergence test as it was before it compared epoch
// runs: both ends of every batch of the follower looked up in the leader's log.
func oldDiverges(leader, follower *storage.Log) bool {
	if follower.LEO() > leader.LEO() {
		return true
	}
	epochAt := func(off int64) int32 {
		if got := leader.Read(off, off+1); len(got) > 0 {
			return got[0].LeaderEpoch
		}
		return -1
	}
	for _, b := range follower.All() {
		if epochAt(b.BaseOffset) != b.LeaderEpoch || epochAt(b.LastOffset()) != b.LeaderEpoch {
			return true
		}
	}
	return false
}

// Every shipped scene, stepped to its end: at the end of every instant, for every two
// replicas of a partition (up or down), the epoch-run comparison answers what the batch
// walk answers.
func TestDivergenceByEpochsMatchesTheBatchWalkInShippedScenes(t *testing.T) {
	seen := map[bool]int{}
	eachInstantOfShippedScenes(t, func(s *Scene, w *sim.World) {
		brokers := brokersOf(w)
		require.NotEmpty(t, brokers, s.Name)
		for _, a := range brokers {
			for _, b := range brokers {
				for _, tp := range a.Replicas().TPs() {
					pa, pb := a.Replicas().Partition(tp), b.Replicas().Partition(tp)
					if a == b || pb == nil {
						continue
					}
					want := oldDiverges(&pa.Log, &pb.Log)
					require.Equal(t, want, pa.Log.Diverges(&pb.Log), "%s at %d ms: %s on %s and %s", s.Name, w.NowMs(), tp, a.Name(), b.Name())
					seen[want]++
				}
			}
		}
	})
	assert.Greater(t, seen[true], 100, "instants where a replica diverges")
	assert.Greater(t, seen[false], 1000, "instants where it agrees")
}

// eachInstantOfShippedScenes steps every shipped scene to its end and calls at with the
// world at the end of every instant, where the settle check is asked.
func eachInstantOfShippedScenes(t *testing.T, at func(s *Scene, w *sim.World)) {
	for _, s := range shippedScenes(t) {
		r := s.NewRun()
		for r.Step() {
			if r.World.NextEventMs() != r.World.NowMs() {
				at(s, r.World)
			}
		}
	}
}

// brokersOf lists the world's brokers, up or down, as they are now (a restart may bring
// a new node).
func brokersOf(w *sim.World) []*server.Broker {
	var out []*server.Broker
	for _, name := range w.NodeNames() {
		if b, ok := nodeOf(w, name).(*server.Broker); ok {
			out = append(out, b)
		}
	}
	return out
}

func nodeOf(w *sim.World, name string) sim.Node {
	n, _ := w.Node(name)
	return n
}
