package txn

import (
	"testing"

	"deliverylab/core/kafka/protocol"
	"deliverylab/core/sim"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// clientNode keeps every answer it gets.
type clientNode struct{ got []sim.Payload }

func (n *clientNode) Name() string                      { return "client" }
func (n *clientNode) Start(*sim.Env)                    {}
func (n *clientNode) Crash()                            {}
func (n *clientNode) Clone() sim.Node                   { c := *n; return &c }
func (n *clientNode) Fire(*sim.Env, sim.Payload)        {}
func (n *clientNode) Receive(_ *sim.Env, m sim.Message) { n.got = append(n.got, m.Payload) }

// v2Coordinator is a coordinator of a cluster at transaction.version 2, with a client and
// a partition leader that writes every marker.
type v2Coordinator struct {
	t      *testing.T
	w      *sim.World
	n      *coordNode
	client *clientNode
}

func newV2Coordinator(t *testing.T) *v2Coordinator {
	w := sim.NewWorld(sim.Config{Seed: 1, LatencyMs: 5})
	c := &v2Coordinator{t: t, w: w, client: &clientNode{}, n: &coordNode{c: New(Config{LogPartitions: 50, MaxTimeoutMs: 900000,
		AbortIntervalMs: 10000, OffsetsPartitions: 50, RequestTimeoutMs: 30000, RetryBackoffMs: 100, TransactionVersion: 2}),
		h: &fakeHost{}}}
	w.Add(c.n, 0)
	w.Add(&leaderNode{}, 0)
	w.Add(c.client, 0)
	for w.NextEventMs() == 0 {
		w.Step()
	}
	return c
}

// ask hands the coordinator a request from the client, makes every log append it causes
// durable, runs the markers that follow, and returns the answer.
func (c *v2Coordinator) ask(req sim.Payload) sim.Payload {
	c.t.Helper()
	before := len(c.client.got)
	c.w.Act("coord", func(env *sim.Env) { c.n.c.Handle(env, c.n.h, sim.Message{From: "client", Payload: req}) })
	for i := 0; i < 20; i++ {
		written := len(c.n.h.appends)
		c.w.Act("coord", func(env *sim.Env) { c.n.c.AppendDone(env, c.n.h, int64(written), "") })
		for c.w.NextEventMs() >= 0 && c.w.NextEventMs() < c.w.NowMs()+50 {
			c.w.Step()
		}
		if len(c.n.h.appends) == written && len(c.client.got) > before {
			break
		}
	}
	require.Greater(c.t, len(c.client.got), before, "no answer to %s", req.(interface{ Describe() string }).Describe())
	return c.client.got[len(c.client.got)-1]
}

func (c *v2Coordinator) lastRecord() protocol.TxnLogRecord {
	return c.n.h.appends[len(c.n.h.appends)-1]
}

// Transactions version 2 at the coordinator: the partition leader's add opens the
// transaction, every EndTxn bumps the epoch (and says so), a retry of an end already made
// is answered with the epoch it made, an abort with nothing open still bumps, a commit
// after an abort is INVALID_TXN_STATE, and an add at an old epoch is fenced.
func TestTransactionsVersion2AtTheCoordinator(t *testing.T) {
	c := newV2Coordinator(t)
	tp := protocol.TP{Topic: "orders", Partition: 0}
	init := c.ask(protocol.InitProducerIdRequest{ReqID: 1, TransactionalID: "tx-1", TransactionTimeoutMs: 60000}).(protocol.InitProducerIdResponse)
	assert.Equal(t, int16(0), init.ProducerEpoch)
	assert.Equal(t, int16(2), init.TransactionVersion, "the client learns the cluster's transaction.version")

	add := c.ask(protocol.VerifyPartitionsInTxnRequest{ReqID: 2, TransactionalID: "tx-1", ProducerID: 7, ProducerEpoch: 0,
		Partitions: []protocol.TP{tp}, Add: true}).(protocol.VerifyPartitionsInTxnResponse)
	assert.Equal(t, []protocol.TPError{{TP: tp}}, add.Results)
	assert.True(t, add.Add)
	assert.Equal(t, protocol.TxnOngoing, c.lastRecord().State)

	end := func(reqID int64, epoch int16, commit bool) protocol.EndTxnResponse {
		return c.ask(protocol.EndTxnRequest{ReqID: reqID, TransactionalID: "tx-1", ProducerID: 7, ProducerEpoch: epoch,
			Commit: commit, TransactionV2: true}).(protocol.EndTxnResponse)
	}
	commit := end(3, 0, true)
	assert.Equal(t, protocol.EndTxnResponse{ReqID: 3, TransactionV2: true, ProducerID: 7, ProducerEpoch: 1}, commit)
	assert.Equal(t, protocol.TxnCompleteCommit, c.lastRecord().State)
	assert.Equal(t, int16(1), c.lastRecord().ProducerEpoch, "the markers and the completion carry the bumped epoch")

	assert.Equal(t, int16(1), end(4, 0, true).ProducerEpoch, "a retry of the commit is answered with the epoch it made")
	assert.Equal(t, protocol.ErrInvalidTxnState, end(5, 0, false).Err, "an abort after the commit it retries")

	abort := end(6, 1, false)
	assert.Equal(t, "", string(abort.Err))
	assert.Equal(t, int16(2), abort.ProducerEpoch, "an abort with nothing open bumps the epoch too")
	assert.Empty(t, c.lastRecord().Partitions)
	assert.Equal(t, protocol.ErrInvalidTxnState, end(7, 1, true).Err, "a commit of the aborted transaction")
	assert.Equal(t, protocol.ErrProducerFenced, end(8, 0, false).Err, "two epochs back")

	fenced := c.ask(protocol.VerifyPartitionsInTxnRequest{ReqID: 9, TransactionalID: "tx-1", ProducerID: 7, ProducerEpoch: 1,
		Partitions: []protocol.TP{tp}, Add: true}).(protocol.VerifyPartitionsInTxnResponse)
	assert.Equal(t, protocol.ErrProducerFenced, fenced.Results[0].Err, "a late batch of an ended transaction is not added")
}
