package server

import (
	"deliverylab/core/kafka/protocol"
	"deliverylab/core/sim"
)

// handleFetch is the leader's fetch path, for followers (replication) and consumers.
func (rm *ReplicaManager) handleFetch(env *sim.Env, h hooks, from string, req protocol.FetchRequest) {
	p := rm.leaderOf(req.TP)
	if p == nil {
		env.Send(from, protocol.FetchResponse{ReqID: req.ReqID, TP: req.TP, Err: protocol.ErrNotLeaderOrFollower})
		return
	}
	if req.Replica != "" {
		if resp, diverged := divergence(p, req); diverged {
			env.Send(from, resp)
			return
		}
		if req.FetchOffset > p.LEO() {
			env.Send(from, protocol.FetchResponse{ReqID: req.ReqID, TP: req.TP, Err: protocol.ErrOffsetOutOfRange, HW: p.HW, LogEnd: p.LEO()})
			return
		}
		rm.updateFollower(env, p, req)
		if !env.Alive() {
			return
		}
	} else if req.FetchOffset > p.LEO() || req.FetchOffset < 0 {
		// Only past the log end is out of range (LocalLog.read): between the HW and the
		// log end a consumer reads nothing yet, as it does after a failover to a leader
		// whose HW still lags.
		env.Send(from, protocol.FetchResponse{ReqID: req.ReqID, TP: req.TP, Err: protocol.ErrOffsetOutOfRange, HW: p.HW})
		return
	}
	if batches := readable(p, req); len(batches) > 0 {
		answerFetch(env, from, p, req, batches)
		return
	}
	// Long poll: hold the fetch until data arrives or the wait runs out. Kafka answers at
	// once when the wait is 0 (ReplicaManager.fetchMessages), but a real round trip then
	// still takes time; the simulated clock counts whole milliseconds, so an empty answer
	// comes no sooner than the next one, or a zero wait over a zero-latency link would
	// fetch for ever in one instant.
	wait := max(req.MaxWaitMs, minEmptyFetchMs)
	rm.fetches.add(delayedFetch{From: from, Req: req, Deadline: env.Now() + wait})
	env.After(wait, fetchExpiry{})
}

// minEmptyFetchMs is the least time an empty fetch takes.
const minEmptyFetchMs = 1

// readable is what a fetch may read: up to the LEO for a follower, below the HW for a
// read_uncommitted consumer (R2), below the last stable offset for a read_committed one
// (ReplicaManager.readFromLog: FetchIsolation TXN_COMMITTED reads up to the LSO), so an
// open transaction holds back every later record, other producers' too.
func readable(p *Partition, req protocol.FetchRequest) []protocol.RecordBatch {
	return p.Log.Read(req.FetchOffset, readEnd(p, req))
}

func readEnd(p *Partition, req protocol.FetchRequest) int64 {
	switch {
	case req.Replica != "":
		return p.LEO()
	case req.Isolation == protocol.ReadCommitted:
		return p.LastStableOffset()
	}
	return p.HW
}

// answerFetch answers with the batches read; a read_committed answer also carries the
// LSO and the aborted transactions among the batches (UnifiedLog.collectAbortedTransactions
// over the range read), which the consumer needs to drop their records.
func answerFetch(env *sim.Env, to string, p *Partition, req protocol.FetchRequest, batches []protocol.RecordBatch) {
	resp := protocol.FetchResponse{ReqID: req.ReqID, TP: req.TP, Batches: batches, HW: p.HW}
	if req.Replica == "" && req.Isolation == protocol.ReadCommitted {
		resp.Isolation, resp.LastStable = protocol.ReadCommitted, p.LastStableOffset()
		if n := len(batches); n > 0 {
			resp.Aborted = p.Log.AbortedTxns(req.FetchOffset, batches[n-1].NextOffset())
		}
	}
	env.Send(to, resp)
}

// divergence tells a follower whose last fetched epoch ends earlier in the leader's log
// where to truncate (KIP-320).
func divergence(p *Partition, req protocol.FetchRequest) (protocol.FetchResponse, bool) {
	if req.LastFetchedEpoch < 0 {
		return protocol.FetchResponse{}, false
	}
	epoch, end := p.Log.EndOffsetForEpoch(req.LastFetchedEpoch)
	if epoch == req.LastFetchedEpoch && end >= req.FetchOffset {
		return protocol.FetchResponse{}, false
	}
	return protocol.FetchResponse{ReqID: req.ReqID, TP: req.TP, HW: p.HW, Diverging: true, DivergedEpoch: epoch, DivergedEnd: end}, true
}

// updateFollower records a follower's position, then moves the ISR and the HW.
func (rm *ReplicaManager) updateFollower(env *sim.Env, p *Partition, req protocol.FetchRequest) {
	p.updateFollowerFetchState(req.Replica, req.FetchOffset, env.Now())
	rm.maybeExpandISR(env, p, req.Replica)
	rm.maybeAdvanceHW(env, p)
}

// wakeFetches answers the long polls that can now read something: followers after an
// append, consumers after the HW moved.
func (rm *ReplicaManager) wakeFetches(env *sim.Env, p *Partition, followers bool) {
	ready := func(d delayedFetch) bool { return d.follower() == followers && len(readable(p, d.Req)) > 0 }
	for _, d := range rm.fetches.complete(p.TP, ready) {
		answerFetch(env, d.From, p, d.Req, readable(p, d.Req))
	}
}

func (rm *ReplicaManager) expireFetches(env *sim.Env) {
	for _, d := range rm.fetches.expire(env.Now()) {
		if p := rm.partitions[d.Req.TP]; p != nil {
			answerFetch(env, d.From, p, d.Req, nil)
		}
	}
}

func (rm *ReplicaManager) failFetches(env *sim.Env, tp protocol.TP, err protocol.Error) {
	for _, d := range rm.fetches.watching(tp) {
		env.Send(d.From, protocol.FetchResponse{ReqID: d.Req.ReqID, TP: tp, Err: err})
	}
}

// handleListOffsets answers the latest offset a consumer may read: the HW, or the LSO
// for read_committed (Partition.fetchOffsetForTimestamp with IsolationLevel
// READ_COMMITTED).
func (rm *ReplicaManager) handleListOffsets(env *sim.Env, from string, req protocol.ListOffsetsRequest) {
	p := rm.leaderOf(req.TP)
	if p == nil {
		env.Send(from, protocol.ListOffsetsResponse{TP: req.TP, Err: protocol.ErrNotLeaderOrFollower})
		return
	}
	latest := p.HW
	if req.Isolation == protocol.ReadCommitted {
		latest = p.LastStableOffset()
	}
	env.Send(from, protocol.ListOffsetsResponse{TP: req.TP, Offset: latest})
}

// handleOffsetsForLeaderEpoch tells a consumer where the leader's log ends an epoch, so
// that it can see whether its position lies past a truncation (KIP-320;
// Partition.lastOffsetForLeaderEpoch).
func (rm *ReplicaManager) handleOffsetsForLeaderEpoch(env *sim.Env, from string, req protocol.OffsetsForLeaderEpochRequest) {
	p := rm.leaderOf(req.TP)
	if p == nil {
		env.Send(from, protocol.OffsetsForLeaderEpochResponse{ReqID: req.ReqID, TP: req.TP, Err: protocol.ErrNotLeaderOrFollower})
		return
	}
	epoch, end := p.Log.EndOffsetForEpoch(req.LeaderEpoch)
	env.Send(from, protocol.OffsetsForLeaderEpochResponse{ReqID: req.ReqID, TP: req.TP, LeaderEpoch: epoch, EndOffset: end})
}
