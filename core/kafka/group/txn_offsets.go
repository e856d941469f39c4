package group

import (
	"maps"
	"slices"

	"deliverylab/core/kafka/protocol"
	"deliverylab/core/sim"
)

// Transactional offset commits (KIP-98 TxnOffsetCommit, KIP-447 fencing), as Kafka's
// classic coordinator keeps them (GroupCoordinator.handleTxnCommitOffsets,
// GroupMetadataManager.storeOffsets with a producer id, GroupMetadata's
// pendingTransactionalOffsetCommits): the offsets are appended to the group's
// __consumer_offsets partition as a transactional batch of the producer, and wait per
// producer id — unseen by OffsetFetch, outside the cache — until the transaction's
// marker reaches that partition: COMMIT makes them the group's committed offsets, ABORT
// drops them.

// txnOffsets are one producer's pending transactional offsets in one group.
type txnOffsets struct {
	Offsets map[protocol.TP]committed // RecordOffset -1 until the append is replicated
	Msgs    []string                  // the identities they cover, in the order sent
}

func (t txnOffsets) clone() txnOffsets {
	return txnOffsets{Offsets: maps.Clone(t.Offsets), Msgs: slices.Clone(t.Msgs)}
}

// pendingTxnAppend is a TxnOffsetCommit appended, waiting for the HW.
type pendingTxnAppend struct {
	From string
	Req  protocol.TxnOffsetCommitRequest
	Base int64
}

// onTxnOffsetCommit validates a TxnOffsetCommit (GroupCoordinator.handleTxnCommitOffsets,
// validateOffsetCommit with isTransactional) and appends its offsets as a transactional
// batch of the producer with acks=all. The member checks are KIP-447's: a request with a
// generation (>= 0) or a member id must come from a current member (UNKNOWN_MEMBER_ID)
// of the group's generation (ILLEGAL_GENERATION); a rebalance in progress does not
// refuse it. Without either (generation -1, no member id) it is accepted, as for a
// producer that sends no group metadata.
func (c *Coordinator) onTxnOffsetCommit(env *sim.Env, h Host, from string, req protocol.TxnOffsetCommitRequest) {
	answer := func(err protocol.Error) { env.Send(from, protocol.TxnOffsetCommitResponse{ReqID: req.ReqID, Err: err}) }
	if !c.isCoordinator(h, req.Group) {
		answer(protocol.ErrNotCoordinator)
		return
	}
	if cg := c.consumerGroups[req.Group]; cg != nil {
		// A consumer-protocol group: the commit's validator, with the member epoch in
		// Generation (OffsetMetadataManager.validateTransactionalOffsetCommit); a producer
		// that sends no group metadata is not checked.
		if req.Generation >= 0 || req.Member != "" {
			if err := cg.validateCommit(req.Member, req.Generation, req.Offsets); err != "" {
				answer(err)
				return
			}
		}
	} else if g := c.groups[req.Group]; req.Generation >= 0 || req.Member != "" {
		empty := g == nil || len(g.Members) == 0
		if !(req.Generation < 0 && empty) {
			switch {
			case g == nil || g.Members[req.Member] == nil:
				answer(protocol.ErrUnknownMemberID)
				return
			case req.Generation != g.Generation:
				answer(protocol.ErrIllegalGeneration)
				return
			}
		}
	}
	if len(req.Offsets) == 0 {
		answer("")
		return
	}
	// GroupMetadata.prepareTxnOffsetCommit: pending from now, before the append.
	pend := c.txnPendingFor(req.Group, req.ProducerID)
	for _, o := range req.Offsets {
		pend.Offsets[o.TP] = committed{Offset: o.Offset, RecordOffset: -1}
	}
	pend.Msgs = appendNew(pend.Msgs, req.Msgs)
	c.txnPending[req.Group][req.ProducerID] = pend
	records := make([]protocol.Record, len(req.Offsets))
	for i, o := range req.Offsets {
		records[i] = protocol.Record{Body: protocol.OffsetCommit{Group: req.Group, TP: o.TP, Offset: o.Offset}}
	}
	first := records[0].Body.(protocol.OffsetCommit)
	first.Msgs = slices.Clone(req.Msgs)
	records[0].Body = first
	c.refSeq++
	base, err := h.AppendTxnOffsets(env, c.refSeq, c.OffsetsPartition(req.Group), records, req.ProducerID, req.ProducerEpoch,
		c.cfg.CommitTimeoutMs)
	if err != "" {
		c.failTxnOffsets(req)
		answer(commitError(err))
		return
	}
	c.txnAppends[c.refSeq] = pendingTxnAppend{From: from, Req: req, Base: base}
}

// txnAppendDone answers a TxnOffsetCommit once its append is replicated, or failed: a
// replicated one keeps its offsets pending with where their records lie
// (GroupMetadata.onTxnOffsetCommitAppend), a failed one takes them back
// (failPendingTxnOffsetCommit). It reports whether ref was a TxnOffsetCommit's.
func (c *Coordinator) txnAppendDone(env *sim.Env, ref int64, err protocol.Error) bool {
	pa, ok := c.txnAppends[ref]
	if !ok {
		return false
	}
	delete(c.txnAppends, ref)
	err = commitError(err)
	if err != "" {
		c.failTxnOffsets(pa.Req)
	} else if pend, ok := c.txnPending[pa.Req.Group][pa.Req.ProducerID]; ok {
		for i, o := range pa.Req.Offsets {
			if cur, ok := pend.Offsets[o.TP]; ok && cur.Offset == o.Offset {
				pend.Offsets[o.TP] = committed{Offset: o.Offset, RecordOffset: pa.Base + int64(i)}
			}
		}
	}
	env.Send(pa.From, protocol.TxnOffsetCommitResponse{ReqID: pa.Req.ReqID, Err: err})
	return true
}

