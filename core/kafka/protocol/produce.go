package protocol

import (
	"fmt"
	"slices"
	"strings"
)

// Acks is how many replicas must have a batch before the leader answers.
type Acks int8

// The acks settings, with Kafka's numbers.
const (
	AcksNone   Acks = 0  // no answer at all
	AcksLeader Acks = 1  // the leader's own append
	AcksAll    Acks = -1 // the high watermark covers the batch
)

// AcksChoices are acks' choices as the playground offers them (Kafka also takes -1 for all).
var AcksChoices = []Acks{AcksNone, AcksLeader, AcksAll}

func (a Acks) String() string {
	if a == AcksAll {
		return "all"
	}
	return fmt.Sprint(int8(a))
}

// ProduceRequest carries batches for one or more partitions this broker leads, as
// Kafka's Produce request carries its topic data.
type ProduceRequest struct {
	request
	ReqID int64
	// TransactionalID is the producer's transactional.id, empty for any other producer
	// (ProduceRequest's TransactionalId, v3+): a leader verifying a transaction's first
	// append (KIP-890) asks that id's coordinator.
	TransactionalID string
	// TransactionV2 is a transactional producer of transactions version 2 (produce v12+,
	// KIP-890 part 2): the leader adds the partition to the transaction itself, whatever
	// transaction.partition.verification.enable says (ProduceRequest.isTransactionV2Requested).
	TransactionV2 bool
	Acks          Acks
	TimeoutMs     int64
	Partitions    []ProducePartition
}

// ProducePartition is one partition's batch in a produce request.
type ProducePartition struct {
	TP    TP
	Batch RecordBatch
}

// Batches lists the request's batches in order.
func (m ProduceRequest) Batches() []RecordBatch {
	out := make([]RecordBatch, len(m.Partitions))
	for i, p := range m.Partitions {
		out[i] = p.Batch
	}
	return out
}

func (ProduceRequest) Kind() string { return "Produce" }
func (m ProduceRequest) Describe() string {
	parts := make([]string, len(m.Partitions))
	for i, p := range m.Partitions {
		parts[i] = fmt.Sprintf("%s [%s]%s", p.TP, rangeText([]RecordBatch{p.Batch}), producerText(p.Batch))
	}
	return fmt.Sprintf("Produce req=%d %s acks=%s", m.ReqID, strings.Join(parts, " "), m.Acks)
}
func (m ProduceRequest) Label() string { return idsLabel(m.Batches()) }

// ProduceResponse answers a produce request, partition by partition.
type ProduceResponse struct {
	ReqID      int64
	Partitions []ProducePartitionResponse
}

// ProducePartitionResponse is one partition's answer: an error, or the offset the batch
// got.
type ProducePartitionResponse struct {
	TP         TP
	Err        Error
	BaseOffset int64 // -1 on error
	// Duplicate: the leader had the batch already (an idempotent retry) and answers with
	// its original offset. Kafka's response does not say so and the client does not look:
	// it is here for the canvas, which draws the answer as a duplicate bouncing back.
	Duplicate bool
}

func (r ProducePartitionResponse) describe() string {
	if r.Err != "" {
		return r.TP.String() + " " + r.Err.String()
	}
	return fmt.Sprintf("%s offset=%d", r.TP, r.BaseOffset)
}

func (ProduceResponse) Kind() string { return "ProduceResponse" }
func (m ProduceResponse) Describe() string {
	parts := make([]string, len(m.Partitions))
	for i, p := range m.Partitions {
		parts[i] = p.describe()
	}
	return fmt.Sprintf("ProduceResponse req=%d %s", m.ReqID, strings.Join(parts, " "))
}

// Bounced implements show.Bouncer: a duplicate the leader answered without appending.
func (m ProduceResponse) Bounced() bool {
	return slices.ContainsFunc(m.Partitions, func(p ProducePartitionResponse) bool { return p.Duplicate })
}

func (m ProduceResponse) Label() string {
	for _, p := range m.Partitions {
		if p.Err != "" {
			return p.Err.String()
		}
	}
	if len(m.Partitions) == 0 {
		return "ack"
	}
	if m.Partitions[0].Duplicate {
		return fmt.Sprintf("dup @%d", m.Partitions[0].BaseOffset)
	}
	return fmt.Sprintf("ack @%d", m.Partitions[0].BaseOffset)
}
