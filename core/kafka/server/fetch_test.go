package server

import (
	"fmt"
	"testing"

	"deliverylab/core/kafka/protocol"
	"deliverylab/core/sim"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fetcher is a bare consumer: it sends one fetch at an offset and records the answer.
type fetcher struct {
	name    string
	to      string
	req     protocol.FetchRequest
	answers []protocol.FetchResponse
}

func (f *fetcher) Name() string       { return f.name }
func (f *fetcher) Start(env *sim.Env) { env.Send(f.to, f.req) }
func (f *fetcher) Receive(_ *sim.Env, m sim.Message) {
	if r, ok := m.Payload.(protocol.FetchResponse); ok {
		f.answers = append(f.answers, r)
	}
}
func (f *fetcher) Fire(*sim.Env, sim.Payload) {}
func (f *fetcher) Crash()                     {}
func (f *fetcher) Clone() sim.Node            { n := *f; return &n }

// A consumer fetch between the high watermark and the log end reads nothing yet; only an
// offset past the log end is out of range (LocalLog.read). A new leader whose HW lags its
// log end must not send a consumer back to auto.offset.reset.
func TestConsumerFetchBetweenHWAndLogEndIsEmptyNotOutOfRange(t *testing.T) {
	tp := protocol.TP{Topic: "t"}
	w, leader := twoBrokers(DefaultConfig(), protocol.PartitionState{TP: tp, Leader: "broker-1"})
	w.Schedule(1, sim.Fault{Kind: sim.FaultCut, From: "broker-1", To: "broker-2"}) // the HW cannot move
	batch := protocol.NewBatch([]protocol.Record{protocol.DataRecord("c#1", "", ""), protocol.DataRecord("c#2", "", "")})
	w.Add(&client{to: "broker-1", req: protocol.ProduceRequest{ReqID: 1, Acks: protocol.AcksLeader, TimeoutMs: 30000,
		Partitions: []protocol.ProducePartition{{TP: tp, Batch: batch}}}}, 20)
	w.RunUntil(100, nil)
	p := leader.replicas.partitions[tp]
	require.Equal(t, int64(2), p.LEO())
	require.Equal(t, int64(0), p.HW, "broker-2 is cut off, so the HW stays at 0")

	for _, c := range []struct {
		offset int64
		err    protocol.Error
	}{{1, ""}, {2, ""}, {3, protocol.ErrOffsetOutOfRange}} {
		f := &fetcher{name: fmt.Sprintf("fetcher-%d", c.offset), to: "broker-1", req: protocol.FetchRequest{ReqID: 7, TP: tp, FetchOffset: c.offset, LastFetchedEpoch: -1}}
		w.Add(f, w.NowMs())
		w.RunUntil(w.NowMs()+50, nil)
		require.Len(t, f.answers, 1, "offset %d", c.offset)
		assert.Equal(t, c.err, f.answers[0].Err, "offset %d", c.offset)
		assert.Empty(t, f.answers[0].Batches, "offset %d: nothing at or above the HW is readable", c.offset)
	}
}
