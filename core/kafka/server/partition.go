package server

import (
	"maps"
	"math"
	"slices"

	"deliverylab/core/kafka/protocol"
	"deliverylab/core/kafka/storage"
	"deliverylab/core/sim"
)

// Partition is one broker's replica of one partition, as Kafka's Partition is: the log
// and the high watermark, which are durable (the log segments and the high-watermark
// checkpoint), and, while the broker leads it, the leader's view of its followers and
// the ISR it last applied, which are not.
//
// The rules of replication live in three files: this one (becoming leader or follower,
// appending, truncating), partition_hw.go (where the high watermark advances) and
// partition_isr.go (who is in sync).
type Partition struct {
	TP     protocol.TP
	broker string

	// durable
	Log storage.Log
	HW  int64

	// volatile
	state  protocol.PartitionState // what this broker last applied from the controller
	leader *leaderState            // set while this broker leads the partition
	fetch  followerFetch           // set while it follows: its one fetch to the leader
	// what its last truncation removed, and when: the canvas shows the cells cut away
	truncated   []protocol.RecordBatch
	truncatedMs int64
	// the transaction verifications started here, by producer id (KIP-890,
	// txn_verification.go)
	verifying map[int64]verificationEntry
}

// leaderState is what a leader knows beyond its log.
type leaderState struct {
	followers  map[string]*replicaState
	pendingISR []string // the ISR an AlterPartition in flight asks for; nil when none
}

// isrPending reports whether an AlterPartition is in flight.
func (l *leaderState) isrPending() bool { return l.pendingISR != nil }

// neverCaughtUp is the last caught-up time of a follower that was out of the ISR when
// this leader took over (Kafka resets it to 0, the distant past of a wall clock).
const neverCaughtUp = math.MinInt64 / 2

// replicaState is the leader's view of one follower (Kafka's Replica).
type replicaState struct {
	LEO                  int64 // -1 until the follower has fetched from this leader
	LastCaughtUpMs       int64
	LastFetchMs          int64
	LeaderLEOAtLastFetch int64
}

// followerFetch is a follower's one outstanding fetch to its leader.
type followerFetch struct {
	ReqID    int64
	Leader   string
	Epoch    int32
	InFlight bool
	Timeout  sim.TimerID // of the fetch in flight, disarmed when its answer comes
}

func newPartition(tp protocol.TP, broker string) *Partition {
	return &Partition{TP: tp, broker: broker}
}

// maximalISR is the ISR with the members an AlterPartition in flight would add: the
// HW and acks=all wait for them as if they were in already, and a shrink counts only
// once the controller has applied it (Partition's PendingExpandIsr, PendingShrinkIsr).
func (p *Partition) maximalISR() []string {
	isr := slices.Clone(p.state.ISR)
	if p.leader == nil {
		return isr
	}
	for _, m := range p.leader.pendingISR {
		if !slices.Contains(isr, m) {
			isr = append(isr, m)
		}
	}
	return isr
}

// IsLeader reports whether this broker leads the partition.
func (p *Partition) IsLeader() bool { return p.leader != nil }

// State is the partition's state as this broker last applied it.
func (p *Partition) State() protocol.PartitionState { return p.state }

// LEO is the log end offset.
func (p *Partition) LEO() int64 { return p.Log.LEO() }

// makeLeader takes the partition over at the controller's new epoch: the epoch starts
// at the log end, and the clock of every follower in the ISR starts now, so that none is
// shrunk out at once; the others were never caught up with this leader
// (Partition.makeLeader, Replica.resetReplicaState).
func (p *Partition) makeLeader(st protocol.PartitionState, nowMs int64) {
	p.state = st.Clone()
	p.Log.AssignEpochStart(st.LeaderEpoch, p.LEO())
	p.fetch = followerFetch{}
	p.leader = &leaderState{followers: map[string]*replicaState{}}
	for _, f := range st.Replicas {
		if f != p.broker {
			caughtUp := int64(neverCaughtUp)
			if slices.Contains(st.ISR, f) {
				caughtUp = nowMs
			}
			p.leader.followers[f] = &replicaState{LEO: -1, LastCaughtUpMs: caughtUp, LastFetchMs: neverCaughtUp, LeaderLEOAtLastFetch: -1}
		}
	}
}

