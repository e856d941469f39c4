package clients

import (
	"maps"
	"slices"

	"deliverylab/core/kafka/protocol"
)

// fetcher is the consumer's reading role, Kafka's Fetcher with the SubscriptionState and
// FetchCollector it works on: it holds the partitions the member owns and its position
// in each, fetches from their leaders (consumer_fetch.go), resets positions
// (consumer_offset_reset.go), validates them after a leader change
// (consumer_validate.go), leaves out what the isolation level hides (consumer_txn.go)
// and hands Poll the records. It learns its assignment and committed positions from the
// coordinator (subscriptionState) and reports the positions consumed for a commit.
type fetcher struct {
	cfg *ConsumerConfig // the client's, shared
	md  *metadata       // the client's, shared: where each partition's leader is
	ids *requestIDs     // the client's, shared with the coordinator

	// fetchable: the member is stable, so its positions are its own to read from. The
	// coordinator says so (setFetchable) whenever the member's state changes.
	fetchable   bool
	assigned    []protocol.TP
	positions   map[protocol.TP]int64         // next offset Poll returns
	fetching    map[protocol.TP]fetchInFlight // the fetch (or validation) in flight, per partition
	fetchedFrom map[protocol.TP]string        // the broker that fetch went to
	buffer      map[protocol.TP][]fetched
	// KIP-320: the leader epoch of the record before each position, once Poll has
	// returned one, and the leader epoch the position was last checked against.
	offsetEpochs map[protocol.TP]int32
	checkedAt    map[protocol.TP]int32
	failures     map[protocol.TP]int   // fetch failures in a row, for the retry backoff
	retryAt      map[protocol.TP]int64 // no fetch of the partition before this time
	resetSeq     map[protocol.TP]int64 // bumps per ListOffsets request, so one retry chain runs
	returned     []string              // identities Poll returned since the last commit
	// the transactional records a read_committed consumer returned, for the invariant
	// (consumer_txn.go), and how many of them it has checked; kept across a crash
	txnReads   []txnRead
	txnChecked int
}

// reset forgets what the process held in memory (the application crashed).
func (f *fetcher) reset() {
	f.fetchable = false
	f.revoke()
	f.checkedAt = map[protocol.TP]int32{}
	f.failures = map[protocol.TP]int{}
	f.retryAt = map[protocol.TP]int64{}
	f.resetSeq = map[protocol.TP]int64{}
	f.returned = nil
}

// clone copies the fetcher; the shared pointers are the caller's to set.
func (f *fetcher) clone() fetcher {
	n := *f
	n.assigned = slices.Clone(f.assigned)
	n.positions = maps.Clone(f.positions)
	n.offsetEpochs = maps.Clone(f.offsetEpochs)
	n.checkedAt = maps.Clone(f.checkedAt)
	n.fetching = maps.Clone(f.fetching)
	n.fetchedFrom = maps.Clone(f.fetchedFrom)
	n.buffer = make(map[protocol.TP][]fetched, len(f.buffer))
	for k, v := range f.buffer {
		n.buffer[k] = slices.Clone(v) // appended to in place
	}
	n.failures = maps.Clone(f.failures)
	n.retryAt = maps.Clone(f.retryAt)
	n.resetSeq = maps.Clone(f.resetSeq)
	n.returned = slices.Clone(f.returned)
	n.txnReads = slices.Clone(f.txnReads)
	return n
}

// setFetchable says whether the member is stable, and so whether fetchAll may fetch.
func (f *fetcher) setFetchable(ok bool) { f.fetchable = ok }

// assign takes the partitions SyncGroup gave the member, sorted, none positioned yet.
func (f *fetcher) assign(tps []protocol.TP) { f.assigned = tps }

