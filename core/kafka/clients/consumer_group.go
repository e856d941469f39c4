package clients

import (
	"maps"
	"slices"

	"deliverylab/core/kafka/protocol"
	"deliverylab/core/sim"
)

// Receive handles a response and reports what the application should know.
func (c *Consumer) Receive(env *sim.Env, m sim.Message) []ConsumerEvent {
	switch r := m.Payload.(type) {
	case protocol.MetadataResponse:
		c.md.onResponse(env, r)
		c.fetchAll(env)
	case protocol.FindCoordinatorResponse:
		c.groupSeq++ // answered: its timeout no longer applies
		if r.Err != "" {
			c.md.Next++
			c.findLater(env)
			return nil
		}
		if c.resumeWith(env, r.Coordinator) {
			return nil
		}
		c.coordinator = r.Coordinator
		failed := c.failParked(protocol.ErrIllegalGeneration)
		c.rejoin(env)
		return failed
	case protocol.JoinGroupResponse:
		c.groupSeq++
		if c.State != Joining {
			return nil
		}
		if r.Err != "" {
			c.onGroupError(env, r.Err) // NOT_COORDINATOR: find it again, then join
			return nil
		}
		c.generation = r.Generation
		c.State = Syncing
		c.groupRequest(env, c.coordinator, protocol.SyncGroupRequest{Group: c.group, Member: c.member, Generation: r.Generation}, c.cfg.RequestTimeoutMs)
	case protocol.SyncGroupResponse:
		c.groupSeq++
		return c.onSync(env, r)
	case protocol.OffsetFetchResponse:
		c.groupSeq++
		return c.onOffsetFetch(env, r)
	case protocol.ListOffsetsResponse:
		if r.Err != "" {
			c.md.forget(r.TP)
			c.resetLater(env, r.TP, c.cfg.RetryBackoffMs)
			return nil
		}
		c.positions[r.TP] = r.Offset
		return c.maybeStable(env)
	case protocol.FetchResponse:
		return c.onFetch(env, r)
	case protocol.OffsetsForLeaderEpochResponse:
		return c.onOffsetsForLeaderEpoch(env, r)
	case protocol.HeartbeatResponse:
		c.onGroupError(env, r.Err)
		if c.rejoinDue {
			return []ConsumerEvent{{Kind: Rebalancing}}
		}
	case protocol.OffsetCommitResponse:
		pc, waiting := c.commits[r.ReqID]
		if !waiting {
			return nil // a commit it gave up on or sent again: this answer is late
		}
		msgs := pc.Msgs
		delete(c.commits, r.ReqID)
		if r.Err != "" {
			env.Observe(sim.Observation{Event: protocol.ClientError, Err: r.Err.String(), Msgs: msgs})
			if evs, handled := c.retryCommit(env, pc, r.Err); handled {
				return evs
			}
			if r.Err == protocol.ErrRequestTimedOut {
				// ConsumerCoordinator.OffsetCommitResponseHandler: a commit the coordinator
				// timed out marks the coordinator unknown, as COORDINATOR_NOT_AVAILABLE does.
				c.onGroupError(env, protocol.ErrCoordinatorNotAvailable)
			} else {
				c.onGroupError(env, r.Err)
			}
			return []ConsumerEvent{{Kind: CommitFailed, Err: r.Err, Msgs: msgs}}
		}
		return []ConsumerEvent{{Kind: Committed, Msgs: msgs}}
	case sim.Refused:
		return c.onRefused(env, r)
	case sim.Disconnected:
		return c.onDisconnected(env, r.Peer)
	}
	return nil
}

func (c *Consumer) onSync(env *sim.Env, r protocol.SyncGroupResponse) []ConsumerEvent {
	if c.State != Syncing {
		return nil
	}
	if r.Err != "" {
		c.onGroupError(env, r.Err)
		return nil
	}
	c.assigned = slices.Clone(r.Assigned)
	protocol.SortTPs(c.assigned)
	assigned := make([]string, len(c.assigned))
	for i, tp := range c.assigned {
		assigned[i] = tp.String()
	}
	env.Observe(sim.Observation{Event: protocol.Assigned, Group: c.group, Generation: r.Generation, Assigned: assigned})
	if len(c.assigned) == 0 {
		c.State = Stable
		return []ConsumerEvent{{Kind: AssignedNow}}
	}
	if c.awaitSeek() {
		return []ConsumerEvent{{Kind: PartitionsAssigned}}
	}
	c.State = FetchingOffsets
	c.fetchOffsets(env, c.assigned)
	return nil
}

