package group

import (
	"deliverylab/core/kafka/protocol"
	"deliverylab/core/kafka/storage"
	"deliverylab/core/sim"
)

// onOffsetCommit appends the commit to __consumer_offsets; it is answered once the HW
// covers it, like an acks=all produce, or fails after offsets.commit.timeout.ms.
func (c *Coordinator) onOffsetCommit(env *sim.Env, h Host, from string, req protocol.OffsetCommitRequest) {
	_, err := c.checkMember(h, req.Group, req.Member, req.Generation)
	if err == protocol.ErrRebalanceInProgress && req.Generation == c.groups[req.Group].Generation {
		err = "" // a member of the current generation may still commit while the group rebalances
	}
	if err != "" {
		env.Send(from, protocol.OffsetCommitResponse{ReqID: req.ReqID, Err: err})
		return
	}
	records := make([]protocol.Record, len(req.Offsets))
	for i, o := range req.Offsets {
		records[i] = protocol.Record{Body: protocol.OffsetCommit{Group: req.Group, TP: o.TP, Offset: o.Offset}}
	}
	c.refSeq++
	c.pending[c.refSeq] = pendingCommit{From: from, Req: req}
	h.AppendCommit(env, c.refSeq, records, c.cfg.CommitTimeoutMs)
}

// AppendDone answers the commit appended under ref: the HW covers it (err is ""), the
// broker lost the partition (the member must find the new coordinator), or it timed out.
func (c *Coordinator) AppendDone(env *sim.Env, ref int64, err string) {
	pc, ok := c.pending[ref]
	if !ok {
		return
	}
	delete(c.pending, ref)
	if err == protocol.ErrNotLeaderOrFollower {
		err = protocol.ErrNotCoordinator
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

// onOffsetFetch answers the group's committed offsets.
func (c *Coordinator) onOffsetFetch(env *sim.Env, h Host, from string, req protocol.OffsetFetchRequest) {
	if !isCoordinator(h) {
		env.Send(from, protocol.OffsetFetchResponse{Err: protocol.ErrNotCoordinator})
		return
	}
	log, hw := h.OffsetsLog()
	out := make([]protocol.TPOffset, len(req.TPs))
	for i, tp := range req.TPs {
		out[i] = protocol.TPOffset{TP: tp, Offset: c.CommittedOffset(log, hw, req.Group, tp)}
	}
	env.Send(from, protocol.OffsetFetchResponse{Offsets: out})
}

// CommittedOffset reads a group's offset as the coordinator's cache holds it: what it
// loaded from its whole log when it became leader, plus the commits answered since,
// which the HW covers. -1 means none was committed.
func (c *Coordinator) CommittedOffset(log *storage.Log, hw int64, group string, tp protocol.TP) int64 {
	visible := max(hw, c.loadedEnd)
	offset := int64(-1)
	for _, b := range log.Read(0, visible) {
		for _, r := range b.Records {
			if oc, ok := r.Body.(protocol.OffsetCommit); ok && r.Offset < visible && oc.Group == group && oc.TP == tp {
				offset = oc.Offset
			}
		}
	}
	return offset
}
