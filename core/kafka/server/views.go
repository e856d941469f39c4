package server

import (
	"fmt"
	"maps"
	"slices"
	"strconv"

	"deliverylab/core/fate"
	"deliverylab/core/kafka/protocol"
	"deliverylab/core/kafka/storage"
	"deliverylab/core/kafka/txn"
	"deliverylab/core/show"
	"deliverylab/core/sim"
)

// What a broker answers about itself to the rest of the playground: whether its work
// has settled, what the canvas draws, what its logs still hold for a reader, and what is
// wrong with its state. None of it takes a protocol step.

// HighWatermark is the high watermark of this broker's replica of a partition.
func (b *Broker) HighWatermark(tp protocol.TP) (int64, bool) {
	if p := b.replicas.partitions[tp]; p != nil {
		return p.HW, true
	}
	return 0, false
}

// LogEndOffset is where this broker's replica of a partition ends.
func (b *Broker) LogEndOffset(tp protocol.TP) (int64, bool) {
	if p := b.replicas.partitions[tp]; p != nil {
		return p.LEO(), true
	}
	return 0, false
}

// LastStableOffset is the last stable offset of this broker's replica of a partition.
func (b *Broker) LastStableOffset(tp protocol.TP) (int64, bool) {
	if p := b.replicas.partitions[tp]; p != nil {
		return p.LastStableOffset(), true
	}
	return 0, false
}

// InAbortedTxn reports whether this broker's replica of a partition knows that the
// record at offset, written by pid, belongs to an aborted transaction.
func (b *Broker) InAbortedTxn(tp protocol.TP, pid, offset int64) bool {
	p := b.replicas.partitions[tp]
	return p != nil && p.Log.InAbortedTxn(pid, offset)
}

// CommittedOffset is a group's committed position in a partition as this broker, if it
// is the coordinator, answers it, or -1.
func (b *Broker) CommittedOffset(group string, tp protocol.TP) int64 {
	return b.groups.CommittedOffset(group, tp)
}

// GroupOffsets lists the committed offsets in tp of the groups this broker coordinates.
func (b *Broker) GroupOffsets(tp protocol.TP) []protocol.GroupOffset {
	return b.groups.GroupOffsets(tp, b.IsLeader)
}

// partitionWait says what a partition this broker leads still waits for ("" for
// nothing), and which follower when it is one.
func (b *Broker) partitionWait(v sim.View, st protocol.PartitionState) (fate.Code, string) {
	seen, ok := b.replicas.meta[st.TP]
	if !ok || seen.LeaderEpoch != st.LeaderEpoch || seen.PartitionEpoch != st.PartitionEpoch {
		return fate.WaitsForMetadata, "" // it has not heard of the latest election or ISR change yet
	}
	p := b.replicas.partitions[st.TP]
	for _, f := range st.Replicas {
		n, up := v.Node(f)
		if fb, isBroker := n.(*Broker); isBroker && f != b.name && up && v.Reachable(f, b.name) && fb.diverges(st.TP, p) {
			return fate.WaitsForFollower, f
		}
	}
	// With others in the ISR the HW still moves: they catch up or are shrunk out.
	if p.HW >= p.LEO() || len(st.ISR) <= 1 || len(st.ISR) < b.cfg.EffectiveMinISR(len(st.Replicas)) {
		return "", ""
	}
	return fate.WaitsForHW, ""
}

// diverges reports whether this broker's replica has a record the leader's does not. It
// compares the epochs of the two logs, not their records (storage.Log.Diverges), so the
// settle check, asked at every instant, costs no more as the logs grow.
func (b *Broker) diverges(tp protocol.TP, leader *Partition) bool {
	p := b.replicas.partitions[tp]
	return p != nil && leader.Log.Diverges(&p.Log)
}

