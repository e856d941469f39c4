package clients

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"deliverylab/core/kafka/protocol"
	"deliverylab/core/sim"
)

// fakeBroker is every coordinator at once: it answers the transactional producer's
// requests at once, TxnOffsetCommit with the errors it is given in turn (then NONE), and
// writes down what it was asked.
type fakeBroker struct {
	name      string
	offsetErr []protocol.Error
	asked     []string
}

func (b *fakeBroker) Name() string             { return b.name }
func (b *fakeBroker) Start(*sim.Env)           {}
func (b *fakeBroker) Crash()                   {}
func (b *fakeBroker) Clone() sim.Node          { c := *b; c.asked = slices.Clone(b.asked); return &c }
func (*fakeBroker) Fire(*sim.Env, sim.Payload) {}
func (b *fakeBroker) Receive(env *sim.Env, m sim.Message) {
	switch r := m.Payload.(type) {
	case protocol.FindCoordinatorRequest:
		b.asked = append(b.asked, r.Describe())
		env.Send(m.From, protocol.FindCoordinatorResponse{Coordinator: b.name})
	case protocol.InitProducerIdRequest:
		env.Send(m.From, protocol.InitProducerIdResponse{ReqID: r.ReqID, ProducerID: 1})
	case protocol.AddOffsetsToTxnRequest:
		b.asked = append(b.asked, fmt.Sprintf("AddOffsetsToTxn req=%d", r.ReqID))
		env.Send(m.From, protocol.AddOffsetsToTxnResponse{ReqID: r.ReqID})
	case protocol.TxnOffsetCommitRequest:
		b.asked = append(b.asked, fmt.Sprintf("TxnOffsetCommit req=%d gen=%d member=%s %s", r.ReqID, r.Generation, r.Member,
			protocol.OffsetsText(r.Offsets)))
		var err protocol.Error
		if len(b.offsetErr) > 0 {
			err, b.offsetErr = b.offsetErr[0], b.offsetErr[1:]
		}
		env.Send(m.From, protocol.TxnOffsetCommitResponse{ReqID: r.ReqID, Err: err})
	case protocol.EndTxnRequest:
		b.asked = append(b.asked, r.Describe())
		env.Send(m.From, protocol.EndTxnResponse{ReqID: r.ReqID})
	}
}

// producerNode runs a producer client and writes down its transaction API outcomes.
type producerNode struct {
	client *Producer
	calls  []string
}

func (p *producerNode) Name() string                        { return "p1" }
func (p *producerNode) Start(env *sim.Env)                  { p.client.Start(env) }
func (p *producerNode) Crash()                              { p.client.Reset() }
func (p *producerNode) Clone() sim.Node                     { c := *p; c.client = p.client.Clone(); return &c }
func (p *producerNode) Receive(env *sim.Env, m sim.Message) { p.note(p.client.Receive(env, m)) }
func (p *producerNode) Fire(env *sim.Env, t sim.Payload)    { p.note(p.client.Fire(env, t)) }
func (p *producerNode) note(done []Completion) {
	for _, c := range done {
		if c.Txn != TxnNone {
			p.calls = append(p.calls, strings.TrimSpace(c.Txn.String()+" "+c.Err.String()))
		}
	}
}

// offsetsWorld is a transactional producer, initialized, in a transaction, and the fake
// broker with the TxnOffsetCommit errors given.
func offsetsWorld(t *testing.T, errs ...protocol.Error) (*sim.World, *fakeBroker, *producerNode) {
	t.Helper()
	cfg := DefaultProducerConfig()
	cfg.EnableIdempotence, cfg.TransactionalID, cfg.RetryBackoffMs = true, "tx-1", 100
	w := sim.NewWorld(sim.Config{Seed: 1, LatencyMs: 5})
	b := &fakeBroker{name: "b", offsetErr: errs}
	p := &producerNode{client: NewProducer(cfg, []string{"b"}, []string{"orders"})}
	w.Add(b, 0)
	w.Add(p, 0)
	w.RunUntil(10, nil)
	w.Act("p1", func(env *sim.Env) {
		done, err := p.client.InitTransactions(env)
		if err != nil {
			t.Fatal(err)
		}
		p.note(done)
	})
	w.RunUntil(1000, nil)
	if err := p.client.BeginTransaction(); err != nil {
		t.Fatal(err)
	}
	b.asked = nil
	return w, b, p
}

func sendOffsets(t *testing.T, w *sim.World, p *producerNode) {
	t.Helper()
	w.Act("p1", func(env *sim.Env) {
		done, err := p.client.SendOffsetsToTransaction(env, []protocol.TPOffset{{TP: protocol.TP{Topic: "orders"}, Offset: 4}},
			GroupMetadata{Group: "g", Member: "c1-1", Generation: 3}, []string{"p0#1"})
		if err != nil {
			t.Fatal(err)
		}
		p.note(done)
	})
}