// fetchOffsets asks the coordinator for the committed offsets of tps. The classic
// consumer always requires stable offsets (ConsumerCoordinator.sendOffsetFetchRequest,
// requireStable true whatever isolation.level is, KIP-447).
func (c *Consumer) fetchOffsets(env *sim.Env, tps []protocol.TP) {
	c.groupRequest(env, c.coordinator, protocol.OffsetFetchRequest{Group: c.group, TPs: slices.Clone(tps), RequireStable: true},
		c.cfg.RequestTimeoutMs)
}

func (c *Consumer) onOffsetFetch(env *sim.Env, r protocol.OffsetFetchResponse) []ConsumerEvent {
	if c.State != FetchingOffsets {
		return nil
	}
	if r.Err != "" {
		c.onGroupError(env, r.Err)
		return nil
	}
	if len(r.Errs) > 0 {
		// ConsumerCoordinator.OffsetFetchResponseHandler: a partition with an unstable
		// offset (a transactional commit waiting for its marker, a commit waiting for
		// replication) fails the whole fetch with UnstableOffsetCommitException, a
		// retriable one: it is asked again after retry.backoff.ms, offsets of the other
		// partitions not taken meanwhile.
		env.Note("offsets unstable: fetch again after retry.backoff.ms")
		env.After(c.cfg.RetryBackoffMs, offsetFetchRetry{Seq: c.groupSeq})
		return nil
	}
	for _, o := range r.Offsets {
		if _, sought := c.positions[o.TP]; sought {
			continue // the application's seek decides
		}
		switch {
		case o.Offset >= 0:
			c.positions[o.TP] = o.Offset
		case c.cfg.AutoOffsetReset == ResetEarliest:
			c.positions[o.TP] = 0
		case c.cfg.AutoOffsetReset == ResetNone:
			return c.noOffset(env, o.TP, protocol.ErrNoOffsetForPartition)
		default:
			c.resetLatest(env, o.TP)
		}
	}
	return c.maybeStable(env)
}

func (c *Consumer) maybeStable(env *sim.Env) []ConsumerEvent {
	if c.State != FetchingOffsets {
		return nil
	}
	for _, tp := range c.assigned {
		if _, ok := c.positions[tp]; !ok {
			return nil
		}
	}
	c.State = Stable
	c.fetchAll(env)
	return []ConsumerEvent{{Kind: AssignedNow}}
}

// onGroupError reacts to an error from the coordinator: rejoin after a rebalance or a
// fencing error, look for the coordinator again when it moved.
func (c *Consumer) onGroupError(env *sim.Env, err protocol.Error) {
	switch err {
	case "":
	case protocol.ErrRebalanceInProgress, protocol.ErrIllegalGeneration, protocol.ErrUnknownMemberID:
		switch c.State {
		case Joining:
		case Stable:
			// As in the classic protocol, the member rejoins inside its next poll, once
			// the application has finished with what earlier polls returned.
			c.rejoinDue = true
		default:
			c.rejoin(env)
		}
	case protocol.ErrNotCoordinator, protocol.ErrCoordinatorNotAvailable:
		if c.State != Finding {
			c.resume = c.State == Stable
			c.State = Finding
			c.findLater(env)
		}
	}
}

// onDisconnected: a broker this consumer had a connection to crashed and its end reset
// it (NetworkClient.processDisconnection). The fetches in flight to it fail and are
// retried once the partition's leader is known again; if it was the coordinator, the
// commits in flight to it fail and a join or sync waiting there starts over by finding
// the coordinator (ConsumerCoordinator.markCoordinatorUnknown).
func (c *Consumer) onDisconnected(env *sim.Env, peer string) []ConsumerEvent {
	var out []ConsumerEvent
	for _, tp := range slices.SortedFunc(maps.Keys(c.fetching), protocol.CompareTP) {
		if c.fetchedFrom[tp] == peer {
			delete(c.fetching, tp)
			env.Observe(sim.Observation{Event: protocol.ClientError, Err: protocol.ErrNetworkException.String(), Partition: tp.String()})
			c.fetchFailed(env, tp)
		}
	}
	if peer != c.coordinator {
		return out
	}
	for _, id := range slices.Sorted(maps.Keys(c.commits)) {
		msgs := c.commits[id].Msgs
		delete(c.commits, id)
		env.Observe(sim.Observation{Event: protocol.ClientError, Err: protocol.ErrNetworkException.String(), Msgs: msgs})
		out = append(out, ConsumerEvent{Kind: CommitFailed, Err: protocol.ErrNetworkException, Msgs: msgs})
	}
	if len(out) > 0 || c.State == Joining || c.State == Syncing || c.State == FetchingOffsets {
		c.State = Finding
		c.findLater(env)
	}
	return out
}