// Show implements show.Shower: the broker and each of its replicas; on the leader of a
// topic partition, where its readers stand (each group's committed offset, each
// consumer's position).
func (b *Broker) Show(v sim.View) show.Node {
	n := show.Node{Kind: show.Broker}
	for _, tp := range b.replicas.TPs() {
		p := b.replicas.partitions[tp]
		l := show.Log{Partition: tp.String(), Leader: p.IsLeader(), Internal: protocol.IsInternalTopic(tp.Topic), LEO: p.LEO(), HW: p.HW}
		if p.IsLeader() && p.Log.HasTransactions() {
			l.LSO, l.HasLSO = p.LastStableOffset(), true
		}
		if st, ok := b.replicas.meta[tp]; ok {
			l.Epoch, l.ISR, l.ELR = st.LeaderEpoch, slices.Clone(st.ISR), slices.Clone(st.ELR)
		}
		var aborted []storage.CompletedTxn // asked at every frame: only a log with transactions has any
		if p.Log.HasTransactions() {
			aborted = p.Log.AbortedIndex()
		}
		for _, batch := range p.Log.All() {
			for _, r := range batch.Records {
				c := cell(*batch, r)
				c.Aborted = batch.Transactional && !batch.Control && inAborted(aborted, batch.ProducerID, r.Offset)
				if batch.Transactional && !batch.Control {
					c.Txn = txnState(p, batch.ProducerID, r.Offset, c.Aborted)
				}
				l.Records = append(l.Records, c)
			}
		}
		if v.NowMs()-p.truncatedMs < TruncationShownMs {
			for _, batch := range p.truncated {
				for _, r := range batch.Records {
					l.Truncated = append(l.Truncated, cell(batch, r))
				}
			}
		}
		if p.IsLeader() && tp.Topic != protocol.OffsetsTopic {
			l.Marks = readerMarks(v, tp)
		}
		n.Logs = append(n.Logs, l)
	}
	n.Status = fate.Because(fate.StatusPartitions, "count", strconv.Itoa(len(n.Logs)))
	n.Fenced = protocol.Fenced(v, b.name)
	for _, t := range b.txns.View() {
		st := show.Txn{ID: t.ID, ProducerID: t.PID, Epoch: t.Epoch, State: t.State.String()}
		for _, tp := range t.Partitions {
			st.Partitions = append(st.Partitions, tp.String())
		}
		n.Txns = append(n.Txns, st)
	}
	return n
}

// TruncationShownMs is how long the canvas shows the records a truncation cut from a
// replica, as struck-out cells after its log end: long enough to see at play speed.
const TruncationShownMs = 3000

// ChartOffsets is a partition's offsets as the chart of offsets over time draws them:
// its live leader's log offsets and its readers' places.
func ChartOffsets(v sim.View, tp protocol.TP) show.Offsets {
	o := show.Offsets{Partition: tp.String(), LEO: -1, HW: -1, LSO: -1, Marks: readerMarks(v, tp)}
	if l, ok := protocol.LiveLeaderOffsets(v, tp); ok {
		o.Leader, o.LEO, o.HW, o.LSO = l.Leader, l.LEO, l.HW, l.LSO
	}
	return o
}

func readerMarks(v sim.View, tp protocol.TP) []show.Mark {
	var out []show.Mark
	for _, g := range protocol.CommittedOffsets(v, tp) {
		out = append(out, show.Mark{Kind: show.CommittedMark, Who: g.Group, Offset: g.Offset})
	}
	pos := protocol.ConsumerPositions(v, tp)
	for _, c := range slices.Sorted(maps.Keys(pos)) {
		out = append(out, show.Mark{Kind: show.PositionMark, Who: c, Offset: pos[c]})
	}
	return out
}

