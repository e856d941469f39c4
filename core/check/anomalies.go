package check

import (
	"maps"
	"slices"

	"deliverylab/core/apps"
	"deliverylab/core/fate"
	"deliverylab/core/kafka/protocol"
	"deliverylab/core/sim"
)

// Anomaly is one of the Kafka anomalies the checker reports, by its name in Jepsen
// (jepsen.tests.kafka); scenes expect them by that name, and reports count them by it.
type Anomaly string

// The anomalies, each named once.
const (
	Duplicate        Anomaly = "duplicate"
	LostWrite        Anomaly = "lost-write"
	NonmonotonicSend Anomaly = "nonmonotonic-send"
	NonmonotonicPoll Anomaly = "nonmonotonic-poll"
	PollSkip         Anomaly = "poll-skip"
	AbortedRead      Anomaly = "aborted-read"
)

// AllAnomalies are the anomalies the checker reports, in the order the page lists them.
var AllAnomalies = []Anomaly{Duplicate, LostWrite, NonmonotonicSend, NonmonotonicPoll, PollSkip, AbortedRead}

// anomalyMeans says what each anomaly means.
var anomalyMeans = map[Anomaly]fate.Code{Duplicate: fate.MeansDuplicate, LostWrite: fate.MeansLostWrite,
	NonmonotonicSend: fate.MeansNonmonotonicSend, NonmonotonicPoll: fate.MeansNonmonotonicPoll, PollSkip: fate.MeansPollSkip,
	AbortedRead: fate.MeansAbortedRead}

// Meaning says what one of AllAnomalies means, in every language.
func Meaning(anomaly Anomaly) fate.Reason { return fate.Because(anomalyMeans[anomaly]) }

// Anomalies finds Jepsen's Kafka anomalies in the sends and polls of a run
// (jepsen.tests.kafka):
//   - duplicate: one message polled at more than one offset of a partition;
//   - lost-write: an acknowledged message never polled, although a consumer polled a
//     higher offset of the partition it was acknowledged in;
//   - nonmonotonic-send, nonmonotonic-poll, poll-skip: see orderAnomalies;
//   - aborted-read (Adya's G1a): a poll returned a message whose transaction aborted;
//     aborted holds the records ("orders-0@3") the logs say an ABORT marker ended, when
//     the run was over (a transaction its coordinator timed out aborts too, with no
//     application told).
func Anomalies(obs sim.ObservationList, acked func(string) bool, aborted map[sim.RecordAt]bool) map[Anomaly]int {
	out := map[Anomaly]int{Duplicate: 0, LostWrite: 0}
	offsets := map[string]map[string]map[int64]bool{} // message -> partition -> offsets polled
	highest := map[string]int64{}
	ackAt := map[string]sim.Observation{}
	var ackOrder []string
	for _, o := range obs.Of(apps.Polled, apps.Acked) {
		switch o.Event {
		case apps.Polled:
			for _, m := range o.Msgs {
				if offsets[m] == nil {
					offsets[m] = map[string]map[int64]bool{}
				}
				if offsets[m][o.Partition] == nil {
					offsets[m][o.Partition] = map[int64]bool{}
				}
				offsets[m][o.Partition][o.Offset] = true
			}
			if h, ok := highest[o.Partition]; !ok || o.Offset > h {
				highest[o.Partition] = o.Offset
			}
		case apps.Acked:
			for _, m := range o.Msgs {
				if _, seen := ackAt[m]; !seen {
					ackAt[m] = o
					ackOrder = append(ackOrder, m)
				}
			}
		}
	}
	// A message derived from another (a Streams application's output) is in two topics:
	// only copies within one partition are duplicates.
	for _, byPartition := range offsets {
		for _, offs := range byPartition {
			if len(offs) > 1 {
				out[Duplicate]++
				break
			}
		}
	}
	for _, m := range ackOrder {
		a := ackAt[m]
		if offsets[m][a.Partition] != nil || !acked(m) || a.Partition == "" {
			continue
		}
		if h, ok := highest[a.Partition]; ok && a.Offset >= 0 && h > a.Offset {
			out[LostWrite]++
		}
	}
	for name, n := range orderAnomalies(obs) {
		out[name] = n
	}
	out[AbortedRead] = abortedReads(obs, aborted)
	return out
}