func TestSendOffsetsRetriesAndLooksUpTheGroupCoordinator(t *testing.T) {
	// COORDINATOR_LOAD_IN_PROGRESS: asked again, same coordinator; NOT_COORDINATOR: the
	// group coordinator is looked up again (TxnOffsetCommitHandler.handleResponse).
	w, b, p := offsetsWorld(t, protocol.ErrCoordinatorLoadInProgress, protocol.ErrNotCoordinator)
	sendOffsets(t, w, p)
	w.Act("p1", func(env *sim.Env) {
		done, err := p.client.CommitTransaction(env)
		if err != nil {
			t.Fatal(err)
		}
		p.note(done)
	})
	w.RunUntil(3000, nil)
	want := []string{
		"AddOffsetsToTxn req=3",
		"FindCoordinator g",
		"TxnOffsetCommit req=5 gen=3 member=c1-1 orders-0=4",
		"TxnOffsetCommit req=6 gen=3 member=c1-1 orders-0=4",
		"FindCoordinator g",
		"TxnOffsetCommit req=8 gen=3 member=c1-1 orders-0=4",
		"EndTxn req=9 tx-1 pid=1 e0 COMMIT",
	}
	if !slices.Equal(b.asked, want) {
		t.Fatalf("asked\n%s\nwant\n%s", strings.Join(b.asked, "\n"), strings.Join(want, "\n"))
	}
	if !slices.Equal(p.calls, []string{"initialized", "offsets sent", "committed"}) {
		t.Fatalf("calls %v", p.calls)
	}
}

func TestSendOffsetsCommitFailedIsAbortable(t *testing.T) {
	// UNKNOWN_MEMBER_ID (a zombie's group metadata): the call fails, the transaction can
	// only be aborted (CommitFailedException, abortableError).
	w, b, p := offsetsWorld(t, protocol.ErrUnknownMemberID)
	sendOffsets(t, w, p)
	w.RunUntil(2000, nil)
	if !slices.Equal(p.calls, []string{"initialized", "failed UNKNOWN_MEMBER_ID"}) || p.client.TxnState() != TxnAbortableError {
		t.Fatalf("calls %v, state %s", p.calls, p.client.TxnState())
	}
	w.Act("p1", func(env *sim.Env) {
		if _, err := p.client.CommitTransaction(env); err == nil {
			t.Fatal("commit after a failed sendOffsetsToTransaction was accepted")
		}
		done, err := p.client.AbortTransaction(env)
		if err != nil {
			t.Fatal(err)
		}
		p.note(done)
	})
	w.RunUntil(3000, nil)
	if last := b.asked[len(b.asked)-1]; !strings.HasSuffix(last, "ABORT") {
		t.Fatalf("last request %q, want EndTxn ABORT", last)
	}
	if p.calls[len(p.calls)-1] != "aborted" {
		t.Fatalf("calls %v", p.calls)
	}
}

func TestSendOffsetsFencedIsFatal(t *testing.T) {
	// INVALID_PRODUCER_EPOCH from the group coordinator is PRODUCER_FENCED, fatal.
	w, _, p := offsetsWorld(t, protocol.ErrInvalidProducerEpoch)
	sendOffsets(t, w, p)
	w.RunUntil(2000, nil)
	if !slices.Equal(p.calls, []string{"initialized", "failed PRODUCER_FENCED"}) || p.client.TxnState() != TxnFatalError {
		t.Fatalf("calls %v, state %s", p.calls, p.client.TxnState())
	}
}

func TestSendOffsetsOnlyInATransaction(t *testing.T) {
	w, b, p := offsetsWorld(t)
	sendOffsets(t, w, p)
	w.Act("p1", func(env *sim.Env) {
		// a second call while the first is under way is refused
		if _, err := p.client.SendOffsetsToTransaction(env, []protocol.TPOffset{{}}, GroupMetadata{Group: "g"}, nil); err == nil {
			t.Error("a second sendOffsetsToTransaction under way was accepted")
		}
	})
	w.RunUntil(2000, nil)
	w.Act("p1", func(env *sim.Env) {
		done, _ := p.client.CommitTransaction(env)
		p.note(done)
	})
	w.RunUntil(3000, nil)
	w.Act("p1", func(env *sim.Env) {
		// READY: no transaction to send offsets to
		if _, err := p.client.SendOffsetsToTransaction(env, []protocol.TPOffset{{}}, GroupMetadata{Group: "g"}, nil); err == nil {
			t.Error("sendOffsetsToTransaction outside a transaction was accepted")
		}
	})
	if n := len(b.asked); n != 4 { // AddOffsetsToTxn, FindCoordinator g, TxnOffsetCommit, EndTxn
		t.Fatalf("asked %v", b.asked)
	}
}
