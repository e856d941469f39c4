package server

import (
	"fmt"
	"maps"
	"slices"

	"deliverylab/core/kafka/protocol"
	"deliverylab/core/sim"
)

// ReplicaManager is the broker's role as a host of partition replicas, as Kafka's
// ReplicaManager is: it applies the controller's metadata (becoming leader or follower),
// appends produce batches, answers fetches from followers and consumers, replicates from
// leaders, and keeps the requests that must wait in its purgatories.
type ReplicaManager struct {
	broker string
	cfg    Config

	// durable: the logs and high watermarks inside
	partitions map[protocol.TP]*Partition

	// volatile
	meta           map[protocol.TP]protocol.PartitionState // the metadata cache: every partition
	metadataOffset int64                                   // how far it has read the controller's metadata log
	fenced         []string                                // the brokers fenced, as the metadata log says
	reqSeq         int64
	produces       purgatory[delayedProduce]
	fetches        purgatory[delayedFetch]
	verifying      map[int64]pendingVerification // produce requests waiting for their verification (KIP-890)
}

// hooks is how the replica manager tells the broker's other roles what happened to a
// partition they care about: a local append completed, leadership came or went.
type hooks interface {
	appendDone(env *sim.Env, ref int64, tp protocol.TP, err protocol.Error)
	becameLeader(env *sim.Env, p *Partition)
	resigned(env *sim.Env, tp protocol.TP)
	// markerWritten: a transaction marker this leader appended is replicated (wireID:
	// the marker response's)
	markerWritten(env *sim.Env, tp protocol.TP, pid int64, commit bool, wireID int64)
	// offsetsAdded: the transaction coordinator answered the add of a TxnOffsetCommit's
	// offsets partition (transactions version 2): on no error the group coordinator
	// handles the request.
	offsetsAdded(env *sim.Env, from string, req protocol.TxnOffsetCommitRequest, err protocol.Error)
}

func newReplicaManager(broker string, cfg Config) ReplicaManager {
	return ReplicaManager{broker: broker, cfg: cfg, partitions: map[protocol.TP]*Partition{}, meta: map[protocol.TP]protocol.PartitionState{}}
}

// host creates an empty replica, for the initial assignment and for a replica the
// controller assigns later.
func (rm *ReplicaManager) host(tp protocol.TP) *Partition {
	p := rm.partitions[tp]
	if p == nil {
		p = newPartition(tp, rm.broker)
		rm.partitions[tp] = p
	}
	return p
}

// Partition returns this broker's replica of a partition, if it hosts one.
func (rm *ReplicaManager) Partition(tp protocol.TP) *Partition { return rm.partitions[tp] }

// TPs lists the partitions this broker hosts, sorted.
func (rm *ReplicaManager) TPs() []protocol.TP {
	return protocol.SortedTPs(rm.partitions)
}

func (rm *ReplicaManager) leaderOf(tp protocol.TP) *Partition {
	if p := rm.partitions[tp]; p != nil && p.IsLeader() {
		return p
	}
	return nil
}

func (rm *ReplicaManager) minISR(p *Partition) int {
	if p.TP.Topic == protocol.TransactionStateTopic {
		// __transaction_state is created with min.insync.replicas set to
		// transaction.state.log.min.isr (TransactionStateManager.transactionTopicConfigs)
		return min(TransactionStateLogMinISR, len(p.state.Replicas))
	}
	return rm.cfg.EffectiveMinISR(len(p.state.Replicas))
}

func (rm *ReplicaManager) nextReq() int64 {
	rm.reqSeq++
	return rm.reqSeq
}

func (rm *ReplicaManager) start(env *sim.Env) {
	rm.meta = map[protocol.TP]protocol.PartitionState{}
	rm.metadataOffset, rm.fenced = 0, nil
	env.After(rm.cfg.ReplicaLagTimeMaxMs/2, isrCheck{})
}

// crash drops everything but the logs, epoch caches and high-watermark checkpoints.
func (rm *ReplicaManager) crash() {
	rm.meta = nil
	rm.produces = purgatory[delayedProduce]{}
	rm.fetches = purgatory[delayedFetch]{}
	rm.verifying = nil
	for _, p := range rm.partitions {
		p.crash()
	}
}

func (rm *ReplicaManager) clone() ReplicaManager {
	c := *rm
	c.partitions = make(map[protocol.TP]*Partition, len(rm.partitions))
	for k, p := range rm.partitions {
		c.partitions[k] = p.clone()
	}
	c.meta = maps.Clone(rm.meta)
	c.fenced = slices.Clone(rm.fenced)
	for k, v := range c.meta {
		c.meta[k] = v.Clone()
	}
	c.produces = rm.produces.clone()
	c.fetches = rm.fetches.clone()
	c.verifying = maps.Clone(rm.verifying)
	return c
}

