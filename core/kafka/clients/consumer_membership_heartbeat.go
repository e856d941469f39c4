package clients

import (
	"slices"

	"deliverylab/core/kafka/protocol"
	"deliverylab/core/sim"
)

// The KIP-848 member's heartbeats (ConsumerHeartbeatRequestManager with its
// HeartbeatRequestState, and AbstractMembershipManager.onHeartbeatSuccess): one in
// flight at a time, every heartbeat.interval.ms the coordinator gives (5 s), measured
// from one send to the next; at once while joining or acknowledging; after an error
// with the exponential retry backoff, and then with every field.

// heartbeatState is what the heartbeat manager keeps.
type heartbeatState struct {
	inFlight   bool
	seq        int64 // the heartbeat in flight, for its timeout
	timer      int64 // the interval timer armed last
	due        bool  // the interval ran out while one was in flight, or before the coordinator was known
	intervalMs int64 // the coordinator's heartbeat interval; 0 before its first answer
	failures   int   // failed heartbeats in a row, for the backoff
	// full: the next heartbeat sends every field (joining, or after an error:
	// resetHeartbeatState); sentOwned is the owned partitions the last heartbeat sent,
	// ownedSent whether any did since.
	full      bool
	ownedSent bool
	sentOwned []protocol.TP
}

func (h heartbeatState) clone() heartbeatState {
	h.sentOwned = slices.Clone(h.sentOwned)
	return h
}

// lost: the coordinator went away; what was in flight is forgotten, and the heartbeat
// after it is found carries every field.
func (h *heartbeatState) lost() {
	h.inFlight = false
	h.seq++
	h.due = true
	h.full = true
}

// The heartbeat timers.
type (
	memberHeartbeat  struct{ Seq int64 } // the heartbeat interval, or the backoff after an error
	heartbeatTimeout struct{ Seq int64 } // request.timeout.ms of a heartbeat
)

func (memberHeartbeat) Kind() string      { return "ConsumerGroupHeartbeat" }
func (memberHeartbeat) Describe() string  { return memberHeartbeatLine }
func (heartbeatTimeout) Kind() string     { return "ConsumerGroupHeartbeatTimeout" }
func (heartbeatTimeout) Describe() string { return heartbeatTimeoutLine }

// The timers' lines in the trace, from their Kinds (sim.TimerLine).
var (
	memberHeartbeatLine  = sim.TimerLine("consumer", memberHeartbeat{})
	heartbeatTimeoutLine = sim.TimerLine("consumer", heartbeatTimeout{})
)

// inGroup reports whether the member heartbeats: it joined or is joining, and has not
// left, failed or given up (AbstractMembershipManager.shouldSkipHeartbeat).
func (m *consumerMembership) inGroup() bool {
	switch m.state {
	case memberUnsubscribed, memberLeaving, memberFatal:
		return false
	}
	return !m.gaveUp
}

// heartbeatNow sends a heartbeat unless one is in flight, in which case it goes out as
// soon as that one is answered.
func (m *consumerMembership) heartbeatNow(env *sim.Env) {
	if m.hb.inFlight {
		m.hb.due = true
		return
	}
	m.sendHeartbeat(env)
}

// sendHeartbeat builds and sends the heartbeat (HeartbeatState.buildRequestData): a
// joining member sends everything, owning nothing; otherwise a field goes only when it
// changed since the last heartbeat sent (the owned partitions after a reconciliation:
// the acknowledgement), or every field after an error. The interval starts again now.
func (m *consumerMembership) sendHeartbeat(env *sim.Env) {
	if m.broker == "" || !m.inGroup() {
		m.hb.due = true
		return
	}
	req := protocol.ConsumerGroupHeartbeatRequest{Group: m.group, Member: m.member, Epoch: m.epoch, RebalanceTimeoutMs: -1}
	owned := slices.Clone(m.current)
	if m.state == memberJoining {
		owned = []protocol.TP{}
	}
	if m.hb.full {
		req.RebalanceTimeoutMs = maxPollIntervalMs
		req.HasTopics, req.Topics = true, slices.Clone(m.md.Topics)
	}
	if m.hb.full || !m.hb.ownedSent || !slices.Equal(owned, m.hb.sentOwned) {
		req.HasOwned, req.Owned = true, owned
		m.hb.ownedSent, m.hb.sentOwned = true, owned
	}
	m.hb.full = false
	m.hb.due = false
	m.hb.inFlight = true
	m.hb.seq++
	env.Send(m.broker, req)
	env.After(m.cfg.RequestTimeoutMs, heartbeatTimeout{Seq: m.hb.seq})
	m.armHeartbeat(env, m.hb.intervalMs)
	// AbstractMembershipManager.onHeartbeatRequestGenerated: the acknowledgement is out.
	if m.state == memberAcknowledging {
		m.state = memberStable
		if !slices.Equal(m.target, m.current) {
			m.state = memberReconciling
		}
	}
}