// abortedReads counts the messages a poll returned from a record of an aborted
// transaction.
func abortedReads(obs sim.ObservationList, aborted map[sim.RecordAt]bool) int {
	read := map[string]bool{}
	for _, o := range obs.Of(apps.Polled) {
		if aborted[o.Record()] {
			for _, m := range o.Msgs {
				read[m] = true
			}
		}
	}
	return len(read)
}

// orderAnomalies counts the cases of Jepsen's per-key order anomalies
// (jepsen.tests.kafka: nonmonotonic-send-cases, poll-skip+nonmonotonic-cases). Jepsen's
// key is a topic-partition, and so is ours. Both compare positions in the partition's
// version order: the offsets known to hold a record (acknowledged or polled), gaps
// removed, so that delta 1 is the next record of the log.
//   - nonmonotonic-send: a producer sends a record to a partition and the one it sends
//     next to that partition lands at or before it (delta < 1);
//   - nonmonotonic-poll: a consumer polls a record of a partition at or before the one
//     it polled before from that partition (delta < 1);
//   - poll-skip: a consumer's next record of a partition is not the next record of the
//     log (delta > 1): it skipped records a log holds.
//
// Where ours differs from Jepsen's: Jepsen's processes do one operation at a time and a
// crashed one comes back as a new process; our producer keeps several sends in flight,
// so send order is the order the application handed records to the client (sent), each
// placed at the offset its acknowledgement gave, and a crash or restart starts a new
// sequence, like Jepsen's new process. Sends without an acknowledged offset are left
// out (Jepsen's :info sends have none either). We place each record by its offset rather
// than its value, so a message the producer appended twice (a retry) has two places.
// We compare every pair of successive records a consumer polls, so Jepsen's internal
// (int-) variants within one poll count too. Jepsen forgets a process's last reads only
// of the partitions a new assign or subscribe drops, and with subscribe allows both poll
// anomalies outright, since a rebalance explains them; we forget a consumer's last
// reads when what explains a jump happens: a rebalance hands it partitions (the eager
// protocol revokes them all and the consumer restarts each from the committed offset:
// ConsumerCoordinator.onJoinPrepare, then initWithCommittedOffsetsIfNeeded), it crashes
// or restarts, a fetch answered OFFSET_OUT_OF_RANGE and it seeks by auto.offset.reset
// (FetchCollector, SubscriptionState.requestOffsetResetIfPartitionAssigned), or it
// found its position past a truncation and seeks back (KIP-320).
func orderAnomalies(obs sim.ObservationList) map[Anomaly]int {
	order := versionOrder(obs)
	nonmonotonicPoll, pollSkip := pollAnomalies(obs, order)
	return map[Anomaly]int{NonmonotonicSend: sendAnomalies(sendSequences(obs), order),
		NonmonotonicPoll: nonmonotonicPoll, PollSkip: pollSkip}
}

// partitionOrder is the version order of each partition: the offsets known to hold a
// record (acknowledged or polled), gaps removed.
type partitionOrder struct {
	held  map[string]map[int64][]string // partition -> offset -> the messages seen there
	known map[string][]int64            // partition -> offsets known to hold a record, in order
}

// versionOrder places every acknowledged and every polled message at its offset.
func versionOrder(obs sim.ObservationList) partitionOrder {
	held := map[string]map[int64][]string{}
	place := func(p string, off int64, m string) {
		if held[p] == nil {
			held[p] = map[int64][]string{}
		}
		if !slices.Contains(held[p][off], m) {
			held[p][off] = append(held[p][off], m)
		}
	}
	for _, o := range obs.Of(apps.Acked, apps.Polled) {
		switch {
		case o.Event == apps.Acked && o.Offset >= 0:
			for i, m := range o.Msgs {
				place(o.Partition, o.Offset+int64(i), m)
			}
		case o.Event == apps.Polled:
			for _, m := range o.Msgs {
				place(o.Partition, o.Offset, m)
			}
		}
	}
	known := map[string][]int64{}
	for p, at := range held {
		known[p] = slices.Sorted(maps.Keys(at))
	}
	return partitionOrder{held: held, known: known}
}

