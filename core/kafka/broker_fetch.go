package kafka

import (
	"fmt"

	"deliverylab/core/sim"
)

// onFetch is the leader's fetch path, for followers (replication) and consumers.
func (b *Broker) onFetch(env *sim.Env, from string, req FetchRequest) {
	r := b.replicas[req.TP]
	if r == nil || !b.IsLeader(req.TP) {
		env.Send(from, FetchResponse{ReqID: req.ReqID, TP: req.TP, Err: ErrNotLeaderOrFollower})
		return
	}
	if req.Replica != "" {
		if resp, diverged := b.divergence(r, req); diverged {
			env.Send(from, resp)
			return
		}
		b.updateFollower(env, r, req)
		if !env.Alive() {
			return
		}
	} else if req.FetchOffset > r.HW || req.FetchOffset < 0 {
		env.Send(from, FetchResponse{ReqID: req.ReqID, TP: req.TP, Err: ErrOffsetOutOfRange, HW: r.HW})
		return
	}
	if recs := b.readable(r, req); len(recs) > 0 || req.MaxWaitMs == 0 {
		b.answerFetch(env, from, r, req, recs)
		return
	}
	// Long poll: hold the fetch until data arrives or the wait runs out.
	b.parked = append(b.parked, parkedFetch{From: from, Req: req, DeadlineMs: env.Now() + req.MaxWaitMs})
	env.After(req.MaxWaitMs, brokerTimer{What: "fetch-wait", TP: req.TP})
}

// readable is what a fetch may read: up to the LEO for a follower, below the HW for a
// consumer (R2).
func (b *Broker) readable(r *Replica, req FetchRequest) []Record {
	end := r.HW
	if req.Replica != "" {
		end = r.LEO()
	}
	if req.FetchOffset >= end || req.FetchOffset < 0 {
		return nil
	}
	return append([]Record(nil), r.Log[req.FetchOffset:end]...)
}

func (b *Broker) answerFetch(env *sim.Env, to string, r *Replica, req FetchRequest, recs []Record) {
	env.Send(to, FetchResponse{ReqID: req.ReqID, TP: req.TP, Records: recs, HW: r.HW})
}

// divergence tells a follower whose last fetched epoch ends earlier in the leader's log
// where to truncate (KIP-320).
func (b *Broker) divergence(r *Replica, req FetchRequest) (FetchResponse, bool) {
	if req.LastFetchedEpoch < 0 {
		return FetchResponse{}, false
	}
	epoch, end := r.endOffsetFor(req.LastFetchedEpoch)
	if epoch == req.LastFetchedEpoch && end >= req.FetchOffset {
		return FetchResponse{}, false
	}
	return FetchResponse{ReqID: req.ReqID, TP: req.TP, HW: r.HW, Diverging: true, DivergedEpoch: epoch, DivergedEnd: end}, true
}

// updateFollower records a follower's position (its fetch offset is its LEO) and when it
// was last caught up, then moves the HW and the ISR.
func (b *Broker) updateFollower(env *sim.Env, r *Replica, req FetchRequest) {
	f := r.followers[req.Replica]
	if f == nil {
		f = &followerState{LastCaughtUpMs: env.Now()}
		r.followers[req.Replica] = f
	}
	leo := r.LEO()
	switch {
	case req.FetchOffset >= leo:
		f.LastCaughtUpMs = env.Now()
	case req.FetchOffset >= f.LeaderLEOAtLastFetch && f.LastFetchMs > f.LastCaughtUpMs:
		f.LastCaughtUpMs = f.LastFetchMs
	}
	f.LEO = req.FetchOffset
	f.LastFetchMs = env.Now()
	f.LeaderLEOAtLastFetch = leo
	b.maybeExpandISR(env, r, req.Replica)
	b.maybeAdvanceHW(env, r)
}

