package server

// Where the high watermark advances: on the leader when its ISR has caught up, and on a
// follower when the leader tells it.

// maybeIncrementLeaderHW moves the leader's high watermark to the smallest LEO in the
// ISR (R2), but not while the ISR is smaller than min.insync.replicas (KAFKA-15583),
// and not past a member the leader has not heard from since it took over. It reports
// whether the HW moved.
func (p *Partition) maybeIncrementLeaderHW(minISR int) bool {
	if p.leader == nil || len(p.state.ISR) < minISR {
		return false
	}
	hw := p.LEO()
	for _, m := range p.state.ISR {
		if m == p.broker {
			continue
		}
		f := p.leader.followers[m]
		if f == nil || f.LEO < 0 {
			return false
		}
		hw = min(hw, f.LEO)
	}
	if hw <= p.HW {
		return false
	}
	p.HW = hw
	return true
}

// updateFollowerHW takes the leader's high watermark from a fetch answer, up to the
// follower's own log end.
func (p *Partition) updateFollowerHW(leaderHW int64) {
	p.HW = max(p.HW, min(leaderHW, p.LEO()))
}