// armHeartbeat starts the interval (or backoff) timer over.
func (m *consumerMembership) armHeartbeat(env *sim.Env, ms int64) {
	m.hb.timer++
	env.After(ms, memberHeartbeat{Seq: m.hb.timer})
}

func (m *consumerMembership) onHeartbeatTimer(env *sim.Env, t memberHeartbeat) {
	if t.Seq != m.hb.timer || !m.inGroup() {
		return
	}
	m.heartbeatNow(env)
}

// onHeartbeatTimeout: no answer within request.timeout.ms, a retriable failure: the
// coordinator is marked unknown and looked for again (AbstractHeartbeatRequestManager.
// onFailure).
func (m *consumerMembership) onHeartbeatTimeout(env *sim.Env, t heartbeatTimeout) {
	if t.Seq != m.hb.seq || !m.hb.inFlight {
		return
	}
	env.Observe(sim.Observation{Event: protocol.ClientError, Err: protocol.ErrRequestTimedOut.String()})
	m.hb.failures++
	m.coordinatorLost(env)
}

// onHeartbeat takes the coordinator's answer.
func (m *consumerMembership) onHeartbeat(env *sim.Env, r protocol.ConsumerGroupHeartbeatResponse) []ConsumerEvent {
	if !m.hb.inFlight {
		return nil // the answer to a heartbeat given up on
	}
	m.hb.inFlight = false
	m.hb.seq++
	if !m.inGroup() {
		return nil // left meanwhile: the answer is ignored
	}
	if r.Err != "" {
		return m.onHeartbeatError(env, r.Err)
	}
	m.hb.failures = 0
	m.findFailures = 0 // the coordinator answered: the next loss starts the backoff afresh
	if r.Epoch < 0 {
		return nil
	}
	m.epoch = r.Epoch
	if r.HeartbeatIntervalMs != m.hb.intervalMs {
		// HeartbeatRequestState.updateHeartbeatIntervalMs: a new interval starts from the
		// answer.
		m.hb.intervalMs = r.HeartbeatIntervalMs
		m.armHeartbeat(env, m.hb.intervalMs)
	}
	var out []ConsumerEvent
	if r.HasAssignment {
		target := slices.Clone(r.Assignment)
		protocol.SortTPs(target)
		m.target = target
	}
	if (r.HasAssignment || m.state == memberJoining) && (!m.reconciled || !slices.Equal(m.target, m.current)) {
		// processAssignmentReceived: a target that differs from what the member owns is
		// reconciled — inside the application's next poll when there is anything to
		// commit first (auto-commit) or to give up.
		if m.state != memberReconciling || !m.rec.running {
			m.state = memberReconciling
		}
		out = append(out, m.maybeReconcile(env, false)...)
		out = append(out, ConsumerEvent{Kind: Rebalancing})
	} else if m.state == memberJoining || (m.state == memberReconciling && !m.rec.running) {
		m.state = memberStable
	}
	if m.hb.due || m.state == memberJoining || m.state == memberAcknowledging {
		m.sendHeartbeat(env)
	}
	return out
}

// onHeartbeatError reacts as ConsumerHeartbeatRequestManager does to an error answer:
// every error makes the next heartbeat a full one after the backoff; a moved or
// unavailable coordinator is looked for again, the member keeping its partitions; a
// fenced member loses its partitions and joins again; anything else is fatal.
func (m *consumerMembership) onHeartbeatError(env *sim.Env, err protocol.Error) []ConsumerEvent {
	m.hb.full = true
	m.hb.failures++
	switch err {
	case protocol.ErrNotCoordinator, protocol.ErrCoordinatorNotAvailable:
		m.coordinatorLost(env)
	case protocol.ErrCoordinatorLoadInProgress:
		m.armHeartbeat(env, backoffMs(env, m.cfg.RetryBackoffMs, m.cfg.RetryBackoffMaxMs, m.hb.failures))
	case protocol.ErrFencedMemberEpoch, protocol.ErrUnknownMemberID:
		return m.fenced(env)
	default:
		env.Observe(sim.Observation{Event: protocol.ClientError, Err: err.String()})
		m.lose()
		m.state = memberFatal
		m.giveUp()
	}
	return nil
}

// fenced: the coordinator no longer knows the member at its epoch (its session expired,
// or it missed a revocation deadline). Its partitions are lost — given up without a
// commit (onPartitionsLost) — and it joins again with the same member id and epoch 0
// (AbstractMembershipManager.transitionToFenced).
func (m *consumerMembership) fenced(env *sim.Env) []ConsumerEvent {
	env.Note("member " + m.member + " fenced: its partitions are lost, it joins again")
	m.lose()
	m.transitionToJoining()
	m.heartbeatNow(env)
	return nil
}

// lose gives every partition up without committing, and abandons a reconciliation under
// way (AbstractMembershipManager.maybeAbortReconciliation).
func (m *consumerMembership) lose() {
	m.fetcher.release(slices.Clone(m.fetcher.owned()))
	m.current, m.reconciled = nil, false
	m.rec = reconciliation{}
	m.offsets.lost()
}