func cell(b protocol.RecordBatch, r protocol.Record) show.Cell {
	c := show.Cell{Offset: r.Offset, Epoch: b.LeaderEpoch}
	switch body := r.Body.(type) {
	case protocol.Data:
		c.Kind, c.Msg, c.Key = show.Data, body.Msg, body.Key
		if b.ProducerID != protocol.NoProducerID {
			c.Seq = fmt.Sprintf("%d:%d", b.ProducerID, b.BaseSequence+int32(r.Offset-b.BaseOffset))
		}
	case protocol.OffsetCommit:
		c.Kind, c.Note = show.OffsetCommit, fmt.Sprintf("@%d", body.Offset) // the group is in the trace
	case protocol.GroupMetadata:
		c.Kind, c.Note = show.OffsetCommit, fmt.Sprintf("gen %d", body.Generation) // a group's members, stored at a rebalance
	case protocol.ConsumerGroupSnapshot:
		c.Kind, c.Note = show.OffsetCommit, fmt.Sprintf("ep %d", body.GroupEpoch) // a consumer-protocol group at its group epoch, stored as it changed (short: a log cell is narrow)
	case protocol.TxnLogRecord:
		c.Kind, c.Note = show.TxnLog, txnCellNote[body.State] // the id and the epoch are on the broker's header
	case protocol.ControlMarker:
		c.Kind, c.Note = show.AbortMarker, body.Type.String()
		if body.Type == protocol.ControlCommit {
			c.Kind = show.CommitMarker
		}
	}
	return c
}

// Holds implements fate.Holder: of the partitions a reader reads, the messages this
// broker still holds that the reader could yet get — all of its log when it is a down
// replica of a partition left without a leader, and, when it is the live leader, what
// lies at or past the group's committed offset (all of the log if the group has none)
// and whatever lies above the HW. Below the HW that is what the group's consumers would
// fetch next (a consumer starts at the committed offset: ConsumerCoordinator.
// initWithCommittedOffsetsIfNeeded, then fetches up to the HW); below the committed
// offset the group has moved past a record, so nothing will read it again.
func (b *Broker) Holds(v sim.View, r fate.Reader) []fate.Held {
	var out []fate.Held
	_, up := v.Node(b.name)
	for _, tp := range b.replicas.TPs() {
		if !r.Reads(tp.Topic) {
			continue
		}
		p := b.replicas.partitions[tp]
		leader, live := protocol.LiveLeader(v, tp)
		var from int64 // the group's committed offset, where the live leader holds from
		offline := !live && !up
		switch {
		case offline:
		case live && leader == b.name:
			from = max(protocol.CommittedOffset(v, r.Group, tp), 0)
		default:
			continue
		}
		var aborted []storage.CompletedTxn
		if r.Committed && p.Log.HasTransactions() {
			aborted = p.Log.AbortedIndex()
		}
		for _, batch := range p.Log.All() {
			for _, rec := range batch.Records {
				if batch.Transactional && inAborted(aborted, batch.ProducerID, rec.Offset) {
					continue // a read_committed reader never gets it
				}
				if m := rec.Msg(); m != "" {
					if code, held := heldAs(offline, r.Down, rec.Offset, p.HW, from); held {
						out = append(out, fate.Held{Msg: m, Where: fate.Because(code, "partition", tp.String(), "broker", b.name),
							Past: code == fate.HeldPast})
					}
				}
			}
		}
	}
	return out
}

// heldAs says why a record at off is held, if it is: by a down replica of a leaderless
// partition; for a reader whose consumers are all down, from the committed offset; else
// above the HW, or below it from the committed offset. Below the committed offset it is
// past: still in the log, but nothing will read it again.
func heldAs(offline, readerDown bool, off, hw, committed int64) (fate.Code, bool) {
	switch {
	case offline:
		return fate.HeldOffline, true
	case off < committed && (readerDown || off < hw):
		return fate.HeldPast, true // lost all the same: the ledger says where it still is
	case readerDown:
		return fate.HeldForReader, true
	case off >= hw:
		return fate.HeldAboveHW, true
	}
	return fate.HeldUnread, true
}