// handle takes the messages the replica manager answers; it reports whether m was one.
func (rm *ReplicaManager) handle(env *sim.Env, h hooks, m sim.Message) bool {
	switch p := m.Payload.(type) {
	case protocol.MetadataUpdate:
		if p.Offset >= rm.metadataOffset {
			rm.fenced = slices.Clone(p.Fenced)
			if p.From <= rm.metadataOffset {
				rm.metadataOffset = p.Offset // read in order: nothing missed before these
			}
		}
		rm.applyMetadata(env, h, p.Partitions)
	case protocol.AlterPartitionResponse:
		rm.onAlterPartitionResponse(env, h, p)
	case protocol.MetadataRequest:
		env.Send(m.From, protocol.MetadataResponse{Partitions: rm.metadataFor(p.Topics)})
	case protocol.ProduceRequest:
		rm.handleProduce(env, h, m.From, p)
	case protocol.FetchRequest:
		rm.handleFetch(env, h, m.From, p)
	case protocol.WriteTxnMarkersRequest:
		rm.handleWriteTxnMarkers(env, h, m.From, p)
	case protocol.FetchResponse:
		rm.onFetchResponse(env, m.From, p)
	case protocol.ListOffsetsRequest:
		rm.handleListOffsets(env, m.From, p)
	case protocol.OffsetsForLeaderEpochRequest:
		rm.handleOffsetsForLeaderEpoch(env, m.From, p)
	case protocol.VerifyPartitionsInTxnResponse:
		rm.onVerifyResponse(env, h, p)
	case sim.Disconnected:
		rm.onDisconnected(env, p.Peer)
		rm.verificationsTo(env, h, p.Peer)
	case sim.Refused:
		if v, ok := p.Orig.(protocol.VerifyPartitionsInTxnRequest); ok {
			rm.verificationLost(env, h, v.ReqID)
			return true
		}
		f, ok := p.Orig.(protocol.FetchRequest)
		if !ok {
			return false
		}
		rm.onFetchRefused(env, f)
	default:
		return false
	}
	return true
}

// fire runs the replica manager's timers; it reports whether t was one.
func (rm *ReplicaManager) fire(env *sim.Env, h hooks, t sim.Payload) bool {
	switch t := t.(type) {
	case isrCheck:
		rm.checkISR(env)
		env.After(rm.cfg.ReplicaLagTimeMaxMs/2, t)
	case produceExpiry:
		rm.expireProduces(env, h)
	case fetchExpiry:
		rm.expireFetches(env)
	case verifyTimeout:
		rm.verificationLost(env, h, t.ReqID)
	case verifyRetry:
		rm.retryVerification(env, t.ReqID)
	case completeDelayed:
		rm.completeDelayed(env, h, t.TP)
	case fetchRetry:
		rm.sendFollowerFetch(env, t.TP)
	case fetchTimeout:
		if p := rm.partitions[t.TP]; p != nil && p.fetch.InFlight && p.fetch.ReqID == t.ReqID {
			p.fetch.InFlight = false
			rm.sendFollowerFetch(env, t.TP)
		}
	default:
		return false
	}
	return true
}

func (rm *ReplicaManager) metadataFor(topics []string) []protocol.PartitionState {
	var out []protocol.PartitionState
	for _, tp := range protocol.SortedTPs(rm.meta) {
		if len(topics) == 0 || slices.Contains(topics, tp.Topic) {
			out = append(out, rm.meta[tp].Clone())
		}
	}
	return out
}

// applyMetadata applies partition states from the controller: this broker becomes
// leader or follower of the partitions it hosts whenever the leader epoch moves on.
func (rm *ReplicaManager) applyMetadata(env *sim.Env, h hooks, states []protocol.PartitionState) {
	for _, st := range states {
		old, had := rm.meta[st.TP]
		if had && !st.Newer(old) {
			continue // stale
		}
		rm.meta[st.TP] = st.Clone()
		if !slices.Contains(st.Replicas, rm.broker) {
			continue
		}
		p := rm.host(st.TP)
		newEpoch := !had || old.LeaderEpoch != st.LeaderEpoch
		switch {
		case st.Leader == rm.broker && (newEpoch || old.Leader != rm.broker):
			rm.becomeLeader(env, h, p, st)
		case st.Leader == rm.broker:
			p.applyISR(st)
			rm.maybeAdvanceHW(env, p)
		case newEpoch || old.Leader != st.Leader:
			rm.becomeFollower(env, h, p, st)
		}
	}
}

func (rm *ReplicaManager) becomeLeader(env *sim.Env, h hooks, p *Partition, st protocol.PartitionState) {
	p.makeLeader(st, env.Now())
	h.becameLeader(env, p)
	env.Note(fmt.Sprintf("leads %s epoch=%d leo=%d hw=%d", st.TP, st.LeaderEpoch, p.LEO(), p.HW))
	rm.maybeAdvanceHW(env, p)
}

func (rm *ReplicaManager) becomeFollower(env *sim.Env, h hooks, p *Partition, st protocol.PartitionState) {
	p.makeFollower(st)
	rm.failDelayed(env, h, st.TP, protocol.ErrNotLeaderOrFollower)
	if st.Leader == "" {
		return
	}
	env.Note(fmt.Sprintf("follows %s on %s epoch=%d", st.TP, st.Leader, st.LeaderEpoch))
	if rm.cfg.TruncateToHighWatermark && p.HW < p.LEO() {
		// Before KIP-101 a new follower cut its log to its own high watermark, which may
		// lag the leader's: acknowledged records above it are gone from this replica.
		rm.truncate(env, p, p.HW, "its high watermark: replication before KIP-101")
	}
	rm.sendFollowerFetch(env, st.TP)
}

// maybeAdvanceHW moves a leader's high watermark (partition_hw.go) and, when it moved,
// schedules the check of the requests waiting for it and answers the consumers' long
// polls.
func (rm *ReplicaManager) maybeAdvanceHW(env *sim.Env, p *Partition) {
	eligible := func(b string) bool { return !slices.Contains(rm.fenced, b) }
	if !p.maybeIncrementLeaderHW(rm.minISR(p), env.Now(), rm.cfg.ReplicaLagTimeMaxMs, eligible) {
		return
	}
	env.Note(fmt.Sprintf("hw %s=%d", p.TP, p.HW))
	env.After(0, completeDelayed{TP: p.TP})
	rm.wakeFetches(env, p, false)
}
