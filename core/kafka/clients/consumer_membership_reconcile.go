package clients

import (
	"slices"

	"deliverylab/core/kafka/protocol"
	"deliverylab/core/sim"
)

// The KIP-848 member's reconciliation (AbstractMembershipManager.maybeReconcile,
// revokeAndAssign): it moves what the member owns to the coordinator's target. The
// partitions to give up stop being returned at once (markPendingRevocation); with
// enable.auto.commit, what Poll returned — of every partition, the revoked ones among
// them — is committed first, synchronously, and the reconciliation goes on whatever its
// answer (CommitRequestManager.maybeAutoCommitSyncBeforeRebalance); then the revoked
// partitions go, the new ones come without positions, and the next heartbeat, sent at
// once, acknowledges it: only then may the coordinator give the revoked partitions to
// another member. The new partitions start at their committed offsets (OffsetFetch with
// the member's epoch) or by auto.offset.reset.

// reconciliation is the one reconciliation under way.
type reconciliation struct {
	running bool
	target  []protocol.TP // what it reconciles to
	commit  int64         // the request id of its commit before revocation, 0 when none is awaited
}

func (r reconciliation) clone() reconciliation {
	r.target = slices.Clone(r.target)
	return r
}

// maybeReconcile starts a reconciliation when one is due and none runs. From the
// application's poll (canCommit) it always may; from the background (an answer, a
// timer) only when auto-commit is off and nothing is to be given up: a commit or a
// revocation waits for the application's next poll (maybeReconcile's canCommit).
func (m *consumerMembership) maybeReconcile(env *sim.Env, canCommit bool) []ConsumerEvent {
	if m.state != memberReconciling || m.rec.running || m.broker == "" {
		return nil
	}
	revoked := minus(m.current, m.target)
	if !canCommit && (m.cfg.EnableAutoCommit || len(revoked) > 0) {
		return nil
	}
	m.rec = reconciliation{running: true, target: slices.Clone(m.target)}
	if m.cfg.EnableAutoCommit {
		offs, msgs := m.fetcher.consumed()
		m.fetcher.release(revoked)
		if len(offs) > 0 {
			m.rec.commit = m.sendCommit(env, pendingCommit{Msgs: msgs, Offsets: offs, SinceMs: env.Now()})
			return nil
		}
		return m.finishReconcile(env)
	}
	m.fetcher.release(revoked)
	return m.finishReconcile(env)
}

// finishReconcile applies the target: the revoked partitions are gone already, the new
// ones come (onPartitionsAssigned runs with them, even when there are none), and the
// acknowledgement goes out at once. The auto-commit interval starts over
// (ConsumerMembershipManager.signalReconciliationCompleting).
func (m *consumerMembership) finishReconcile(env *sim.Env) []ConsumerEvent {
	target := m.rec.target
	added := minus(target, m.current)
	m.rec = reconciliation{}
	m.fetcher.release(minus(m.fetcher.owned(), target))
	m.fetcher.add(added)
	m.current, m.reconciled = target, true
	m.lastAutoMs = env.Now()
	env.Observe(sim.Observation{Event: protocol.Assigned, Group: m.group, Generation: m.epoch, Assigned: names(added)})
	m.state = memberAcknowledging
	m.heartbeatNow(env)
	m.maybeLookUpOffsets(env)
	if m.fetcher.positioned() {
		m.fetcher.fetchAll(env)
		return []ConsumerEvent{{Kind: AssignedNow}}
	}
	return nil
}

// minus lists the partitions of a that b lacks, in a's order.
func minus(a, b []protocol.TP) []protocol.TP {
	var out []protocol.TP
	for _, tp := range a {
		if !slices.Contains(b, tp) {
			out = append(out, tp)
		}
	}
	return out
}

// offsetLookup is the member's OffsetFetch for the partitions it got: one at a time.
type offsetLookup struct {
	inFlight bool
	seq      int64
	failures int
}

func (o offsetLookup) clone() offsetLookup { return o }

// lost forgets the lookup in flight: it is asked again once the coordinator is found.
func (o *offsetLookup) lost() {
	o.inFlight = false
	o.seq++
}

// maybeLookUpOffsets asks the coordinator for the committed offsets of the owned
// partitions without a position, with the member's id and epoch (OffsetFetch v9+,
// requireStable as every consumer since KIP-447).
func (m *consumerMembership) maybeLookUpOffsets(env *sim.Env) {
	missing := m.fetcher.missing()
	if m.offsets.inFlight || m.broker == "" || len(missing) == 0 || m.gaveUp {
		return
	}
	m.offsets.inFlight = true
	m.offsets.seq++
	env.Send(m.broker, protocol.OffsetFetchRequest{Group: m.group, TPs: missing, RequireStable: true,
		Member: m.member, MemberEpoch: m.epoch})
}

// onOffsetFetch positions the partitions still without one at what the coordinator
// found committed, or by auto.offset.reset. A stale epoch (the member's epoch moved
// while it asked) and unstable offsets are asked again after the backoff; a lost
// coordinator is looked for again (CommitRequestManager.OffsetFetchRequestState).
func (m *consumerMembership) onOffsetFetch(env *sim.Env, r protocol.OffsetFetchResponse) []ConsumerEvent {
	if !m.offsets.inFlight {
		return nil
	}
	m.offsets.inFlight = false
	switch {
	case r.Err == protocol.ErrNotCoordinator || r.Err == protocol.ErrCoordinatorNotAvailable:
		m.coordinatorLost(env)
		return nil
	case r.Err != "" || len(r.Errs) > 0:
		m.offsets.failures++
		m.offsets.inFlight = true // until the retry
		env.After(backoffMs(env, m.cfg.RetryBackoffMs, m.cfg.RetryBackoffMaxMs, m.offsets.failures), offsetFetchRetry{Seq: m.offsets.seq})
		return nil
	}
	m.offsets.failures = 0
	var found []protocol.TPOffset
	for _, o := range r.Offsets {
		if slices.Contains(m.fetcher.owned(), o.TP) && !m.fetcher.hasPosition(o.TP) {
			found = append(found, o)
		}
	}
	if stopped := m.fetcher.initPositions(env, found); stopped != nil {
		m.giveUp()
		return stopped
	}
	m.maybeLookUpOffsets(env) // partitions added while it asked
	if m.fetcher.positioned() {
		m.fetcher.fetchAll(env)
		return []ConsumerEvent{{Kind: AssignedNow}}
	}
	return nil
}

// maybeStable: a position the fetcher looked up (ListOffsets, auto.offset.reset=latest)
// may be the last one the member waited for.
func (m *consumerMembership) maybeStable(env *sim.Env) []ConsumerEvent {
	if m.gaveUp || !m.fetcher.positioned() {
		return nil
	}
	m.fetcher.fetchAll(env)
	return []ConsumerEvent{{Kind: AssignedNow}}
}