func (c *Consumer) onRefused(env *sim.Env, r sim.Refused) []ConsumerEvent {
	switch o := r.Orig.(type) {
	case protocol.MetadataRequest:
		c.md.onRefused(env)
	case protocol.OffsetsForLeaderEpochRequest:
		if id, ok := c.fetching[o.TP]; ok && id == o.ReqID {
			delete(c.fetching, o.TP)
			env.Observe(sim.Observation{Event: protocol.ClientError, Err: protocol.ErrNetworkException.String(), Partition: o.TP.String()})
			c.fetchFailed(env, o.TP)
		}
	case protocol.FetchRequest:
		if id, ok := c.fetching[o.TP]; ok && id == o.ReqID {
			delete(c.fetching, o.TP)
			env.Observe(sim.Observation{Event: protocol.ClientError, Err: protocol.ErrNetworkException.String(), Partition: o.TP.String()})
			c.fetchFailed(env, o.TP)
		}
	case protocol.OffsetCommitRequest:
		msgs := c.commits[o.ReqID].Msgs
		delete(c.commits, o.ReqID)
		env.Observe(sim.Observation{Event: protocol.ClientError, Err: protocol.ErrNetworkException.String(), Msgs: msgs})
		c.State = Finding
		c.findLater(env)
		return []ConsumerEvent{{Kind: CommitFailed, Err: protocol.ErrNetworkException, Msgs: msgs}}
	case protocol.FindCoordinatorRequest:
		c.md.Next++
		c.State = Finding
		c.findLater(env)
	case protocol.JoinGroupRequest, protocol.SyncGroupRequest, protocol.OffsetFetchRequest, protocol.HeartbeatRequest:
		if c.State != Finding {
			c.md.Next++
			c.State = Finding
			c.findLater(env)
		}
	case protocol.ListOffsetsRequest:
		c.md.forget(o.TP)
		c.resetLater(env, o.TP, c.cfg.RetryBackoffMs)
	}
	return nil
}

// Fire handles the client's timers.
func (c *Consumer) Fire(env *sim.Env, t sim.Payload) []ConsumerEvent {
	switch t := t.(type) {
	case metadataTimeout, metadataRetry:
		c.md.onTimer(env, t, c.cfg.RequestTimeoutMs)
		c.fetchAll(env)
	case consumerHeartbeat:
		if c.State == Stable || c.State == FetchingOffsets || c.State == Syncing {
			env.Send(c.coordinator, protocol.HeartbeatRequest{Group: c.group, Member: c.member, Generation: c.generation})
		}
		env.After(c.cfg.HeartbeatIntervalMs, t)
	case findRetry:
		if c.State == Finding {
			c.findCoordinator(env)
		}
	case groupTimeout:
		if t.Seq == c.groupSeq && c.State != Stable {
			// The request or its answer was lost (a cut link): start over.
			env.Observe(sim.Observation{Event: protocol.ClientError, Err: protocol.ErrRequestTimedOut.String()})
			c.findCoordinator(env)
		}
	case commitTimeout:
		if pc, ok := c.commits[t.ReqID]; ok {
			delete(c.commits, t.ReqID)
			env.Observe(sim.Observation{Event: protocol.ClientError, Err: protocol.ErrRequestTimedOut.String(), Msgs: pc.Msgs})
			// commitSync retries a commit that got no answer (a retriable error) until
			// default.api.timeout.ms has passed since it was called, then throws
			// (ConsumerCoordinator.commitOffsetsSync).
			if c.State == Stable && env.Now()-pc.SinceMs+c.cfg.RetryBackoffMs < defaultAPITimeoutMs {
				env.After(c.cfg.RetryBackoffMs, commitRetry{Commit: pc})
				return nil
			}
			return []ConsumerEvent{{Kind: CommitFailed, Err: protocol.ErrTimeoutException, Msgs: pc.Msgs}}
		}
	case commitRetry:
		if c.State == Stable {
			c.sendCommit(env, t.Commit)
			return nil
		}
		return []ConsumerEvent{{Kind: CommitFailed, Err: protocol.ErrTimeoutException, Msgs: t.Commit.Msgs}}
	case fetchRetry:
		c.fetchAll(env)
	case fetchTimeout:
		if id, ok := c.fetching[t.TP]; ok && id == t.ReqID {
			delete(c.fetching, t.TP)
			c.md.forget(t.TP)
			c.fetchAll(env)
		}
	case offsetFetchRetry:
		if c.State == FetchingOffsets && t.Seq == c.groupSeq {
			var rest []protocol.TP
			for _, tp := range c.assigned {
				if _, ok := c.positions[tp]; !ok {
					rest = append(rest, tp)
				}
			}
			c.fetchOffsets(env, rest)
		}
	case resetRetry:
		if c.State == FetchingOffsets && t.Seq == c.resetSeq[t.TP] {
			if _, ok := c.positions[t.TP]; !ok {
				c.resetLatest(env, t.TP)
			}
		}
	}
	return nil
}
