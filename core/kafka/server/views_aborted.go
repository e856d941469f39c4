package server

import (
	"deliverylab/core/kafka/protocol"
	"deliverylab/core/sim"
)

// AbortedRecords lists the records of aborted transactions ("orders-0@3") that carry a
// message, in the topics' partitions this broker leads — or holds, when the partition
// has no live leader: what the checker's aborted-read anomaly compares polls with. A
// record is aborted when an ABORT marker of its producer id follows it (the log's
// aborted-transaction index, which a read_committed fetch answers with).
func (b *Broker) AbortedRecords(v sim.View) []sim.RecordAt {
	var out []sim.RecordAt
	for _, tp := range b.replicas.TPs() {
		if protocol.IsInternalTopic(tp.Topic) {
			continue // internal topics carry no application messages
		}
		if leader, live := protocol.LiveLeader(v, tp); live && leader != b.name {
			continue
		}
		log := b.replicas.partitions[tp].Log
		if !log.HasTransactions() {
			continue
		}
		for _, batch := range log.All() {
			if !batch.Transactional || batch.Control {
				continue
			}
			for _, rec := range batch.Records {
				if rec.Msg() != "" && log.InAbortedTxn(batch.ProducerID, rec.Offset) {
					out = append(out, sim.RecordAt{Partition: tp.String(), Offset: rec.Offset})
				}
			}
		}
	}
	return out
}
