package group

import (
	"maps"
	"slices"

	"deliverylab/core/kafka/protocol"
	"deliverylab/core/sim"
)

// onOffsetCommit appends the commit to the group's __consumer_offsets partition with
// acks=all (GroupMetadataManager.storeOffsets); it is answered once the HW covers it, or
// with the error that kept it from being stored.
func (c *Coordinator) onOffsetCommit(env *sim.Env, h Host, from string, req protocol.OffsetCommitRequest) {
	err := c.checkCommit(h, req)
	if err != "" {
		env.Send(from, protocol.OffsetCommitResponse{ReqID: req.ReqID, Err: err})
		return
	}
	if len(req.Offsets) == 0 {
		// Nothing to store: answered at once, with nothing appended (storeOffsets with no
		// offsets to write calls back without an append).
		env.Send(from, protocol.OffsetCommitResponse{ReqID: req.ReqID})
		return
	}
	records := make([]protocol.Record, len(req.Offsets))
	for i, o := range req.Offsets {
		records[i] = protocol.Record{Body: c.commitBody(req.Group, o)}
	}
	c.refSeq++
	base, err := h.AppendCommit(env, c.refSeq, c.OffsetsPartition(req.Group), records, c.cfg.CommitTimeoutMs)
	if err != "" {
		// Nothing was appended (below min.insync.replicas, or no longer the leader).
		env.Send(from, protocol.OffsetCommitResponse{ReqID: req.ReqID, Err: commitError(err)})
		return
	}
	c.pending[c.refSeq] = pendingCommit{From: from, Req: req, Base: base}
}

// checkCommit validates a commit: by member epoch for a consumer-protocol group
// (consumer_group_offsets.go), by generation for a classic one.
func (c *Coordinator) checkCommit(h Host, req protocol.OffsetCommitRequest) protocol.Error {
	if cg := c.consumerGroups[req.Group]; cg != nil && c.isCoordinator(h, req.Group) {
		return cg.validateCommit(req.Member, req.Generation, req.Offsets)
	}
	_, err := c.checkMember(h, req.Group, req.Member, req.Generation)
	if err == protocol.ErrRebalanceInProgress && req.Generation == c.groups[req.Group].Generation {
		err = "" // a member of the current generation may still commit while the group rebalances
	}
	if err == protocol.ErrUnknownMemberID && req.Generation < 0 && c.memberless(req.Group) {
		// A consumer without group management keeps its offsets here (an assigned
		// consumer with a group.id): taken while the group has no members
		// (GroupCoordinator.handleCommitOffsets: the group is unknown, or Empty, and the
		// generation is -1).
		err = ""
	}
	return err
}

// memberless reports whether a group has no members (unknown, or Empty).
func (c *Coordinator) memberless(group string) bool {
	g := c.groups[group]
	return g == nil || len(g.Members) == 0
}

// commitError is what a commit whose append failed answers
// (GroupMetadataManager.maybeConvertOffsetCommitError): too few in-sync replicas make the
// coordinator unavailable, a lost leadership makes it no longer the coordinator, and a
// timeout stays REQUEST_TIMED_OUT.
func commitError(err protocol.Error) protocol.Error {
	switch err {
	case protocol.ErrNotEnoughReplicas, protocol.ErrNotEnoughReplicasAfterAppend, protocol.ErrUnknownTopicOrPartition:
		return protocol.ErrCoordinatorNotAvailable
	case protocol.ErrNotLeaderOrFollower:
		return protocol.ErrNotCoordinator
	}
	return err
}

