package apps

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"deliverylab/core/kafka"
	"deliverylab/core/kafka/clients"
	"deliverylab/core/kafka/server"
	"deliverylab/core/sim"
	"deliverylab/core/sinks"
)

// Which commit policy goes with which enable.auto.commit (R18, R19): the consumer's
// auto-commit by default, else a commit after processing; auto needs auto-commit on,
// every other policy needs it off.
func TestCommitPolicyGoesWithEnableAutoCommit(t *testing.T) {
	assert.Equal(t, CommitAuto, DefaultCommitPolicy(true))
	assert.Equal(t, CommitAfterProcessing, DefaultCommitPolicy(false))
	assert.NoError(t, CommitAuto.Check(true))
	assert.EqualError(t, CommitAuto.Check(false), "auto requires enable.auto.commit: true")
	for _, c := range []CommitPolicy{CommitBeforeProcessing, CommitAfterProcessing, CommitNone, CommitWithResults} {
		assert.NoError(t, c.Check(false), c)
		assert.EqualError(t, c.Check(true), string(c)+" requires enable.auto.commit: false (Kafka's default is true)")
	}
	assert.EqualError(t, CommitPolicy("sometimes").Check(false),
		`expected auto, before-processing, after-processing, with-results or none, got "sometimes"`)
}

func TestTemplates(t *testing.T) {
	assert.Equal(t, "k7", Expand("k{n}", 7))
	assert.Equal(t, "user-1/7", Expand("user-{n%3}/{n}", 7))
	assert.Equal(t, "{m}", Expand("{m}", 7), "an unknown placeholder stays")
	assert.NoError(t, CheckTemplate("k{n%4}"))
	assert.EqualError(t, CheckTemplate("k{m}"), `unknown placeholder {m} in "k{m}"; expected {n} or {n%K}`)
	assert.EqualError(t, CheckTemplate("k{n"), `unclosed { in "k{n"`)
	assert.Equal(t, "p1#3", MessageID("p1", 3))
}

// producing is a world with the cluster's controller and brokers, and the producer p
// sending three messages keyed k{n} with the value template to orders, 10 ms apart.
func producing(cluster kafka.Cluster, value string) (*sim.World, []string) {
	brokers := cluster.BrokerNames()
	w := sim.NewWorld(sim.Config{Seed: 1, LatencyMs: 1})
	w.Add(cluster.NewController(), 0)
	for _, b := range cluster.NewBrokers() {
		w.Add(b, 0)
	}
	work := Workload{Topic: "orders", Count: 3, IntervalMs: 10, Key: "k{n}", Value: value}
	w.Add(NewProducer("p", work, Continue, false, clients.NewProducer(clients.DefaultProducerConfig(), brokers, []string{"orders"})), 0)
	return w, brokers
}

// pipeline is one broker, the topic orders (one partition), the producer p sending
// three keyed messages 10 ms apart, and the consumer application c writing what it
// processes, 1000 ms a record, to the table db.
func pipeline(t *testing.T, commit CommitPolicy) *sim.World {
	t.Helper()
	cluster := kafka.Cluster{Brokers: 1, Config: server.DefaultConfig(), Topics: []kafka.Topic{{Name: "orders", Partitions: 1, RF: 1}},
		Groups: []string{"g"}}
	w, brokers := producing(cluster, "v{n}")
	cfg := clients.DefaultConsumerConfig()
	cfg.EnableAutoCommit = commit == CommitAuto
	cfg.AutoOffsetReset = clients.ResetEarliest
	cfg.SessionTimeoutMs = 6000
	require.NoError(t, commit.Check(cfg.EnableAutoCommit))
	w.Add(NewConsumer("c", ConsumerSpec{Commit: commit, ProcessingMs: 1000, Sink: "db"}, clients.NewConsumer(cfg, "g", "c", brokers, []string{"orders"})), 0)
	w.Add(sinks.NewTable("db"), 0)
	return w
}

// at lists the messages of every observation of an event, in order.
func at(w *sim.World, e sim.Event) []string {
	var out []string
	for _, o := range w.Observations().All() {
		if o.Event == e {
			out = append(out, o.Msgs...)
		}
	}
	return out
}

func rows(t *testing.T, w *sim.World) []sinks.Row {
	n, ok := w.Node("db")
	require.True(t, ok)
	return n.(*sinks.Table).Rows
}

