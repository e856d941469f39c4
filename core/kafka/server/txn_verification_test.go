package server

import (
	"testing"

	"deliverylab/core/kafka/protocol"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// KIP-890: with transaction.partition.verification.enable (3.9's default) a transaction's
// first batch to a partition is appended only once its coordinator verifies it; here no
// broker leads the id's __transaction_state partition, so the leader cannot ask
// (COORDINATOR_NOT_AVAILABLE) and answers NOT_ENOUGH_REPLICAS, which the producer
// retries, appending nothing. With the setting off the batch is appended at once and
// opens a transaction no coordinator knows of.
func TestTransactionVerificationSetting(t *testing.T) {
	for _, on := range []bool{true, false} {
		cfg := DefaultConfig()
		cfg.TransactionPartitionVerificationEnable = on
		answer, p := txnFirstProduce(t, cfg, false, nil)
		if on {
			assert.Equal(t, protocol.ErrNotEnoughReplicas, answer.Err)
			assert.Equal(t, int64(0), p.LEO(), "not appended")
			assert.False(t, p.ongoingTxn(7))
		} else {
			assert.Empty(t, answer.Err)
			assert.Equal(t, int64(1), p.LEO())
			assert.True(t, p.ongoingTxn(7), "an open transaction nobody coordinates")
		}
	}
}

// Transactions version 2 (produce v12+): the leader adds the partition at the coordinator
// even with transaction.partition.verification.enable off — here no broker leads the
// id's __transaction_state partition, so nothing is appended and the producer hears
// NOT_ENOUGH_REPLICAS to retry — and a batch at an epoch older than the partition's is
// refused INVALID_PRODUCER_EPOCH without asking anyone (a late batch of an ended
// transaction: its marker bumped the epoch).
func TestTransactionsVersion2AddEvenWithVerificationOff(t *testing.T) {
	for _, older := range []bool{false, true} {
		cfg := DefaultConfigFor(protocol.Kafka4)
		cfg.TransactionPartitionVerificationEnable = false
		var before func(*Partition)
		if older {
			// the producer's previous transaction ended here with a marker at epoch 1
			before = func(p *Partition) {
				p.Log.AppendAsLeader(protocol.RecordBatch{ProducerID: 7, ProducerEpoch: 1, BaseSequence: protocol.NoSequence,
					Transactional: true, Control: true, Records: []protocol.Record{{Body: protocol.ControlMarker{Type: protocol.ControlCommit}}}}, 0)
			}
		}
		answer, p := txnFirstProduce(t, cfg, true, before)
		if older {
			assert.Equal(t, protocol.ErrInvalidProducerEpoch, answer.Err)
			assert.Equal(t, int64(1), p.LEO(), "only the marker")
		} else {
			assert.Equal(t, protocol.ErrNotEnoughReplicas, answer.Err, "asked, though verification is off")
			assert.Equal(t, int64(0), p.LEO(), "not appended")
		}
		assert.False(t, p.ongoingTxn(7))
	}
}

// txnFirstProduce sends producer 7's first transactional batch (epoch 0, sequence 0), of
// transactions version 2 or not, to the leader of a partition on two brokers of cfg
// (after before, if any, has changed the leader's replica), and returns the answer and
// that replica.
func txnFirstProduce(t *testing.T, cfg Config, v2 bool, before func(*Partition)) (protocol.ProducePartitionResponse, *Partition) {
	tp := protocol.TP{Topic: "t"}
	w, leader := twoBrokers(cfg, protocol.PartitionState{TP: tp, Leader: "broker-1"})
	p := leader.replicas.partitions[tp]
	if before != nil {
		before(p)
	}
	b := protocol.NewBatch([]protocol.Record{protocol.DataRecord("c#1", "", "")})
	b.ProducerID, b.ProducerEpoch, b.BaseSequence, b.Transactional = 7, 0, 0, true
	c := &client{to: "broker-1", req: protocol.ProduceRequest{ReqID: 1, TransactionalID: "tx", TransactionV2: v2,
		Acks: protocol.AcksAll, TimeoutMs: 30000, Partitions: []protocol.ProducePartition{{TP: tp, Batch: b}}}}
	w.Add(c, 20)
	w.RunUntil(200, nil)
	require.Len(t, c.answers, 1)
	return c.answers[0], leader.replicas.partitions[tp]
}
