package clients

import (
	"deliverylab/core/kafka/protocol"
	"deliverylab/core/sim"
)

// The KIP-848 member's offset commits (CommitRequestManager): each carries the member
// id and the member epoch (-1 when the member has none), which the coordinator checks
// instead of a generation; auto-commit runs inside poll, and before each reconciliation
// (consumer_membership_reconcile.go).

// poll is the role's part of Poll (AsyncKafkaConsumer.poll's AsyncPollEvent): a
// reconciliation due runs, and with enable.auto.commit the positions are committed once
// auto.commit.interval.ms has passed (CommitRequestManager.maybeAutoCommitAsync). The
// member goes on reading the partitions it keeps either way; the application is inside
// poll, so what the reconciliation reports needs no event.
func (m *consumerMembership) poll(env *sim.Env) {
	m.maybeReconcile(env, true)
	if m.cfg.EnableAutoCommit && !m.rec.running && env.Now()-m.lastAutoMs >= m.cfg.AutoCommitIntervalMs {
		m.lastAutoMs = env.Now()
		m.commit(env)
	}
}

// commit sends the fetcher's consumed positions; it reports false when the member has
// nothing to commit.
func (m *consumerMembership) commit(env *sim.Env) bool {
	if !m.inGroup() || len(m.fetcher.owned()) == 0 {
		return false
	}
	offs, msgs := m.fetcher.consumed()
	m.sendCommit(env, pendingCommit{Msgs: msgs, Offsets: offs, SinceMs: env.Now()})
	return true
}

// sendCommit sends a commit, or parks it while the coordinator is looked for; it
// returns the commit's request id.
func (m *consumerMembership) sendCommit(env *sim.Env, pc pendingCommit) int64 {
	id := m.ids.next()
	m.commits[id] = pc
	if m.broker == "" {
		delete(m.commits, id)
		m.parked = append(m.parked, pc)
		return id
	}
	epoch := m.epoch
	if epoch <= 0 {
		epoch = -1 // joining or fenced: no epoch (OffsetCommitRequestState.toUnsentRequest)
	}
	env.Send(m.broker, protocol.OffsetCommitRequest{ReqID: id, Group: m.group, Member: m.member,
		Generation: epoch, Offsets: pc.Offsets, Msgs: pc.Msgs})
	pc.timeout = env.After(m.cfg.RequestTimeoutMs, commitTimeout{ReqID: id})
	m.commits[id] = pc
	return id
}

// pendingCommits counts commits sent and not yet answered, parked ones included.
func (m *consumerMembership) pendingCommits() int { return len(m.commits) + len(m.parked) }

func (m *consumerMembership) onCommit(env *sim.Env, r protocol.OffsetCommitResponse) []ConsumerEvent {
	pc, waiting := m.commits[r.ReqID]
	if !waiting {
		return nil // a commit it gave up on or sent again: this answer is late
	}
	delete(m.commits, r.ReqID)
	env.Disarm(pc.timeout) // answered: its id is never sent again
	if r.Err == "" {
		return m.committed(env, r.ReqID, ConsumerEvent{Kind: Committed, Msgs: pc.Msgs})
	}
	env.Observe(sim.Observation{Event: protocol.ClientError, Err: r.Err.String(), Msgs: pc.Msgs})
	return m.retryCommit(env, r.ReqID, pc, r.Err)
}

// retryCommit handles a failed commit as commitSync does: a coordinator that moved, is
// unavailable or did not answer is looked for again and the commit parked until it is
// found, until default.api.timeout.ms has passed since the commit was called; any other
// error (UNKNOWN_MEMBER_ID, STALE_MEMBER_EPOCH: CommitFailedException) fails it.
func (m *consumerMembership) retryCommit(env *sim.Env, id int64, pc pendingCommit, err protocol.Error) []ConsumerEvent {
	switch err {
	case protocol.ErrCoordinatorNotAvailable, protocol.ErrNotCoordinator, protocol.ErrRequestTimedOut, protocol.ErrNetworkException:
		if env.Now()-pc.SinceMs+m.cfg.RetryBackoffMs < defaultAPITimeoutMs {
			m.parked = append(m.parked, pc)
			m.coordinatorLost(env)
			if id == m.rec.commit {
				m.rec.commit = 0 // the reconciliation does not wait for the retry
				return m.finishReconcile(env)
			}
			return nil
		}
		err = protocol.ErrTimeoutException
	}
	return m.committed(env, id, ConsumerEvent{Kind: CommitFailed, Err: err, Msgs: pc.Msgs})
}

// committed ends a commit: the reconciliation that waited for it goes on, whatever its
// answer; the application hears of its own commits.
func (m *consumerMembership) committed(env *sim.Env, id int64, ev ConsumerEvent) []ConsumerEvent {
	if id == m.rec.commit && m.rec.running {
		return m.finishReconcile(env)
	}
	return []ConsumerEvent{ev}
}

func (m *consumerMembership) onCommitTimeout(env *sim.Env, t commitTimeout) []ConsumerEvent {
	pc, ok := timedOut(env, m.commits, t)
	if !ok {
		return nil
	}
	return m.retryCommit(env, t.ReqID, pc, protocol.ErrRequestTimedOut)
}
