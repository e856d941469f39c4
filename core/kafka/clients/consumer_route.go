package clients

import (
	"deliverylab/core/kafka/protocol"
	"deliverylab/core/sim"
)

// Receive handles a response and reports what the application should know. Each goes
// to the role that sent its request; the metadata is the client's own.
func (c *Consumer) Receive(env *sim.Env, m sim.Message) []ConsumerEvent {
	if c.store != nil {
		switch r := m.Payload.(type) {
		case protocol.FindCoordinatorResponse, protocol.OffsetCommitResponse, protocol.OffsetFetchResponse:
			return c.store.receive(env, c, r)
		case sim.Disconnected:
			c.store.onGone(env, c, r.Peer)
		}
	}
	switch r := m.Payload.(type) {
	case protocol.MetadataResponse:
		c.md.onResponse(env, r)
		c.fetch.fetchAll(env)
	case protocol.FindCoordinatorResponse, protocol.OffsetFetchResponse, protocol.OffsetCommitResponse,
		protocol.ConsumerGroupHeartbeatResponse:
		if c.member != nil {
			return c.member.receive(env, r)
		}
		return c.coord.receive(env, r)
	case protocol.JoinGroupResponse, protocol.SyncGroupResponse, protocol.HeartbeatResponse:
		return c.coord.receive(env, r)
	case protocol.LeaveGroupResponse:
		// Leaving is best effort: nothing waits for the answer (maybeLeaveGroup).
	case protocol.ListOffsetsResponse:
		// A reset position may be the last one the member waited for to be stable.
		if c.fetch.onListOffsets(env, r) {
			if c.member != nil {
				return c.member.maybeStable(env)
			}
			return c.coord.maybeStable(env)
		}
	case protocol.FetchResponse:
		return c.fromFetcher(c.fetch.onFetch(env, r))
	case protocol.OffsetsForLeaderEpochResponse:
		return c.fromFetcher(c.fetch.onOffsetsForLeaderEpoch(env, r))
	case sim.Refused:
		return c.onRefused(env, r)
	case sim.Disconnected:
		// The fetches to the broker fail first, then what waited on it as coordinator.
		c.fetch.onDisconnected(env, r.Peer)
		if c.member != nil {
			return c.member.onDisconnected(env, r.Peer)
		}
		return c.coord.onDisconnected(env, r.Peer)
	}
	return nil
}

// fromFetcher passes on what the fetcher reports; a fetcher that stopped (no offset to
// start from under auto.offset.reset=none) ends the member's part in the group too.
func (c *Consumer) fromFetcher(evs []ConsumerEvent) []ConsumerEvent {
	if len(evs) > 0 && evs[0].Kind == Stopped {
		if c.member != nil {
			c.member.giveUp()
		} else {
			c.coord.giveUp()
		}
	}
	return evs
}

// onRefused: a request could not be sent; the role that sent it hears of it.
func (c *Consumer) onRefused(env *sim.Env, r sim.Refused) []ConsumerEvent {
	switch o := r.Orig.(type) {
	case protocol.MetadataRequest:
		c.md.onRefused(env)
	case protocol.OffsetsForLeaderEpochRequest:
		c.fetch.onRefused(env, o.TP, o.ReqID)
	case protocol.FetchRequest:
		c.fetch.onRefused(env, o.TP, o.ReqID)
	case protocol.ListOffsetsRequest:
		c.fetch.onListOffsetsFailed(env, o.TP)
	case protocol.FindCoordinatorRequest, protocol.OffsetCommitRequest, protocol.OffsetFetchRequest:
		if c.store != nil {
			c.store.onGone(env, c, "")
			return nil
		}
		return c.groupRefused(env, o)
	default:
		return c.groupRefused(env, o)
	}
	return nil
}

// Fire handles the client's timers, each in the role that set it.
func (c *Consumer) Fire(env *sim.Env, t sim.Payload) []ConsumerEvent {
	switch t := t.(type) {
	case metadataTimeout, metadataRetry:
		c.md.onTimer(env, t, c.cfg.RequestTimeoutMs)
		c.fetch.fetchAll(env)
	case fetchRetry, fetchTimeout:
		c.fetch.fire(env, t)
	case storeTimeout:
		if c.store != nil {
			return c.store.fire(env, c, t)
		}
	case resetRetry:
		// A latest offset is asked again only while the member looks up where to start.
		if c.State() == FetchingOffsets {
			c.fetch.onResetRetry(env, t)
		}
	default:
		if c.member != nil {
			return c.member.fire(env, t)
		}
		return c.coord.fire(env, t)
	}
	return nil
}

// groupRefused: a request of the group's role could not be sent.
func (c *Consumer) groupRefused(env *sim.Env, orig sim.Payload) []ConsumerEvent {
	if c.member != nil {
		return c.member.onRefused(env, orig)
	}
	return c.coord.onRefused(env, orig)
}
