package protocol

import (
	"fmt"
	"slices"
	"strings"
)

// PartitionState is the controller's record of one partition, as the KRaft metadata log
// holds it: replicas, leader, leader epoch, ISR and the partition epoch that every
// change bumps.
type PartitionState struct {
	TP             TP
	Replicas       []string
	Leader         string // "" when offline
	LeaderEpoch    int32
	ISR            []string
	PartitionEpoch int32
}

// Clone copies the slices, so that the copy can be changed.
func (p PartitionState) Clone() PartitionState {
	p.Replicas = slices.Clone(p.Replicas)
	p.ISR = slices.Clone(p.ISR)
	return p
}

// Describe is "orders-0 leader=broker-1 epoch=0 isr=[broker-1,broker-2]".
func (p PartitionState) Describe() string {
	leader := p.Leader
	if leader == "" {
		leader = "none"
	}
	return fmt.Sprintf("%s leader=%s epoch=%d isr=[%s]", p.TP, leader, p.LeaderEpoch, strings.Join(p.ISR, ","))
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