// The producer hands its messages to the client one interval apart, each with the key
// and value its templates give; the consumer processes each and writes it to its sink.
func TestProducerPacesItsSendsAndKeysThem(t *testing.T) {
	w := pipeline(t, CommitAfterProcessing)
	w.RunUntil(20000, nil)
	var sentAt []int64
	for _, o := range w.Observations().All() {
		if o.Event == Sent {
			sentAt = append(sentAt, o.AtMs)
		}
	}
	require.Len(t, sentAt, 3)
	assert.Equal(t, []int64{sentAt[0], sentAt[0] + 10, sentAt[0] + 20}, sentAt)
	assert.Equal(t, []string{"p#1", "p#2", "p#3"}, at(w, Sent))
	assert.Equal(t, []string{"p#1", "p#2", "p#3"}, at(w, Acked))
	assert.Equal(t, []string{"p#1", "p#2", "p#3"}, at(w, Processed))
	assert.Equal(t, []sinks.Row{{Msg: "p#1", Key: "k1", Value: "v1"}, {Msg: "p#2", Key: "k2", Value: "v2"}, {Msg: "p#3", Key: "k3", Value: "v3"}},
		rows(t, w))
}

// crashWhileProcessing runs the pipeline until the consumer has polled the three
// records and processed two of them, crashes it, restarts it and runs on.
func crashWhileProcessing(t *testing.T, commit CommitPolicy) *sim.World {
	t.Helper()
	w := pipeline(t, commit)
	w.RunUntil(60000, func(w *sim.World) bool { return len(at(w, Processed)) == 2 })
	require.Equal(t, []string{"p#1", "p#2", "p#3"}, at(w, Polled), "one poll returned all three")
	require.Equal(t, []string{"p#1", "p#2"}, at(w, Processed))
	w.Inject(sim.Fault{Kind: sim.FaultCrash, Node: "c"})
	w.Inject(sim.Fault{Kind: sim.FaultRestart, Node: "c"})
	w.RunUntil(w.NowMs()+60000, nil)
	return w
}

// At-most-once: a consumer that commits before processing has committed the whole
// batch, so after a crash in the middle of it the rest is never processed (R19).
func TestCommitBeforeProcessingLosesTheRestOfTheBatch(t *testing.T) {
	w := crashWhileProcessing(t, CommitBeforeProcessing)
	assert.Equal(t, []string{"p#1", "p#2", "p#3"}, at(w, Polled), "nothing polled again")
	assert.Equal(t, []string{"p#1", "p#2"}, at(w, Processed))
	assert.Len(t, rows(t, w), 2, "p#3 never reached the table")
}

// At-least-once: a consumer that commits after processing had committed nothing of
// the batch, so after the crash it processes all of it again, and the table holds the
// first two twice (R19).
func TestCommitAfterProcessingProcessesTheBatchAgain(t *testing.T) {
	w := crashWhileProcessing(t, CommitAfterProcessing)
	assert.Equal(t, []string{"p#1", "p#2", "p#3", "p#1", "p#2", "p#3"}, at(w, Polled))
	assert.Equal(t, []string{"p#1", "p#2", "p#1", "p#2", "p#3"}, at(w, Processed))
	var got []string
	for _, r := range rows(t, w) {
		got = append(got, r.Msg)
	}
	assert.Equal(t, []string{"p#1", "p#2", "p#1", "p#2", "p#3"}, got)
}

// Read-process-write: a Streams application writes one output record to its output
// topic for each record it reads, with the input's identity, in order.
func TestStreamsWritesAnOutputForEachInput(t *testing.T) {
	cluster := kafka.Cluster{Brokers: 1, Config: server.DefaultConfig(),
		Topics: []kafka.Topic{{Name: "orders", Partitions: 1, RF: 1}, {Name: "totals", Partitions: 1, RF: 1}}, Groups: []string{"s"}}
	w, brokers := producing(cluster, "{n}")
	cfg := clients.DefaultConsumerConfig()
	cfg.EnableAutoCommit, cfg.AutoOffsetReset, cfg.SessionTimeoutMs = false, clients.ResetEarliest, 6000
	newProducer := func(string) *clients.Producer {
		return clients.NewProducer(clients.DefaultProducerConfig(), brokers, []string{"totals"})
	}
	spec := StreamsSpec{From: "orders", To: "totals", Guarantee: AtLeastOnce, CommitIntervalMs: 1000}
	w.Add(NewStreams("s", spec, clients.NewConsumer(cfg, "s", "s", brokers, []string{"orders"}), newProducer,
		func(int) string { return "" }), 0)
	w.RunUntil(20000, nil)
	assert.Equal(t, []string{"p#1", "p#2", "p#3"}, at(w, Polled))
	var written []string
	for _, o := range w.Observations().All() {
		if o.Event == sinks.Written {
			assert.Equal(t, "totals", o.Output)
			assert.Equal(t, "totals-0", o.Partition)
			written = append(written, o.Msgs...)
		}
	}
	assert.Equal(t, []string{"p#1", "p#2", "p#3"}, written)
}
