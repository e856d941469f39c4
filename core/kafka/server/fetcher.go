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
	env.Send(p.fetch.Leader, protocol.FetchRequest{ReqID: p.fetch.ReqID, TP: tp, Replica: rm.broker, FetchOffset: p.LEO(),
		LastFetchedEpoch: p.Log.LastEpoch(), MaxWaitMs: rm.cfg.ReplicaFetchWaitMaxMs})
	env.After(rm.cfg.ReplicaFetchWaitMaxMs+ReplicaSocketTimeoutMs, fetchTimeout{TP: tp, ReqID: p.fetch.ReqID})
}

// onFetchResponse appends what the leader sent, or truncates where the leader says the
// logs diverge (KIP-320), takes the leader's HW and fetches again.
func (rm *ReplicaManager) onFetchResponse(env *sim.Env, from string, resp protocol.FetchResponse) {
	p := rm.partitions[resp.TP]
	if p == nil || !p.fetch.InFlight || p.fetch.ReqID != resp.ReqID || p.fetch.Leader != from {
		return
	}
	p.fetch.InFlight = false
	switch {
	case resp.Err != "":
		env.After(rm.cfg.ReplicaFetchBackoffMs, fetchRetry{TP: resp.TP})
		return
	case resp.Diverging:
		at := min(resp.DivergedEnd, p.LEO())
		removed := p.truncateTo(at)
		env.Note(fmt.Sprintf("truncates %s to %d (leader epoch %d ends there)", resp.TP, at, resp.DivergedEpoch))
		if ids := protocol.MsgsOf(removed); len(ids) > 0 {
			env.Observe(sim.Observation{Event: protocol.Truncated, Partition: resp.TP.String(), Offset: at, Msgs: ids})
		}
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

// onFetchRefused retries a fetch that reached a leader that was down.
func (rm *ReplicaManager) onFetchRefused(env *sim.Env, f protocol.FetchRequest) {
	if p := rm.partitions[f.TP]; p != nil && p.fetch.InFlight && p.fetch.ReqID == f.ReqID {
		p.fetch.InFlight = false
		env.After(rm.cfg.ReplicaFetchBackoffMs, fetchRetry{TP: f.TP})
	}
}
