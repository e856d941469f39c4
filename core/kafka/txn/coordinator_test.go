package txn

import (
	"testing"

	"deliverylab/core/kafka/protocol"
	"deliverylab/core/sim"

	"github.com/stretchr/testify/assert"
)

// fakeHost is a broker that leads every partition and makes every append durable when
// the test says so.
type fakeHost struct{ appends []protocol.TxnLogRecord }

func (*fakeHost) IsLeader(protocol.TP) bool            { return true }
func (*fakeHost) Leader(protocol.TP) string            { return "leader" }
func (*fakeHost) LeaderEpoch(protocol.TP) int32        { return 0 }
func (*fakeHost) NewProducerID(*sim.Env) (int64, bool) { return 7, true }
func (h *fakeHost) AppendTxnLog(_ *sim.Env, _ int64, _ protocol.TP, records []protocol.Record, _ int64) (int64, protocol.Error) {
	h.appends = append(h.appends, records[0].Body.(protocol.TxnLogRecord))
	return int64(len(h.appends) - 1), ""
}

// coordNode runs a coordinator on a fake host; leaderNode answers every marker with err.
type coordNode struct {
	c Coordinator
	h *fakeHost
}

func (n *coordNode) Name() string                        { return "coord" }
func (n *coordNode) Start(*sim.Env)                      {}
func (n *coordNode) Crash()                              {}
func (n *coordNode) Clone() sim.Node                     { c := *n; c.c = n.c.Clone(); return &c }
func (n *coordNode) Receive(env *sim.Env, m sim.Message) { n.c.Handle(env, n.h, m) }
func (n *coordNode) Fire(env *sim.Env, t sim.Payload)    { n.c.Fire(env, n.h, t) }

type leaderNode struct{ err protocol.Error }

func (n *leaderNode) Name() string               { return "leader" }
func (n *leaderNode) Start(*sim.Env)             {}
func (n *leaderNode) Crash()                     {}
func (n *leaderNode) Clone() sim.Node            { c := *n; return &c }
func (n *leaderNode) Fire(*sim.Env, sim.Payload) {}
func (n *leaderNode) Receive(env *sim.Env, m sim.Message) {
	if req, ok := m.Payload.(protocol.WriteTxnMarkersRequest); ok {
		resp := protocol.WriteTxnMarkersResponse{ReqID: req.ReqID}
		for _, tp := range req.Markers[0].Partitions {
			resp.Results = append(resp.Results, protocol.TxnMarkerResult{ProducerID: req.Markers[0].ProducerID, TP: tp, Err: n.err})
		}
		env.Send(m.From, resp)
	}
}

// runToCommit takes tx-1 to PrepareCommit with one partition and lets the leader answer
// the marker with err; it returns the states written to the log.
func runToCommit(t *testing.T, err protocol.Error) (*coordNode, []protocol.TxnState) {
	w := sim.NewWorld(sim.Config{Seed: 1, LatencyMs: 5})
	n := &coordNode{c: New(Config{LogPartitions: 50, MaxTimeoutMs: 900000, AbortIntervalMs: 10000, OffsetsPartitions: 50,
		RequestTimeoutMs: 30000, RetryBackoffMs: 100}), h: &fakeHost{}}
	w.Add(n, 0)
	w.Add(&leaderNode{err: err}, 0)
	tp := protocol.TP{Topic: "orders", Partition: 0}
	steps := []sim.Payload{
		protocol.InitProducerIdRequest{ReqID: 1, TransactionalID: "tx-1", TransactionTimeoutMs: 60000},
		protocol.AddPartitionsToTxnRequest{ReqID: 2, TransactionalID: "tx-1", ProducerID: 7, Partitions: []protocol.TP{tp}},
		protocol.EndTxnRequest{ReqID: 3, TransactionalID: "tx-1", ProducerID: 7, Commit: true},
	}
	for w.NextEventMs() == 0 {
		w.Step() // the nodes start
	}
	for i, req := range steps {
		w.Act("coord", func(env *sim.Env) {
			n.c.Handle(env, n.h, sim.Message{From: "client", Payload: req})
			n.c.AppendDone(env, n.h, int64(i+1), "")
		})
	}
	for w.NextEventMs() >= 0 && w.NextEventMs() < 1000 {
		w.Step()
	}
	w.Act("coord", func(env *sim.Env) { n.c.AppendDone(env, n.h, 4, "") }) // the completion, if written
	assert.Equal(t, "tx-1", n.c.View()[0].ID)
	var states []protocol.TxnState
	for _, r := range n.h.appends {
		states = append(states, r.State)
	}
	return n, states
}

// A written marker completes the transaction; a partition that has seen a later epoch
// of the producer (INVALID_PRODUCER_EPOCH) makes this coordinator stop sending the
// transaction's markers without completing it (TransactionMarkerRequestCompletionHandler:
// removeMarkersForTxn), and it does not keep the run from settling.
func TestMarkerAnswers(t *testing.T) {
	n, states := runToCommit(t, "")
	assert.Equal(t, []protocol.TxnState{protocol.TxnEmpty, protocol.TxnOngoing, protocol.TxnPrepareCommit, protocol.TxnCompleteCommit}, states)
	assert.Empty(t, n.c.Unsettled())

	n, states = runToCommit(t, protocol.ErrInvalidProducerEpoch)
	assert.Equal(t, []protocol.TxnState{protocol.TxnEmpty, protocol.TxnOngoing, protocol.TxnPrepareCommit}, states)
	assert.Empty(t, n.c.Unsettled())
	assert.Empty(t, n.c.markers)
}
