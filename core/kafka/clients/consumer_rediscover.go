package clients

import (
	"deliverylab/core/kafka/protocol"
	"deliverylab/core/sim"
)

// retryCommit handles a commit that failed because the coordinator is not there for now
// (COORDINATOR_NOT_AVAILABLE, NOT_COORDINATOR, or REQUEST_TIMED_OUT from the coordinator)
// while the member is stable, as commitSync does: the coordinator is marked unknown
// (ConsumerCoordinator.OffsetCommitResponseHandler) and the commit is parked, to be sent
// again once it is found, until default.api.timeout.ms has passed since the commit was
// called; then it fails with TimeoutException (commitOffsetsSync). It reports false for
// any other failure, which the caller handles.
func (g *consumerCoordinator) retryCommit(env *sim.Env, pc pendingCommit, err protocol.Error) ([]ConsumerEvent, bool) {
	switch err {
	case protocol.ErrCoordinatorNotAvailable, protocol.ErrNotCoordinator, protocol.ErrRequestTimedOut:
	default:
		return nil, false
	}
	// A stable member, or one already rediscovering its coordinator after another of its
	// requests failed (a heartbeat refused a moment before): it keeps its generation either way.
	if g.state != Stable && !(g.state == Finding && g.resume) {
		return nil, false
	}
	timedOut := env.Now()-pc.SinceMs+g.cfg.RetryBackoffMs >= defaultAPITimeoutMs
	if !timedOut {
		g.parked = append(g.parked, pc)
	}
	g.onGroupError(env, protocol.ErrCoordinatorNotAvailable)
	if timedOut {
		return []ConsumerEvent{{Kind: CommitFailed, Err: protocol.ErrTimeoutException, Msgs: pc.Msgs}}, true
	}
	return nil, true
}

// resumeWith ends a rediscovery: a member that lost its coordinator while stable goes on
// with its generation and assignment (a heartbeat tells it if the group moved on
// meanwhile) and sends its parked commits again, on the same broker or on another one:
// AbstractCoordinator.markCoordinatorUnknown keeps the generation, and a new coordinator
// knows the member from the group's metadata in __consumer_offsets
// (GroupMetadataManager.doLoadGroupsAndOffsets).
func (g *consumerCoordinator) resumeWith(env *sim.Env, coordinator string) bool {
	resume := g.resume && g.generation > 0
	g.resume = false
	if !resume {
		g.hbDue = false
		return false
	}
	g.broker = coordinator
	missing := g.fetcher.missing()
	if len(missing) > 0 {
		// positions dropped meanwhile (a Streams task revived while the coordinator
		// was away): their committed offsets first
		g.setState(FetchingOffsets)
	} else {
		g.setState(Stable)
	}
	if g.hbDue {
		g.hbDue = false
		env.Send(g.broker, protocol.HeartbeatRequest{Group: g.group, Member: g.member, Generation: g.generation})
	}
	parked := g.parked
	g.parked = nil
	for _, pc := range parked {
		g.sendCommit(env, pc)
	}
	if len(missing) > 0 {
		g.fetchOffsets(env, missing)
		return true
	}
	g.fetcher.fetchAll(env)
	return true
}

// failParked fails the parked commits as commitSync would with ILLEGAL_GENERATION: the
// member rejoins, and the new generation's commits start afresh.
func (g *consumerCoordinator) failParked(err protocol.Error) []ConsumerEvent {
	var out []ConsumerEvent
	for _, pc := range g.parked {
		out = append(out, ConsumerEvent{Kind: CommitFailed, Err: err, Msgs: pc.Msgs})
	}
	g.parked = nil
	return out
}
