package server

import (
	"fmt"
	"slices"
	"strings"

	"deliverylab/core/kafka/protocol"
	"deliverylab/core/sim"
)

// checkISR shrinks the ISR of the partitions this broker leads by the followers that
// have not caught up within replica.lag.time.max.ms (R1).
func (rm *ReplicaManager) checkISR(env *sim.Env) {
	for _, tp := range rm.TPs() {
		p := rm.partitions[tp]
		if !p.IsLeader() || p.leader.isrPending() {
			continue
		}
		keep, out := p.laggingISR(env.Now(), rm.cfg.ReplicaLagTimeMaxMs)
		if len(out) > 0 {
			env.Note(fmt.Sprintf("shrinks isr %s: %s lagging", tp, strings.Join(out, ",")))
			rm.alterISR(env, p, keep)
		}
	}
}

// maybeExpandISR adds a follower back once it has caught up (R1), unless the metadata
// log says it is fenced (Partition.isReplicaIsrEligible).
func (rm *ReplicaManager) maybeExpandISR(env *sim.Env, p *Partition, follower string) {
	if p.canExpandISR(follower) && !slices.Contains(rm.fenced, follower) {
		env.Note(fmt.Sprintf("expands isr %s: %s caught up", p.TP, follower))
		rm.alterISR(env, p, append(slices.Clone(p.state.ISR), follower))
	}
}

// alterISR asks the controller for an ISR change (KIP-497); the leader keeps its
// current ISR until the answer comes.
func (rm *ReplicaManager) alterISR(env *sim.Env, p *Partition, isr []string) {
	p.leader.pendingISR = slices.Clone(isr)
	env.Send(protocol.ControllerName, protocol.AlterPartition{TP: p.TP, Leader: rm.broker, LeaderEpoch: p.state.LeaderEpoch,
		PartitionEpoch: p.state.PartitionEpoch, NewISR: isr})
}

func (rm *ReplicaManager) onAlterPartitionResponse(env *sim.Env, h hooks, resp protocol.AlterPartitionResponse) {
	p := rm.partitions[resp.TP]
	if p == nil {
		return
	}
	if p.leader != nil {
		p.leader.pendingISR = nil
	}
	if resp.Err == "" {
		rm.applyMetadata(env, h, []protocol.PartitionState{resp.State})
	}
}