// makeFollower follows the controller's leader (none when the partition is offline).
func (p *Partition) makeFollower(st protocol.PartitionState) {
	p.state = st.Clone()
	p.leader = nil
	p.fetch = followerFetch{}
	if st.Leader != "" {
		p.fetch = followerFetch{Leader: st.Leader, Epoch: st.LeaderEpoch}
	}
}

// applyISR takes an ISR change of the current leader epoch.
func (p *Partition) applyISR(st protocol.PartitionState) {
	p.state = st.Clone()
	if p.leader != nil {
		p.leader.pendingISR = nil // an ISR change of ours was applied
	}
}

// appendAsLeader appends a batch with the leader's epoch.
func (p *Partition) appendAsLeader(b protocol.RecordBatch) protocol.RecordBatch {
	p.clearVerification(b)
	return p.Log.AppendAsLeader(b, p.state.LeaderEpoch)
}

// appendAsFollower appends what the leader sent, from this log's end on: records the
// follower already has (a batch that starts before its LEO) are skipped.
func (p *Partition) appendAsFollower(batches []protocol.RecordBatch) (int64, []protocol.RecordBatch) {
	leo := p.LEO()
	var fresh []protocol.RecordBatch
	for _, b := range batches {
		if b.LastOffset() < leo {
			continue
		}
		fresh = append(fresh, b.Tail(leo))
	}
	p.Log.AppendAsFollower(fresh)
	p.clearVerification(fresh...)
	return leo, fresh
}

// truncateTo cuts the log at offset (KIP-101); the HW never passes the log end.
func (p *Partition) truncateTo(offset int64) []protocol.RecordBatch {
	removed := p.Log.TruncateTo(offset)
	p.HW = min(p.HW, p.LEO())
	p.Log.HighWatermarkUpdated(p.HW)
	return removed
}

// divergenceTruncation is where a follower truncates when the leader answers that its
// log ends epoch leaderEpoch at leaderEnd (AbstractFetcherThread.getOffsetTruncationState),
// and whether that settles it. When the follower knows that epoch, it keeps the shorter
// of the two ends; when its largest epoch at or below it is an older one, it keeps that
// epoch's end and must ask again with its new last epoch; when the leader knows no epoch
// as old as the follower's, the leader's end is all that is known.
func (p *Partition) divergenceTruncation(leaderEpoch int32, leaderEnd int64) (int64, bool) {
	epoch, end := p.Log.EndOffsetForEpoch(leaderEpoch)
	switch {
	case leaderEpoch < 0 || epoch < 0:
		return min(leaderEnd, p.LEO()), true
	case epoch != leaderEpoch:
		return min(end, p.LEO()), false
	default:
		return min(end, leaderEnd, p.LEO()), true
	}
}

// crash drops what the broker held in memory; the producer state is rebuilt from the
// log, as a restarted broker loads it (UnifiedLog.loadProducerState).
func (p *Partition) crash() {
	p.Log.RecoverProducerState()
	p.truncated = nil
	p.state = protocol.PartitionState{}
	p.leader = nil
	p.fetch = followerFetch{}
	p.verifying = nil
}

func (p *Partition) clone() *Partition {
	c := *p
	c.verifying = maps.Clone(p.verifying)
	c.Log = p.Log.Clone()
	c.state = p.state.Clone()
	if p.leader != nil {
		l := *p.leader
		l.followers = maps.Clone(p.leader.followers)
		for k, v := range l.followers {
			fv := *v
			l.followers[k] = &fv
		}
		c.leader = &l
	}
	return &c
}
