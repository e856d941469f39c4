package server

import (
	"fmt"

	"deliverylab/core/kafka/protocol"
	"deliverylab/core/kafka/storage"
	"deliverylab/core/sim"
)

// producerDecision is the leader's answer to an idempotent batch the producer state
// refuses or has already (storage.Log.CheckProducer): an error appends nothing; a
// duplicate appends nothing either and is answered as a success with the offsets the
// batch first got (UnifiedLog.append sets the append info from the duplicate's
// metadata), so that acks=all waits until the high watermark covers the original. The
// client never sees DUPLICATE_SEQUENCE_NUMBER for a batch still among the last five.
func (rm *ReplicaManager) producerDecision(env *sim.Env, pd protocol.ProducePartition, part producePart, chk storage.ProducerCheck) producePart {
	b := pd.Batch
	who := fmt.Sprintf("%s pid=%d e%d seq=%d..%d", pd.TP, b.ProducerID, b.ProducerEpoch, b.BaseSequence, b.LastSequence())
	if chk.Err != "" {
		part.Err = chk.Err
		env.Note(fmt.Sprintf("refuses %s: %s", who, chk.Err))
		return part
	}
	part.BaseOffset, part.LastOffset = chk.Original.FirstOffset, chk.Original.LastOffset
	part.Duplicate = true
	env.Note(fmt.Sprintf("duplicate %s: answered with offset %d, not appended", who, part.BaseOffset))
	return part
}
