package server

import (
	"slices"
)

// Where the high watermark advances: on the leader when its ISR has caught up, and on a
// follower when the leader tells it.

// maybeIncrementLeaderHW moves the leader's high watermark to the smallest LEO of the
// maximal ISR (R2) and of the followers about to join it — caught up within
// replica.lag.time.max.ms and not fenced (Partition.maybeIncrementLeaderHW) — but not
// while the ISR is smaller than min.insync.replicas (KAFKA-15583), and not past a
// member the leader has not heard from since it took over. It reports whether the HW
// moved.
func (p *Partition) maybeIncrementLeaderHW(minISR int, nowMs, lagMs int64, eligible func(string) bool) bool {
	if p.leader == nil || len(p.state.ISR) < minISR || p.HW >= p.LEO() {
		return false // (the HW is at the log end, where most fetches find it: it cannot rise)
	}
	hw := p.LEO()
	maximal := p.maximalISR()
	// In map order: the answer is a minimum, or false if any counted follower has no
	// LEO yet, whichever order they are looked at in (sorting them first had been 4 % of
	// the kernel's time).
	for m, f := range p.leader.followers {
		joining := f.isCaughtUp(p.LEO(), nowMs, lagMs) && eligible(m)
		if !slices.Contains(maximal, m) && !joining {
			continue
		}
		if f.LEO < 0 {
			return false
		}
		hw = min(hw, f.LEO)
	}
	if hw <= p.HW {
		return false
	}
	p.HW = hw
	p.Log.HighWatermarkUpdated(hw)
	return true
}

// updateFollowerHW takes the leader's high watermark from a fetch answer, up to the
// follower's own log end.
func (p *Partition) updateFollowerHW(leaderHW int64) {
	p.HW = max(p.HW, min(leaderHW, p.LEO()))
	p.Log.HighWatermarkUpdated(p.HW)
}

// LastStableOffset is where a read_committed consumer reads up to: the first offset of
// the earliest transaction not yet ended below the high watermark, or the HW
// (UnifiedLog.lastStableOffset).
func (p *Partition) LastStableOffset() int64 { return p.Log.LastStableOffset(p.HW) }
