package server

import (
	"fmt"

	"deliverylab/core/kafka/protocol"
	"deliverylab/core/sim"
)

// The follower's side of replication (Kafka's ReplicaFetcherThread): one fetch at a
// time to the partition's leader, from the follower's log end, with the epoch of its last
// batch so the leader can say where the logs diverge.

// sendFollowerFetch sends the follower's next fetch to its leader.
func (rm *ReplicaManager) sendFollowerFetch(env *sim.Env, tp protocol.TP) {
	p := rm.partitions[tp]
	if p == nil || p.fetch.Leader == "" || p.fetch.InFlight {
		return
	}
	p.fetch.ReqID = rm.nextReq()
	p.fetch.InFlight = true
	lastEpoch := p.Log.LastEpoch()
	if rm.cfg.TruncateToHighWatermark {
		lastEpoch = -1 // before KIP-101 no epochs were compared
	}
	env.Send(p.fetch.Leader, protocol.FetchRequest{ReqID: p.fetch.ReqID, TP: tp, Replica: rm.broker, FetchOffset: p.LEO(),
		LastFetchedEpoch: lastEpoch, MaxWaitMs: rm.cfg.ReplicaFetchWaitMaxMs})
	p.fetch.Timeout = env.After(rm.cfg.ReplicaFetchWaitMaxMs+ReplicaSocketTimeoutMs, fetchTimeout{TP: tp, ReqID: p.fetch.ReqID})
}

// onFetchResponse appends what the leader sent, or truncates where the leader says the
// logs diverge (KIP-320), takes the leader's HW and fetches again.
func (rm *ReplicaManager) onFetchResponse(env *sim.Env, from string, resp protocol.FetchResponse) {
	p := rm.partitions[resp.TP]
	if p == nil || !p.fetch.InFlight || p.fetch.ReqID != resp.ReqID || p.fetch.Leader != from {
		return
	}
	p.fetch.InFlight = false
	env.Disarm(p.fetch.Timeout) // answered: ReqID is never sent again
	switch {
	case resp.Err == protocol.ErrOffsetOutOfRange:
		// Past the leader's log end (only without epochs, which would have said where the
		// logs diverge): cut to the leader's end and fetch from there
		// (ReplicaFetcherThread.handleOffsetOutOfRange before KIP-101).
		rm.truncate(env, p, resp.LogEnd, "the leader's log ends there")
		rm.sendFollowerFetch(env, resp.TP)
		return
	case resp.Err != "":
		env.After(rm.cfg.ReplicaFetchBackoffMs, fetchRetry{TP: resp.TP})
		return
	case resp.Diverging:
		// A diverging answer carries no HW to take (AbstractFetcherThread.processFetchRequest):
		// the HW comes with a later fetch, once the logs agree.
		rm.truncateOnDivergence(env, p, resp)
		if env.Alive() {
			rm.sendFollowerFetch(env, resp.TP)
		}
		return
	case len(resp.Batches) > 0:
		if base, fresh := p.appendAsFollower(resp.Batches); len(fresh) > 0 {
			env.Observe(sim.Observation{Event: protocol.Replicated, Partition: resp.TP.String(), Offset: base, Msgs: protocol.MsgsOf(fresh)})
		}
	}
	if !env.Alive() {
		return
	}
	p.updateFollowerHW(resp.HW)
	rm.sendFollowerFetch(env, resp.TP)
}

// truncateOnDivergence cuts the follower's log where the leader says it diverges. When
// the follower does not know the leader's epoch, it cuts to the end of its own largest
// epoch below it and the next fetch asks again, until the logs agree
// (AbstractFetcherThread.getOffsetTruncationState).
func (rm *ReplicaManager) truncateOnDivergence(env *sim.Env, p *Partition, resp protocol.FetchResponse) {
	at, done := p.divergenceTruncation(resp.DivergedEpoch, resp.DivergedEnd)
	how := fmt.Sprintf("leader epoch %d ends there", resp.DivergedEpoch)
	if !done {
		how = fmt.Sprintf("its own epoch below the leader's epoch %d ends there; it asks again", resp.DivergedEpoch)
	}
	rm.truncate(env, p, at, how)
}

// truncate cuts a replica's log at offset, saying why, and reports the messages removed.
func (rm *ReplicaManager) truncate(env *sim.Env, p *Partition, at int64, why string) {
	removed := p.truncateTo(at)
	env.Note(fmt.Sprintf("truncates %s to %d (%s)", p.TP, at, why))
	if len(removed) > 0 {
		p.truncated, p.truncatedMs = removed, env.Now()
	}
	if ids := protocol.MsgsOf(removed); len(ids) > 0 {
		env.Observe(sim.Observation{Event: protocol.Truncated, Partition: p.TP.String(), Offset: at, Msgs: ids})
	}
}

// onDisconnected retries, after replica.fetch.backoff.ms, the fetches in flight to a
// leader that crashed and reset the connection.
func (rm *ReplicaManager) onDisconnected(env *sim.Env, peer string) {
	for _, tp := range rm.TPs() {
		if p := rm.partitions[tp]; p.fetch.InFlight && p.fetch.Leader == peer {
			p.fetch.InFlight = false
			env.After(rm.cfg.ReplicaFetchBackoffMs, fetchRetry{TP: tp})
		}
	}
}

// onFetchRefused retries a fetch that reached a leader that was down.
func (rm *ReplicaManager) onFetchRefused(env *sim.Env, f protocol.FetchRequest) {
	if p := rm.partitions[f.TP]; p != nil && p.fetch.InFlight && p.fetch.ReqID == f.ReqID {
		p.fetch.InFlight = false
		env.After(rm.cfg.ReplicaFetchBackoffMs, fetchRetry{TP: f.TP})
	}
}