// AppendDone answers the commit appended under ref: the HW covers it (err is ""), the
// broker lost the partition (the member must find the new coordinator), the ISR shrank
// below min.insync.replicas, or it timed out. Only a stored commit enters the offsets
// cache (GroupMetadata.onOffsetCommitAppend); a failed one is forgotten
// (failPendingOffsetWrite) although its record stays in the log, where a coordinator
// that loads the partition later reads it.
func (c *Coordinator) AppendDone(env *sim.Env, h Host, ref int64, err protocol.Error) {
	if c.txnAppendDone(env, ref, err) || c.storeDone(env, h, ref, err) || c.consumerStoreDone(env, ref, err) {
		return
	}
	pc, ok := c.pending[ref]
	if !ok {
		return
	}
	delete(c.pending, ref)
	err = commitError(err)
	if err == "" {
		for i, o := range pc.Req.Offsets {
			c.cache(pc.Req.Group, o.TP, committed{Offset: o.Offset, RecordOffset: pc.Base + int64(i)})
		}
	}
	id := env.Send(pc.From, protocol.OffsetCommitResponse{ReqID: pc.Req.ReqID, Err: err})
	if id != 0 && err == "" {
		committed := make([]string, len(pc.Req.Offsets))
		for i, o := range pc.Req.Offsets {
			committed[i] = o.String()
		}
		env.Observe(sim.Observation{Event: protocol.OffsetCommitted, Msgs: pc.Req.Msgs, Group: pc.Req.Group,
			Committed: committed, WireID: id})
	}
}

// cache keeps an offset unless the cache holds one from a later record.
func (c *Coordinator) cache(groupID string, tp protocol.TP, o committed) {
	g := c.offsets[groupID]
	if g == nil {
		g = map[protocol.TP]committed{}
		c.offsets[groupID] = g
	}
	if old, ok := g[tp]; !ok || old.RecordOffset < o.RecordOffset {
		g[tp] = o
	}
}

// GroupOffsets lists the committed offsets in tp of the groups this broker coordinates
// (leads reports whether it leads a __consumer_offsets partition), sorted by group.
func (c *Coordinator) GroupOffsets(tp protocol.TP, leads func(protocol.TP) bool) []protocol.GroupOffset {
	var out []protocol.GroupOffset
	for _, g := range slices.Sorted(maps.Keys(c.offsets)) {
		if o, ok := c.offsets[g][tp]; ok && leads(c.OffsetsPartition(g)) {
			out = append(out, protocol.GroupOffset{Group: g, Offset: o.Offset})
		}
	}
	return out
}

// onOffsetFetch answers the group's committed offsets (GroupCoordinator.
// handleFetchOffsets, GroupMetadataManager.getOffsets): with RequireStable, a partition
// whose offset is not stable is answered UNSTABLE_OFFSET_COMMIT, on its own.
func (c *Coordinator) onOffsetFetch(env *sim.Env, h Host, from string, req protocol.OffsetFetchRequest) {
	if !c.isCoordinator(h, req.Group) {
		env.Send(from, protocol.OffsetFetchResponse{Err: protocol.ErrNotCoordinator})
		return
	}
	if cg := c.consumerGroups[req.Group]; cg != nil && req.Member != "" {
		if err := cg.validateFetch(req.Member, req.MemberEpoch); err != "" {
			env.Send(from, protocol.OffsetFetchResponse{Err: err})
			return
		}
	}
	var resp protocol.OffsetFetchResponse
	resp.Offsets = make([]protocol.TPOffset, len(req.TPs))
	for i, tp := range req.TPs {
		if req.RequireStable && c.unstable(req.Group, tp) {
			resp.Offsets[i] = protocol.TPOffset{TP: tp, Offset: -1}
			resp.Errs = append(resp.Errs, protocol.TPError{TP: tp, Err: protocol.ErrUnstableOffsetCommit})
			continue
		}
		resp.Offsets[i] = protocol.TPOffset{TP: tp, Offset: c.CommittedOffset(req.Group, tp)}
	}
	env.Send(from, resp)
}

// CommittedOffset reads a group's offset as the coordinator's cache holds it: what it
// loaded from its whole log when it became leader, and the commits stored since. -1 means
// none was committed.
func (c *Coordinator) CommittedOffset(groupID string, tp protocol.TP) int64 {
	if o, ok := c.offsets[groupID][tp]; ok {
		return o.Offset
	}
	return -1
}
