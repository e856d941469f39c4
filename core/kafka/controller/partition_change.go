package controller

import (
	"fmt"
	"slices"

	"deliverylab/core/kafka/protocol"
	"deliverylab/core/sim"
)

// How a leader was chosen: the elected event's detail.
const (
	electedClean = "clean"
	// electedELR: from the eligible leader replicas, the ISR being empty (KIP-966).
	electedELR = "elr"
	// electedLastKnown: the partition's last leader, back after ISR and ELR were both
	// emptied (KIP-966's balanced recovery; Kafka counts it as unclean).
	electedLastKnown = "last-known-leader"
	electedUnclean   = "unclean"
)

// partitionChange is one change to a partition, worked out as KRaft's
// PartitionChangeBuilder does: a target ISR, the eligible leader replicas that follow
// from it, then an election if the leader may not stay.
type partitionChange struct {
	isr []string // the target ISR
	// acceptable says who may lead (ReplicationControlManager's isAcceptableLeader:
	// unfenced, and not the broker being removed).
	acceptable func(string) bool
	// uncleanShutdown is a broker that registered again after an unclean shutdown: its
	// log may miss what it acknowledged, so it leaves the ELR (KIP-966).
	uncleanShutdown string
	// sayOffline notes a partition that stays without a leader, not only one that
	// loses it (a broker came back and still none may lead).
	sayOffline bool
}

// change applies ch to st and reports whether st changed. Under Kafka 3.9 (no ELR) an
// ISR is never emptied: its last member stays, fenced or not (R20b).
func (c *Controller) change(env *sim.Env, st *protocol.PartitionState, ch partitionChange) bool {
	var elr []string // always empty without ELR
	if c.cfg.EligibleLeaderReplicas {
		elr = c.targetELR(st, ch.isr, ch.uncleanShutdown)
	}
	leader, how := c.electLeader(st, ch.isr, elr, ch.acceptable)
	leaderChanged := leader != st.Leader
	recordISR := ch.isr
	switch how {
	case electedELR: // its ISR is itself, and it is no longer a candidate
		recordISR, elr = []string{leader}, without(elr, leader)
	case electedUnclean, electedLastKnown: // its log wins: no one else is eligible
		recordISR, elr = []string{leader}, nil
	}
	if len(recordISR) == 0 && !c.cfg.EligibleLeaderReplicas {
		recordISR = st.ISR // without ELR an ISR keeps its last member
	}
	lastKnown := st.LastKnownELR
	if c.cfg.EligibleLeaderReplicas && leaderChanged {
		switch {
		case leader == "" && len(st.LastKnownELR) == 0:
			lastKnown = []string{st.Leader}
		case leader != "":
			lastKnown = nil
		}
	}
	changed := leaderChanged || !slices.Equal(recordISR, st.ISR) || !slices.Equal(elr, st.ELR) ||
		!slices.Equal(lastKnown, st.LastKnownELR)
	st.ISR, st.ELR, st.LastKnownELR = slices.Clone(recordISR), slices.Clone(elr), slices.Clone(lastKnown)
	switch {
	case leaderChanged && leader != "":
		c.setLeader(env, st, leader, how)
	case leader == "" && (leaderChanged || ch.sayOffline):
		st.Leader = ""
		c.sayOffline(env, st)
	}
	if changed {
		st.PartitionEpoch++
	}
	return changed
}

// targetELR is the ELR after the ISR becomes isr: emptied while the ISR keeps
// min.insync.replicas members; otherwise every replica that was in the ISR or the ELR
// and is not in the new ISR, but for one back from an unclean shutdown
// (PartitionChangeBuilder.maybePopulateTargetElr).
func (c *Controller) targetELR(st *protocol.PartitionState, isr []string, uncleanShutdown string) []string {
	if len(isr) >= min(c.cfg.MinInsyncReplicas, len(st.Replicas)) {
		return nil
	}
	var out []string
	for _, b := range c.brokers { // in broker id order, as Kafka's set of ids iterates
		was := slices.Contains(st.ISR, b) || slices.Contains(st.ELR, b)
		if was && !slices.Contains(isr, b) && b != uncleanShutdown {
			out = append(out, b)
		}
	}
	return out
}

// electLeader is PartitionChangeBuilder.electAnyLeader: the leader stays if it may (how
// is then ""); else the first acceptable replica of the ISR, or, the ISR being empty, of
// the ELR (R6); else the last known leader; else, with unclean.leader.election.enable,
// any acceptable replica. "" is none.
func (c *Controller) electLeader(st *protocol.PartitionState, isr, elr []string, acceptable func(string) bool) (string, string) {
	valid := func(r string) bool {
		return (slices.Contains(isr, r) || len(isr) == 0 && slices.Contains(elr, r)) && acceptable(r)
	}
	if st.Leader != "" && valid(st.Leader) {
		return st.Leader, ""
	}
	for _, r := range st.Replicas {
		if valid(r) {
			if slices.Contains(isr, r) {
				return r, electedClean
			}
			return r, electedELR
		}
	}
	if c.cfg.EligibleLeaderReplicas && len(isr) == 0 && len(elr) == 0 && len(st.LastKnownELR) == 1 && acceptable(st.LastKnownELR[0]) {
		return st.LastKnownELR[0], electedLastKnown
	}
	if c.cfg.UncleanLeaderElection {
		for _, r := range st.Replicas {
			if acceptable(r) {
				return r, electedUnclean
			}
		}
	}
	return "", ""
}

func (c *Controller) setLeader(env *sim.Env, st *protocol.PartitionState, leader, how string) {
	st.Leader = leader
	st.LeaderEpoch++
	st.PartitionEpoch++
	env.Observe(sim.Observation{Event: protocol.Elected, Partition: st.TP.String(), Epoch: st.LeaderEpoch, Election: how})
	env.Note(fmt.Sprintf("elects %s leader of %s epoch=%d (%s)", leader, st.TP, st.LeaderEpoch, how))
}

func (c *Controller) sayOffline(env *sim.Env, st *protocol.PartitionState) {
	why := fmt.Sprintf("isr=%v", st.ISR)
	if len(st.ELR) > 0 {
		why += fmt.Sprintf(" elr=%v", st.ELR)
	}
	env.Note(fmt.Sprintf("%s offline: no live in-sync replica (%s)", st.TP, why))
	env.Observe(sim.Observation{Event: protocol.Offline, Partition: st.TP.String()})
}

func without(list []string, drop string) []string {
	return slices.DeleteFunc(slices.Clone(list), func(b string) bool { return b == drop })
}