// wakeParked answers held fetches that can now read something: followers after an
// append, consumers after the HW moved.
func (b *Broker) wakeParked(env *sim.Env, tp TP, appended bool) {
	r := b.replicas[tp]
	keep := b.parked[:0:0]
	for _, p := range b.parked {
		if p.Req.TP == tp && (p.Req.Replica != "") == appended {
			if recs := b.readable(r, p.Req); len(recs) > 0 {
				b.answerFetch(env, p.From, r, p.Req, recs)
				continue
			}
		}
		keep = append(keep, p)
	}
	b.parked = keep
}

func (b *Broker) expireParkedFetches(env *sim.Env) {
	keep := b.parked[:0:0]
	for _, p := range b.parked {
		if p.DeadlineMs > env.Now() {
			keep = append(keep, p)
			continue
		}
		if r := b.replicas[p.Req.TP]; r != nil {
			b.answerFetch(env, p.From, r, p.Req, nil)
		}
	}
	b.parked = keep
}

func (b *Broker) failParked(env *sim.Env, tp TP, err string) {
	keep := b.parked[:0:0]
	for _, p := range b.parked {
		if p.Req.TP != tp {
			keep = append(keep, p)
			continue
		}
		env.Send(p.From, FetchResponse{ReqID: p.Req.ReqID, TP: tp, Err: err})
	}
	b.parked = keep
}

// sendFollowerFetch sends the follower's next fetch to its leader.
func (b *Broker) sendFollowerFetch(env *sim.Env, tp TP) {
	r := b.replicas[tp]
	if r == nil || r.fetch.Leader == "" || r.fetch.InFlight {
		return
	}
	r.fetch.ReqID = b.nextReq()
	r.fetch.InFlight = true
	env.Send(r.fetch.Leader, FetchRequest{ReqID: r.fetch.ReqID, TP: tp, Replica: b.name, FetchOffset: r.LEO(),
		LastFetchedEpoch: r.lastEpoch(), MaxWaitMs: b.cfg.ReplicaFetchWaitMaxMs})
	env.After(b.cfg.ReplicaFetchWaitMaxMs+replicaSocketTimeoutMs, brokerTimer{What: "fetch-timeout", TP: tp, ID: r.fetch.ReqID})
}

// onFetchResponse is the follower's side of replication.
func (b *Broker) onFetchResponse(env *sim.Env, from string, resp FetchResponse) {
	r := b.replicas[resp.TP]
	if r == nil || !r.fetch.InFlight || r.fetch.ReqID != resp.ReqID || r.fetch.Leader != from {
		return
	}
	r.fetch.InFlight = false
	switch {
	case resp.Err != "":
		env.After(b.cfg.ReplicaFetchBackoffMs, brokerTimer{What: "fetch-retry", TP: resp.TP})
		return
	case resp.Diverging:
		at := resp.DivergedEnd
		if at > r.LEO() {
			at = r.LEO()
		}
		removed := r.truncate(at)
		env.Note(fmt.Sprintf("truncates %s to %d (leader epoch %d ends there)", resp.TP, at, resp.DivergedEpoch))
		if ids := msgsOf(removed); len(ids) > 0 {
			env.Observe(sim.Observation{Event: "truncated", Partition: resp.TP.String(), Offset: at, Msgs: ids})
		}
	case len(resp.Records) > 0 && resp.Records[0].Offset == r.LEO():
		base := r.append(resp.Records, -1)
		env.Observe(sim.Observation{Event: "replicated", Partition: resp.TP.String(), Offset: base, Msgs: msgsOf(resp.Records)})
	}
	if !env.Alive() {
		return
	}
	hw := resp.HW
	if hw > r.LEO() {
		hw = r.LEO()
	}
	if hw > r.HW {
		r.HW = hw
	}
	b.sendFollowerFetch(env, resp.TP)
}

// onListOffsets answers the latest offset a consumer may read: the HW.
func (b *Broker) onListOffsets(env *sim.Env, from string, req ListOffsetsRequest) {
	r := b.replicas[req.TP]
	if r == nil || !b.IsLeader(req.TP) {
		env.Send(from, ListOffsetsResponse{TP: req.TP, Err: ErrNotLeaderOrFollower})
		return
	}
	env.Send(from, ListOffsetsResponse{TP: req.TP, Offset: r.HW})
}