// failTxnOffsets takes back the pending offsets of a commit whose append failed.
func (c *Coordinator) failTxnOffsets(req protocol.TxnOffsetCommitRequest) {
	pend, ok := c.txnPending[req.Group][req.ProducerID]
	if !ok {
		return
	}
	for _, o := range req.Offsets {
		delete(pend.Offsets, o.TP)
	}
	if len(pend.Offsets) == 0 {
		c.dropTxnPending(req.Group, req.ProducerID)
	}
}

func (c *Coordinator) txnPendingFor(groupID string, pid int64) txnOffsets {
	if c.txnPending[groupID] == nil {
		c.txnPending[groupID] = map[int64]txnOffsets{}
	}
	pend, ok := c.txnPending[groupID][pid]
	if !ok {
		pend = txnOffsets{Offsets: map[protocol.TP]committed{}}
	}
	return pend
}

func (c *Coordinator) dropTxnPending(groupID string, pid int64) {
	delete(c.txnPending[groupID], pid)
	if len(c.txnPending[groupID]) == 0 {
		delete(c.txnPending, groupID)
	}
}

// OnTxnMarker completes the pending offsets of a producer in the groups of a
// __consumer_offsets partition once the leader's append of its marker there is
// replicated (GroupMetadataManager.scheduleHandleTxnCompletion, handleTxnCompletion,
// GroupMetadata.completePendingTxnOffsetCommit): COMMIT puts them in the cache, unless
// it holds an offset from a later record, and they are durable and visible; ABORT drops
// them. wireID is the marker response's, for the observation.
func (c *Coordinator) OnTxnMarker(env *sim.Env, tp protocol.TP, pid int64, commit bool, wireID int64) {
	for _, name := range slices.Sorted(maps.Keys(c.txnPending)) {
		pend, ok := c.txnPending[name][pid]
		if !ok || c.OffsetsPartition(name) != tp {
			continue
		}
		c.dropTxnPending(name, pid)
		if !commit {
			continue
		}
		var done []string
		for _, t := range protocol.SortedTPs(pend.Offsets) {
			o := pend.Offsets[t]
			if o.RecordOffset < 0 {
				continue // its append never completed: nothing in the log to commit
			}
			c.cache(name, t, o)
			done = append(done, protocol.TPOffset{TP: t, Offset: o.Offset}.String())
		}
		if len(done) > 0 {
			env.Observe(sim.Observation{Event: protocol.OffsetCommitted, Msgs: pend.Msgs, Group: name, Committed: done, WireID: wireID})
		}
	}
}

// loadBatch replays one batch of a __consumer_offsets partition in log order, as
// GroupMetadataManager.doLoadGroupsAndOffsets does: a plain commit enters the cache, a
// transactional one waits with its producer, and the producer's marker commits it into
// the cache or drops it. What is still pending at the log end stays pending until its
// marker arrives.
func (c *Coordinator) loadBatch(tp protocol.TP, b protocol.RecordBatch) {
	if b.Control {
		m, ok := b.Records[0].Body.(protocol.ControlMarker)
		if !ok {
			return
		}
		for _, name := range slices.Sorted(maps.Keys(c.txnPending)) {
			pend, ok := c.txnPending[name][b.ProducerID]
			if !ok || c.OffsetsPartition(name) != tp {
				continue
			}
			c.dropTxnPending(name, b.ProducerID)
			if m.Type == protocol.ControlCommit {
				for t, o := range pend.Offsets {
					c.cache(name, t, o)
				}
			}
		}
		return
	}
	for _, r := range b.Records {
		oc, ok := r.Body.(protocol.OffsetCommit)
		if !ok || c.OffsetsPartition(oc.Group) != tp {
			continue
		}
		o := committed{Offset: oc.Offset, RecordOffset: r.Offset}
		if !b.Transactional {
			c.cache(oc.Group, oc.TP, o)
			continue
		}
		pend := c.txnPendingFor(oc.Group, b.ProducerID)
		pend.Offsets[oc.TP] = o
		pend.Msgs = appendNew(pend.Msgs, oc.Msgs)
		c.txnPending[oc.Group][b.ProducerID] = pend
	}
}

// unstable reports whether a group's offset in tp is not stable: a transactional commit
// waits for its marker, or a plain one for replication
// (GroupMetadata.hasPendingOffsetCommitsForTopicPartition).
func (c *Coordinator) unstable(groupID string, tp protocol.TP) bool {
	for _, pend := range c.txnPending[groupID] {
		if _, ok := pend.Offsets[tp]; ok {
			return true
		}
	}
	for _, pc := range c.pending {
		if pc.Req.Group == groupID && slices.ContainsFunc(pc.Req.Offsets, func(o protocol.TPOffset) bool { return o.TP == tp }) {
			return true
		}
	}
	return false
}

// appendNew appends the identities of more not already in to.
func appendNew(to, more []string) []string {
	for _, m := range more {
		if !slices.Contains(to, m) {
			to = append(to, m)
		}
	}
	return to
}

// PendingTxnOffsets lists the groups with transactional offsets waiting for a marker,
// sorted: a run does not settle while one does.
func (c *Coordinator) PendingTxnOffsets() []string {
	return slices.Sorted(maps.Keys(c.txnPending))
}