// LogHolds reports whether one of this broker's replicas of the topic's partitions holds the
// message, whatever the broker's state: a log is durable.
func (b *Broker) LogHolds(topic, msg string) bool {
	for _, tp := range b.replicas.TPs() {
		if tp.Topic != topic {
			continue
		}
		for _, batch := range b.replicas.partitions[tp].Log.All() {
			for _, rec := range batch.Records {
				if rec.Msg() == msg {
					return true
				}
			}
		}
	}
	return false
}

// Invariants lists what is wrong with the broker's state: a high watermark past the log
// end, a log whose offsets, epochs or control batches are wrong (storage.Log.Problems),
// or another live broker leading one of its partitions in the same epoch.
func (b *Broker) Invariants(v sim.View) []string {
	var bad []string
	_, up := v.Node(b.name)
	for _, tp := range b.replicas.TPs() {
		p := b.replicas.partitions[tp]
		bad = append(bad, PartitionProblems(b.name, p)...)
		if !up || !p.IsLeader() {
			continue
		}
		for _, other := range otherBrokers(v, b.name) {
			if op := other.replicas.partitions[tp]; op != nil && op.IsLeader() && op.state.LeaderEpoch == p.state.LeaderEpoch && b.name < other.name {
				bad = append(bad, fmt.Sprintf("%s epoch %d: both %s and %s lead it", tp, p.state.LeaderEpoch, b.name, other.name))
			}
		}
	}
	return bad
}

// PartitionProblems checks one replica.
func PartitionProblems(broker string, p *Partition) []string {
	var bad []string
	if p.HW > p.LEO() {
		bad = append(bad, fmt.Sprintf("%s %s: high watermark %d passes the log end %d", broker, p.TP, p.HW, p.LEO()))
	}
	for _, problem := range append(p.Log.Problems(), p.Log.LSOProblems(p.HW)...) {
		bad = append(bad, fmt.Sprintf("%s %s: %s", broker, p.TP, problem))
	}
	return bad
}

// otherBrokers lists the live brokers of the cluster but one, through the view.
func otherBrokers(v sim.View, self string) []*Broker {
	var out []*Broker
	for _, name := range v.NodeNames() {
		if n, up := v.Node(name); up && name != self {
			if b, ok := n.(*Broker); ok {
				out = append(out, b)
			}
		}
	}
	return out
}

// Transactions lists the transactional ids this broker coordinates, with their state,
// epoch and partitions, sorted.
func (b *Broker) Transactions() []txn.TxnView { return b.txns.View() }

// txnCellNote is a transaction-log record's state, short enough for a log cell.
var txnCellNote = map[protocol.TxnState]string{
	protocol.TxnEmpty: "empty", protocol.TxnOngoing: "ongoing", protocol.TxnPrepareCommit: "prep C",
	protocol.TxnPrepareAbort: "prep A", protocol.TxnCompleteCommit: "done C", protocol.TxnCompleteAbort: "done A",
	protocol.TxnPrepareEpochFence: "fence", protocol.TxnDead: "dead",
}

// txnState is the state of the transaction a producer's record at offset belongs to, as
// the replica knows it: aborted (its index says so), open (at or after the first offset
// of the producer's transaction that has not ended), or committed.
func txnState(p *Partition, pid, offset int64, aborted bool) show.RecordTxn {
	if aborted {
		return show.RecordTxnAborted
	}
	if e, ok := p.Log.Producer(pid); ok && e.TxnFirstOffset >= 0 && offset >= e.TxnFirstOffset {
		return show.RecordTxnOpen
	}
	return show.RecordTxnCommitted
}

// inAborted reports whether a producer's record at offset belongs to one of its aborted
// transactions (the partition's aborted-transaction index).
func inAborted(aborted []storage.CompletedTxn, pid, offset int64) bool {
	return slices.ContainsFunc(aborted, func(t storage.CompletedTxn) bool {
		return t.ProducerID == pid && t.FirstOffset <= offset && offset <= t.LastOffset
	})
}
