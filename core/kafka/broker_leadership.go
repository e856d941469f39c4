package kafka

import (
	"fmt"
	"strings"

	"deliverylab/core/sim"
)

// onMetadata applies partition states from the controller: this broker becomes leader
// or follower of the partitions it hosts whenever the leader epoch moves on.
func (b *Broker) onMetadata(env *sim.Env, states []PartitionState) {
	for _, st := range states {
		old, had := b.meta[st.TP]
		if had && (st.LeaderEpoch < old.LeaderEpoch || (st.LeaderEpoch == old.LeaderEpoch && st.PartitionEpoch <= old.PartitionEpoch)) {
			continue // stale
		}
		b.meta[st.TP] = st.clone()
		if !contains(st.Replicas, b.name) {
			continue
		}
		b.HostReplica(st.TP)
		r := b.replicas[st.TP]
		switch {
		case st.Leader == b.name && (!had || old.Leader != b.name || old.LeaderEpoch != st.LeaderEpoch):
			b.becomeLeader(env, r, st)
		case st.Leader == b.name:
			r.isrPending = false // an ISR change of ours was applied
			b.maybeAdvanceHW(env, r)
		case !had || old.LeaderEpoch != st.LeaderEpoch || old.Leader != st.Leader:
			b.becomeFollower(env, r, st)
		}
	}
}

func (b *Broker) becomeLeader(env *sim.Env, r *Replica, st PartitionState) {
	r.noteEpoch(st.LeaderEpoch, r.LEO())
	r.loadedEnd = r.LEO()
	r.fetch = followerFetch{}
	r.isrPending = false
	r.followers = map[string]*followerState{}
	for _, f := range st.Replicas {
		if f != b.name {
			// Kafka starts every follower's clock at the election, so none is shrunk at once.
			r.followers[f] = &followerState{LEO: -1, LastCaughtUpMs: env.Now()}
		}
	}
	env.Note(fmt.Sprintf("leads %s epoch=%d leo=%d hw=%d", st.TP, st.LeaderEpoch, r.LEO(), r.HW))
	b.maybeAdvanceHW(env, r)
}

func (b *Broker) becomeFollower(env *sim.Env, r *Replica, st PartitionState) {
	r.followers = nil
	r.isrPending = false
	b.failDelayed(env, st.TP, ErrNotLeaderOrFollower)
	if st.Leader == "" {
		r.fetch = followerFetch{}
		return
	}
	r.fetch = followerFetch{Leader: st.Leader, Epoch: st.LeaderEpoch}
	env.Note(fmt.Sprintf("follows %s on %s epoch=%d", st.TP, st.Leader, st.LeaderEpoch))
	b.sendFollowerFetch(env, st.TP)
}

// isr is the leader's view of the ISR.
func (b *Broker) isr(tp TP) []string { return b.meta[tp].ISR }

// effectiveMinISR is min(min.insync.replicas, replication factor) (R3).
func (b *Broker) effectiveMinISR(tp TP) int {
	rf := len(b.meta[tp].Replicas)
	if b.cfg.MinInsyncReplicas < rf {
		return b.cfg.MinInsyncReplicas
	}
	return rf
}

// maybeAdvanceHW moves the high watermark to the smallest LEO in the ISR (R2), but not
// while the ISR is smaller than min.insync.replicas (KAFKA-15583).
func (b *Broker) maybeAdvanceHW(env *sim.Env, r *Replica) {
	isr := b.isr(r.TP)
	if len(isr) < b.effectiveMinISR(r.TP) {
		return
	}
	hw := r.LEO()
	for _, m := range isr {
		if m == b.name {
			continue
		}
		f := r.followers[m]
		if f == nil || f.LEO < 0 {
			return // a member we have not heard from yet holds the HW back
		}
		if f.LEO < hw {
			hw = f.LEO
		}
	}
	if hw <= r.HW {
		return
	}
	r.HW = hw
	env.Note(fmt.Sprintf("hw %s=%d", r.TP, hw))
	env.After(0, brokerTimer{What: "complete-delayed", TP: r.TP})
	b.wakeParked(env, r.TP, false)
}

// checkISR shrinks the ISR of followers that have not caught up within
// replica.lag.time.max.ms (R1).
func (b *Broker) checkISR(env *sim.Env) {
	for _, tp := range b.TPs() {
		r := b.replicas[tp]
		if !b.IsLeader(tp) || r.isrPending {
			continue
		}
		var keep, out []string
		for _, m := range b.isr(tp) {
			f := r.followers[m]
			if m != b.name && f != nil && env.Now()-f.LastCaughtUpMs > b.cfg.ReplicaLagTimeMaxMs {
				out = append(out, m)
				continue
			}
			keep = append(keep, m)
		}
		if len(out) > 0 {
			env.Note(fmt.Sprintf("shrinks isr %s: %s lagging", tp, strings.Join(out, ",")))
			b.alterISR(env, r, keep)
		}
	}
}

// maybeExpandISR adds a follower back once it has caught up to the HW and to the start
// of the current leader epoch (R1).
func (b *Broker) maybeExpandISR(env *sim.Env, r *Replica, follower string) {
	st := b.meta[r.TP]
	if r.isrPending || contains(st.ISR, follower) {
		return
	}
	f := r.followers[follower]
	if f.LEO >= r.HW && f.LEO >= r.epochStart(st.LeaderEpoch) {
		env.Note(fmt.Sprintf("expands isr %s: %s caught up", r.TP, follower))
		b.alterISR(env, r, append(append([]string(nil), st.ISR...), follower))
	}
}

func (b *Broker) alterISR(env *sim.Env, r *Replica, isr []string) {
	st := b.meta[r.TP]
	r.isrPending = true
	env.Send(ControllerName, AlterPartition{TP: r.TP, Leader: b.name, LeaderEpoch: st.LeaderEpoch,
		PartitionEpoch: st.PartitionEpoch, NewISR: isr})
}

func (b *Broker) onAlterPartitionResponse(env *sim.Env, p AlterPartitionResponse) {
	r := b.replicas[p.TP]
	if r == nil {
		return
	}
	r.isrPending = false
	if p.Err == "" {
		b.onMetadata(env, []PartitionState{p.State})
	}
}

func contains(xs []string, x string) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}
