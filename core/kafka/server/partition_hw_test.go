package server

import (
	"testing"

	"deliverylab/core/kafka/protocol"

	"github.com/stretchr/testify/assert"
)

// leaderWith is broker-1 leading with the ISR given: both followers fetched its three
// records by 1000 ms, then it appended two more, which broker-2 alone fetched at 1500.
func leaderWith(isr ...string) *Partition {
	p := logWith(0, 0, 0)
	p.broker = "broker-1"
	p.makeLeader(protocol.PartitionState{TP: p.TP, Leader: "broker-1", Replicas: []string{"broker-1", "broker-2", "broker-3"}, ISR: isr}, 0)
	p.updateFollowerFetchState("broker-2", 3, 1000)
	p.updateFollowerFetchState("broker-3", 3, 1000)
	for range 2 {
		p.appendAsLeader(protocol.NewBatch([]protocol.Record{protocol.DataRecord("m#later", "", "")}))
	}
	p.updateFollowerFetchState("broker-2", 5, 1500)
	return p
}

func anyone(string) bool { return true }

// Partition.maybeIncrementLeaderHW takes the smallest LEO of the maximal ISR, and of the
// followers caught up enough to be about to join it.
func TestHighWatermarkWaitsForTheMaximalISR(t *testing.T) {
	const lagMs = 30000
	late := int64(1000 + lagMs + 1) // broker-3's catch-up has aged out

	p := leaderWith("broker-1", "broker-2")
	assert.True(t, p.maybeIncrementLeaderHW(2, late, lagMs, anyone))
	assert.Equal(t, int64(5), p.HW, "broker-3 is out of the ISR and has not caught up lately: the HW passes it")

	p = leaderWith("broker-1", "broker-2")
	p.leader.pendingISR = []string{"broker-1", "broker-2", "broker-3"}
	p.maybeIncrementLeaderHW(2, late, lagMs, anyone)
	assert.Equal(t, int64(3), p.HW, "an expansion to broker-3 is in flight: the HW waits for it already")

	p = leaderWith("broker-1", "broker-2", "broker-3")
	p.leader.pendingISR = []string{"broker-1", "broker-2"}
	p.maybeIncrementLeaderHW(2, late, lagMs, anyone)
	assert.Equal(t, int64(3), p.HW, "a shrink in flight does not count until the controller applies it")

	p = leaderWith("broker-1", "broker-2")
	p.maybeIncrementLeaderHW(2, 2000, lagMs, anyone)
	assert.Equal(t, int64(3), p.HW, "broker-3 caught up within replica.lag.time.max.ms: the HW waits for it to join")

	p = leaderWith("broker-1", "broker-2")
	p.maybeIncrementLeaderHW(2, 2000, lagMs, func(b string) bool { return b != "broker-3" })
	assert.Equal(t, int64(5), p.HW, "unless it is fenced: it may not join (Partition.isReplicaIsrEligible)")
}

func TestMaximalISR(t *testing.T) {
	p := leaderWith("broker-1")
	assert.Equal(t, []string{"broker-1"}, p.maximalISR())
	p.leader.pendingISR = []string{"broker-1", "broker-3"}
	assert.Equal(t, []string{"broker-1", "broker-3"}, p.maximalISR(), "acks=all counts a member being added (checkEnoughReplicasReachOffset)")
}

// A follower out of the ISR when the leader took over was never caught up with it
// (Replica.resetReplicaState), however early in the run: its first fetch short of the
// log end does not hold the HW back.
func TestFollowerOutOfTheISRAtTakeoverIsNotCaughtUp(t *testing.T) {
	p := logWith(0, 0, 0, 0, 0)
	p.broker = "broker-1"
	p.makeLeader(protocol.PartitionState{TP: p.TP, Leader: "broker-1", Replicas: []string{"broker-1", "broker-2", "broker-3"},
		ISR: []string{"broker-1", "broker-2"}}, 10)
	p.updateFollowerFetchState("broker-2", 5, 20)
	p.updateFollowerFetchState("broker-3", 2, 20)
	p.maybeIncrementLeaderHW(2, 30, 30000, anyone)
	assert.Equal(t, int64(5), p.HW)
}
