package clients

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"deliverylab/core/kafka/protocol"
	"deliverylab/core/sim"
)

// mappingBroker is a transaction coordinator that has lost the producer's id (its
// transactional id expired, issue 19 7a): it answers the n-th request of each kind named
// in errs with INVALID_PRODUCER_ID_MAPPING, and an InitProducerId with the producer's id
// (the abort's bump) with a new producer id at epoch 0
// (TransactionCoordinator.handleInitProducerId for an id it does not know).
type mappingBroker struct {
	errs  map[string]int // the kind of request and which of them (1-based) fails
	seen  map[string]int
	asked []string
}

func (b *mappingBroker) Name() string   { return "b" }
func (b *mappingBroker) Start(*sim.Env) {}
func (b *mappingBroker) Crash()         {}
func (b *mappingBroker) Clone() sim.Node {
	c := *b
	c.asked, c.errs, c.seen = slices.Clone(b.asked), maps.Clone(b.errs), maps.Clone(b.seen)
	return &c
}
func (*mappingBroker) Fire(*sim.Env, sim.Payload) {}
func (b *mappingBroker) fail(kind string) protocol.Error {
	b.seen[kind]++
	if b.errs[kind] == b.seen[kind] {
		return protocol.ErrInvalidProducerIDMapping
	}
	return ""
}
func (b *mappingBroker) Receive(env *sim.Env, m sim.Message) {
	switch r := m.Payload.(type) {
	case protocol.FindCoordinatorRequest:
		env.Send(m.From, protocol.FindCoordinatorResponse{Coordinator: "b"})
	case protocol.InitProducerIdRequest:
		resp := protocol.InitProducerIdResponse{ReqID: r.ReqID, ProducerID: 1}
		if r.Bump {
			b.asked = append(b.asked, fmt.Sprintf("InitProducerId pid=%d e%d", r.ProducerID, r.ProducerEpoch))
			resp.ProducerID = 2
		}
		env.Send(m.From, resp)
	case protocol.AddOffsetsToTxnRequest:
		b.asked = append(b.asked, "AddOffsetsToTxn")
		env.Send(m.From, protocol.AddOffsetsToTxnResponse{ReqID: r.ReqID, Err: b.fail("AddOffsetsToTxn")})
	case protocol.TxnOffsetCommitRequest:
		b.asked = append(b.asked, "TxnOffsetCommit")
		env.Send(m.From, protocol.TxnOffsetCommitResponse{ReqID: r.ReqID, Err: b.fail("TxnOffsetCommit")})
	case protocol.EndTxnRequest:
		b.asked = append(b.asked, r.Describe())
		env.Send(m.From, protocol.EndTxnResponse{ReqID: r.ReqID, Err: b.fail("EndTxn")})
	}
}

func mappingWorld(t *testing.T, errs map[string]int) (*sim.World, *mappingBroker, *producerNode) {
	t.Helper()
	cfg := DefaultProducerConfig()
	cfg.EnableIdempotence, cfg.TransactionalID, cfg.RetryBackoffMs = true, "tx-1", 100
	w := sim.NewWorld(sim.Config{Seed: 1, LatencyMs: 5})
	b := &mappingBroker{errs: errs, seen: map[string]int{}}
	p := &producerNode{client: NewProducer(cfg, []string{"b"}, []string{"orders"})}
	w.Add(b, 0)
	w.Add(p, 0)
	w.RunUntil(10, nil)
	call(t, w, p, p.client.InitTransactions)
	w.RunUntil(1000, nil)
	if err := p.client.BeginTransaction(); err != nil {
		t.Fatal(err)
	}
	return w, b, p
}

func call(t *testing.T, w *sim.World, p *producerNode, f func(*sim.Env) ([]Completion, error)) {
	t.Helper()
	w.Act("p1", func(env *sim.Env) {
		done, err := f(env)
		if err != nil {
			t.Fatal(err)
		}
		p.note(done)
	})
}

func (p *producerNode) offsets(env *sim.Env) ([]Completion, error) {
	return p.client.SendOffsetsToTransaction(env, []protocol.TPOffset{{TP: protocol.TP{Topic: "orders"}, Offset: 4}},
		GroupMetadata{Group: "g", Member: "c1-1", Generation: 3}, []string{"p0#1"})
}

