package protocol

import (
	"fmt"
	"slices"
	"strings"
)

// PartitionState is the controller's record of one partition, as the KRaft metadata log
// holds it: replicas, leader, leader epoch, ISR and the partition epoch that every
// change bumps; under Kafka 4 also the eligible leader replicas (KIP-966).
type PartitionState struct {
	TP             TP
	Replicas       []string
	Leader         string // "" when offline
	LeaderEpoch    int32
	ISR            []string
	PartitionEpoch int32
	// ELR are the eligible leader replicas (KIP-966, Kafka 4 with
	// eligible.leader.replicas.version 1): replicas out of an ISR smaller than
	// min.insync.replicas that still hold every committed record, since the high
	// watermark does not move while the ISR is that small. The controller may elect one
	// when the ISR is empty. Always empty under Kafka 3.9.
	ELR []string
	// LastKnownELR is the leader the partition had when it went offline with ISR and ELR
	// empty (PartitionRegistration.lastKnownElr): it may lead again when it returns.
	LastKnownELR []string
}

// Clone copies the slices, so that the copy can be changed.
func (p PartitionState) Clone() PartitionState {
	p.Replicas = slices.Clone(p.Replicas)
	p.ISR = slices.Clone(p.ISR)
	p.ELR = slices.Clone(p.ELR)
	p.LastKnownELR = slices.Clone(p.LastKnownELR)
	return p
}

// Describe is "orders-0 leader=broker-1 epoch=0 isr=[broker-1,broker-2]", with
// " elr=[broker-3]" when the partition has eligible leader replicas.
func (p PartitionState) Describe() string {
	leader := p.Leader
	if leader == "" {
		leader = "none"
	}
	d := fmt.Sprintf("%s leader=%s epoch=%d isr=[%s]", p.TP, leader, p.LeaderEpoch, strings.Join(p.ISR, ","))
	if len(p.ELR) > 0 {
		d += " elr=[" + strings.Join(p.ELR, ",") + "]"
	}
	return d
}

// Newer reports whether p is a later version of the partition than old (a higher leader
// epoch, or the same epoch and a higher partition epoch).
func (p PartitionState) Newer(old PartitionState) bool {
	return p.LeaderEpoch > old.LeaderEpoch || (p.LeaderEpoch == old.LeaderEpoch && p.PartitionEpoch > old.PartitionEpoch)
}

func describeStates(states []PartitionState) string {
	parts := make([]string, len(states))
	for i, p := range states {
		parts[i] = p.Describe()
	}
	return strings.Join(parts, "; ")
}