// index is an offset's place in the partition's version order; false where two
// records were seen at the offset (an acknowledged one truncated and the offset
// reused): Jepsen reports those as inconsistent offsets and keeps only one of the
// values in its version order, so a comparison with the other never fires; we
// compare neither.
func (po partitionOrder) index(p string, off int64) (int, bool) {
	i, _ := slices.BinarySearch(po.known[p], off)
	return i, len(po.held[p][off]) == 1
}

// pollAnomalies compares each record a consumer polls from a partition with the one it
// polled before from it, forgetting the last reads where a jump is explained.
func pollAnomalies(obs sim.ObservationList, order partitionOrder) (nonmonotonic, skips int) {
	polls := map[string]map[string]int{} // consumer -> partition -> index of the last record polled
	for _, o := range obs.Of(sim.Crashed, sim.Restarted, protocol.Assigned, protocol.ClientError, protocol.TruncationDetected, apps.Polled) {
		switch o.Event {
		case sim.Crashed, sim.Restarted, protocol.Assigned:
			delete(polls, o.Node)
		case protocol.ClientError, protocol.TruncationDetected:
			seeks := o.Event == protocol.TruncationDetected || protocol.Error(o.Err) == protocol.ErrOffsetOutOfRange
			if seeks && polls[o.Node] != nil {
				delete(polls[o.Node], o.Partition)
			}
		case apps.Polled:
			last := polls[o.Node]
			if last == nil {
				last = map[string]int{}
				polls[o.Node] = last
			}
			i, ok := order.index(o.Partition, o.Offset)
			if !ok {
				delete(last, o.Partition)
				continue
			}
			if prev, ok := last[o.Partition]; ok {
				switch delta := i - prev; {
				case delta < 1:
					nonmonotonic++
				case delta > 1:
					skips++
				}
			}
			last[o.Partition] = i
		}
	}
	return nonmonotonic, skips
}

// send is one message a producer handed its client, and where its acknowledgement
// placed it.
type send struct {
	msg    string
	acked  bool
	tp     string
	offset int64
}

// sendSequences gives each producer's sends in the order the application handed them
// to the client, one sequence per incarnation (a crash, restart or assignment starts a
// new one), each acknowledged send placed at the offset its acknowledgement gave.
func sendSequences(obs sim.ObservationList) map[string][][]*send {
	sends := map[string][][]*send{} // producer -> its sequences of sends, one per incarnation
	for _, o := range obs.Of(sim.Crashed, sim.Restarted, protocol.Assigned, apps.Sent, apps.Acked) {
		switch o.Event {
		case sim.Crashed, sim.Restarted, protocol.Assigned:
			if s := sends[o.Node]; len(s) > 0 {
				sends[o.Node] = append(s, nil)
			}
		case apps.Sent:
			s := sends[o.Node]
			if len(s) == 0 {
				s = [][]*send{nil}
			}
			for _, m := range o.Msgs {
				s[len(s)-1] = append(s[len(s)-1], &send{msg: m})
			}
			sends[o.Node] = s
		case apps.Acked:
			if o.Offset < 0 || len(sends[o.Node]) == 0 {
				continue
			}
			cur := sends[o.Node][len(sends[o.Node])-1]
			for i, m := range o.Msgs {
				for _, s := range cur {
					if s.msg == m && !s.acked {
						s.acked, s.tp, s.offset = true, o.Partition, o.Offset+int64(i)
						break
					}
				}
			}
		}
	}
	return sends
}

// sendAnomalies counts, in each sequence of sends, an acknowledged send that landed at
// or before the one sent before it to the same partition.
func sendAnomalies(sends map[string][][]*send, order partitionOrder) int {
	n := 0
	for _, seqs := range sends {
		for _, seq := range seqs {
			last := map[string]int{}
			for _, s := range seq {
				if !s.acked {
					continue
				}
				i, ok := order.index(s.tp, s.offset)
				if !ok {
					delete(last, s.tp)
					continue
				}
				if prev, ok := last[s.tp]; ok && i-prev < 1 {
					n++
				}
				last[s.tp] = i
			}
		}
	}
	return n
}