func check(t *testing.T, b *mappingBroker, p *producerNode, asked, calls []string) {
	t.Helper()
	if !slices.Equal(b.asked, asked) {
		t.Errorf("asked\n%s\nwant\n%s", strings.Join(b.asked, "\n"), strings.Join(asked, "\n"))
	}
	if !slices.Equal(p.calls, calls) {
		t.Errorf("calls %v, want %v", p.calls, calls)
	}
}

// AddOffsetsToTxn answered INVALID_PRODUCER_ID_MAPPING while commitTransaction waits for
// it: sendOffsetsToTransaction fails with it, and so does the commit, without an EndTxn
// (the transaction is ABORTABLE_ERROR: nextRequest's maybeTerminateRequestWithError fails
// the queued EndTxn). The abort sends no EndTxn either, nothing having been added
// (transactionStarted is false), but bumps: InitProducerId with the producer's id and
// epoch, answered with a new producer id.
func TestInvalidProducerIDMappingWhileCommittingFailsTheCommit(t *testing.T) {
	w, b, p := mappingWorld(t, map[string]int{"AddOffsetsToTxn": 1})
	call(t, w, p, p.offsets)
	call(t, w, p, p.client.CommitTransaction)
	w.RunUntil(2000, nil)
	check(t, b, p, []string{"AddOffsetsToTxn"},
		[]string{"initialized", "failed INVALID_PRODUCER_ID_MAPPING", "failed INVALID_PRODUCER_ID_MAPPING"})
	if s := p.client.TxnState(); s != TxnAbortableError {
		t.Fatalf("state %s", s)
	}
	call(t, w, p, p.client.AbortTransaction)
	w.RunUntil(3000, nil)
	check(t, b, p, []string{"AddOffsetsToTxn", "InitProducerId pid=1 e0"},
		[]string{"initialized", "failed INVALID_PRODUCER_ID_MAPPING", "failed INVALID_PRODUCER_ID_MAPPING", "aborted"})
	if id := p.client.Identity(); !strings.HasPrefix(id, "pid 2 e0") {
		t.Fatalf("identity %q", id)
	}
}

// The abort's EndTxn answered INVALID_PRODUCER_ID_MAPPING when the abort bumps anyway
// (the second sendOffsetsToTransaction's AddOffsetsToTxn failed with it, after the first
// had put the group's partition in the transaction: epochBumpRequired, and
// transactionStarted): transitionToAbortableError does nothing while
// ABORTING_TRANSACTION, and the InitProducerId queued behind the EndTxn
// (Priority.EPOCH_BUMP) goes out; its answer ends the abort.
func TestInvalidProducerIDMappingOnTheAbortsEndTxnGoesOnToTheBump(t *testing.T) {
	w, b, p := mappingWorld(t, map[string]int{"AddOffsetsToTxn": 2, "EndTxn": 1})
	call(t, w, p, p.offsets)
	w.RunUntil(2000, nil)
	call(t, w, p, p.offsets)
	w.RunUntil(3000, nil)
	call(t, w, p, p.client.AbortTransaction)
	w.RunUntil(4000, nil)
	check(t, b, p, []string{"AddOffsetsToTxn", "TxnOffsetCommit", "AddOffsetsToTxn", "EndTxn req=7 tx-1 pid=1 e0 ABORT",
		"InitProducerId pid=1 e0"},
		[]string{"initialized", "offsets sent", "failed INVALID_PRODUCER_ID_MAPPING", "aborted"})
	if s := p.client.TxnState(); s != TxnReady {
		t.Fatalf("state %s", s)
	}
}

// TxnOffsetCommit answered INVALID_PRODUCER_ID_MAPPING is fatal: it is none of the errors
// TxnOffsetCommitHandler.handleResponse handles ("Unexpected error in
// TxnOffsetCommitResponse").
func TestInvalidProducerIDMappingOnTxnOffsetCommitIsFatal(t *testing.T) {
	w, _, p := mappingWorld(t, map[string]int{"TxnOffsetCommit": 1})
	call(t, w, p, p.offsets)
	w.RunUntil(2000, nil)
	if s := p.client.TxnState(); s != TxnFatalError {
		t.Fatalf("state %s, calls %v", s, p.calls)
	}
}