// revoke gives every partition up, with what was fetched from it: the member rejoins.
// The retry backoffs and validation epochs stay, as they are about the brokers.
func (f *fetcher) revoke() {
	f.assigned = nil
	f.positions = map[protocol.TP]int64{}
	f.fetching = map[protocol.TP]fetchInFlight{}
	f.fetchedFrom = map[protocol.TP]string{}
	f.buffer = map[protocol.TP][]fetched{}
	f.offsetEpochs = map[protocol.TP]int32{}
}

// owned is the member's partitions, sorted; the caller must not change the slice.
func (f *fetcher) owned() []protocol.TP { return f.assigned }

// position is the next offset Poll will return for a partition (-1 if unknown).
func (f *fetcher) position(tp protocol.TP) int64 {
	if p, ok := f.positions[tp]; ok {
		return p
	}
	return -1
}

// hasPosition reports whether the fetcher knows where to read a partition.
func (f *fetcher) hasPosition(tp protocol.TP) bool {
	_, ok := f.positions[tp]
	return ok
}

// positioned reports whether every owned partition has a position.
func (f *fetcher) positioned() bool {
	for _, tp := range f.assigned {
		if !f.hasPosition(tp) {
			return false
		}
	}
	return true
}

// missing lists the owned partitions without a position, in order.
func (f *fetcher) missing() []protocol.TP {
	var rest []protocol.TP
	for _, tp := range f.assigned {
		if !f.hasPosition(tp) {
			rest = append(rest, tp)
		}
	}
	return rest
}

// seek positions owned partitions at the application's offsets (KafkaConsumer.seek) and
// lists, in order, those it had none for.
func (f *fetcher) seek(offsets map[protocol.TP]int64) []protocol.TP {
	var rest []protocol.TP
	for _, tp := range f.assigned {
		if off, ok := offsets[tp]; ok {
			f.positions[tp] = off
		} else {
			rest = append(rest, tp)
		}
	}
	return rest
}

// buffered counts records fetched but not yet returned by Poll.
func (f *fetcher) buffered() int {
	n := 0
	for _, b := range f.buffer {
		n += len(b)
	}
	return n
}

// consumed is the position in each owned partition (the offset after the last record
// returned) and the identities returned since the last call, which it takes.
func (f *fetcher) consumed() ([]protocol.TPOffset, []string) {
	msgs := f.returned
	f.returned = nil
	var offs []protocol.TPOffset
	for _, tp := range f.assigned {
		if p, ok := f.positions[tp]; ok && p >= 0 {
			offs = append(offs, protocol.TPOffset{TP: tp, Offset: p})
		}
	}
	return offs, msgs
}

// knownPositions is the position in each owned partition the fetcher knows.
func (f *fetcher) knownPositions() []protocol.TPOffset {
	var out []protocol.TPOffset
	for _, tp := range f.assigned {
		if p := f.position(tp); p >= 0 {
			out = append(out, protocol.TPOffset{TP: tp, Offset: p})
		}
	}
	return out
}

// collect returns up to max.poll.records buffered records and moves the positions past
// them (FetchCollector.collectFetch); records Poll does not return (control records,
// aborted ones under read_committed) are passed over without counting.
func (f *fetcher) collect() []Polled {
	var out []Polled
	for _, tp := range f.assigned {
		for len(f.buffer[tp]) > 0 && (f.buffer[tp][0].Skip || len(out) < f.cfg.MaxPollRecords) {
			r := f.buffer[tp][0]
			f.buffer[tp] = f.buffer[tp][1:]
			f.positions[tp] = r.Offset + 1
			f.offsetEpochs[tp] = r.Epoch
			if r.Skip {
				continue
			}
			d, _ := r.Data()
			out = append(out, Polled{TP: tp, Offset: r.Offset, Data: d})
			if d.Msg != "" {
				f.returned = append(f.returned, d.Msg)
			}
			if r.PID >= 0 && f.cfg.Isolation == protocol.ReadCommitted {
				f.txnReads = append(f.txnReads, txnRead{TP: tp, PID: r.PID, Offset: r.Offset, Msg: d.Msg})
			}
		}
	}
	return out
}
