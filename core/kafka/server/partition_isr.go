package server

import "slices"

// Who is in sync (R1): a follower leaves the ISR when it has not caught up to the
// leader's LEO within replica.lag.time.max.ms, and rejoins once it has caught up to the
// HW and to the start of the current leader epoch.

// updateFollowerFetchState records a follower's fetch: its fetch offset is its LEO, and
// it was caught up at this fetch if it reached the leader's LEO, or at its previous
// fetch if it has now reached what the leader had then (Kafka's Replica.updateFetchState).
func (p *Partition) updateFollowerFetchState(follower string, fetchOffset, nowMs int64) {
	f := p.leader.followers[follower]
	if f == nil {
		f = &replicaState{LastCaughtUpMs: nowMs}
		p.leader.followers[follower] = f
	}
	leo := p.LEO()
	switch {
	case fetchOffset >= leo:
		f.LastCaughtUpMs = nowMs
	case fetchOffset >= f.LeaderLEOAtLastFetch && f.LastFetchMs > f.LastCaughtUpMs:
		f.LastCaughtUpMs = f.LastFetchMs
	}
	f.LEO = fetchOffset
	f.LastFetchMs = nowMs
	f.LeaderLEOAtLastFetch = leo
}

// laggingISR splits the ISR into the members that stay and the followers that have not
// caught up within lagMs. A follower whose LEO is the leader's is caught up however long
// ago it fetched (ReplicaState.isCaughtUp): an idle partition keeps a silent follower
// that has everything; the controller fences a dead broker out of the ISR instead (R20b).
func (p *Partition) laggingISR(nowMs, lagMs int64) (keep, out []string) {
	for _, m := range p.state.ISR {
		f := p.leader.followers[m]
		if m != p.broker && f != nil && !f.isCaughtUp(p.LEO(), nowMs, lagMs) {
			out = append(out, m)
			continue
		}
		keep = append(keep, m)
	}
	return keep, out
}

// isCaughtUp is ReplicaState.isCaughtUp: the follower has the leader's whole log, or
// had all the leader had within the last lagMs.
func (f *replicaState) isCaughtUp(leaderLEO, nowMs, lagMs int64) bool {
	return f.LEO == leaderLEO || nowMs-f.LastCaughtUpMs <= lagMs
}

// canExpandISR reports whether a follower outside the ISR has caught up enough to rejoin.
func (p *Partition) canExpandISR(follower string) bool {
	if p.leader.isrPending() || slices.Contains(p.state.ISR, follower) {
		return false
	}
	f := p.leader.followers[follower]
	return f.LEO >= p.HW && f.LEO >= p.Log.EpochStart(p.state.LeaderEpoch)
}
