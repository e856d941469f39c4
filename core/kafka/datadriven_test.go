package kafka_test

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"deliverylab/core/fate"
	"deliverylab/core/kafka"
	"deliverylab/core/kafka/clients"
	"deliverylab/core/kafka/protocol"
	"deliverylab/core/kafka/server"
	"deliverylab/core/props"
	"deliverylab/core/sim"

	"github.com/cockroachdb/datadriven"
)

// TestKafka runs the scripts in testdata/*.txt (cockroachdb/datadriven, as etcd raft's
// tests do): each builds a cluster, drives producers and consumers through the real
// clients, injects faults, runs virtual time and prints what happened. Regenerate the
// expected output with `go test ./core/kafka -rewrite` and read the diff: it is the
// behaviour.
//
// Commands:
//
//	cluster brokers=N [kafka.version=V]                the cluster (before start); a
//	  [cluster.config key=value ...]                   release resets the config to its
//	                                                   defaults, so it comes first
//	topic NAME [partitions=N] [rf=N] [leaders=(broker-1,...)]
//	network [latency=MS] [link=(a,b,MS)]...            link latency overrides
//	start [groups=(G,...)] [txns=(ID,...)]             build the world; nodes boot at 0 ms;
//	                                                   the groups' __consumer_offsets
//	                                                   partitions and the transactional
//	                                                   ids' __transaction_state
//	                                                   partitions are created
//	producer NAME [producer config key=value ...]      a producer client, booting now
//	  [transactional.id=ID] [transaction.timeout.ms=N]
//	init-txn NAME | begin NAME                         the transaction API of a producer
//	commit-txn NAME | abort-txn NAME                   with a transactional.id, now
//	consumer NAME group=G topics=(T,...) [consumer config key=value ...]
//	send NAME [n=N] [topic=T] [key=K]                  hand N records to a producer now
//	raw NAME                                           a bare client that sends what it is
//	                                                   told and prints what comes back
//	forge NAME to=BROKER tp=TP pid=N epoch=N seq=N     the raw client sends a Produce of n
//	  [n=N] [acks=all|1] [txn=true]                    records with that producer identity
//	                                                   (txn: a transactional batch)
//	marker NAME to=BROKER pid=N epoch=N commit=BOOL    the raw client plays the transaction
//	  partitions=(TP,...) [coordinator-epoch=N]        coordinator: WriteTxnMarkers
//	forge-fetch NAME to=CONSUMER req=N tp=TP from=N    the raw client answers a consumer's
//	                                                   fetch req=N with the leader's batches
//	                                                   from offset N and no aborted list
//	expect-broken                                      from now on an invariant a consumer
//	                                                   breaks is printed, not a failure
//	init-pid NAME to=BROKER                            the raw client sends InitProducerId
//	add-offsets NAME to=BROKER txn=ID pid=N epoch=N    the raw client sends AddOffsetsToTxn
//	  group=G
//	fetch-offsets NAME to=BROKER group=G tps=(TP,...)  the raw client sends OffsetFetch
//	  [stable=true]                                    (stable: RequireStable)
//	txn-offsets NAME to=BROKER txn=ID group=G pid=N    the raw client sends TxnOffsetCommit
//	  epoch=N member=M generation=N offsets=(TP=N,...)
//	send-offsets NAME offsets=(TP=N,...)               sendOffsetsToTransaction of a producer,
//	  consumer=C | group=G member=M generation=N       with a consumer's group metadata (or
//	                                                   one given; generation= overrides it)
//	commit NAME                                        a consumer commits its positions
//	run ms=N [nowire]                                  run N ms of virtual time (nowire:
//	                                                   leave out sends and receipts)
//	crash NODE | restart NODE | cut A B | heal A B     faults, now, or with
//	  [when=EVENT] [message=MSG]                       at the first such protocol point
//	log TP                                             every replica of a partition, and
//	                                                   its producer state
//	state TP                                           the controller's record of it
//	committed GROUP TP                                 the group's committed offset
//	coordinator GROUP                                  the group's __consumer_offsets
//	                                                   partition and its leader
//	waits BROKER                                       what keeps the broker from settling
//	txn-coordinator ID                                 the transactional id's
//	                                                   __transaction_state partition, its
//	                                                   leader and what the leader holds
//
// Every command prints the trace lines it caused (background traffic left out), and
// every event is followed by a check of every broker's invariants.
func TestKafka(t *testing.T) {
	datadriven.Walk(t, "testdata", func(t *testing.T, path string) {
		h := &harness{t: t, cluster: kafka.Cluster{Config: server.DefaultConfig()}, latencyMs: 5, apps: map[string]app{}}
		datadriven.RunTest(t, path, h.do)
	})
}

type harness struct {
	t         *testing.T
	cluster   kafka.Cluster
	latencyMs int64
	links     map[[2]string]int64
	w         *sim.World
	printed   int // trace lines printed so far
	apps      map[string]app
	// printBroken: a consumer's broken invariant is printed (broken) rather than failing
	printBroken bool
	broken      []string
}

// app is a test node around a client.
type app interface {
	sim.Node
	act(env *sim.Env, t testing.TB, td *datadriven.TestData) error
}

func (h *harness) do(t *testing.T, td *datadriven.TestData) string {
	if err := h.run(td); err != nil {
		return "error: " + err.Error() + "\n"
	}
	return h.newLines(td)
}

func (h *harness) run(td *datadriven.TestData) error {
	switch td.Cmd {
	case "cluster":
		return h.setCluster(td)
	case "topic":
		return h.addTopic(td)
	case "network":
		return h.setNetwork(td)
	case "start":
		if a, ok := td.Arg("groups"); ok {
			h.cluster.Groups = a.Vals
		}
		if a, ok := td.Arg("txns"); ok {
			h.cluster.TransactionalIDs = a.Vals
		}
		h.start()
	case "producer":
		return h.addProducer(td)
	case "consumer":
		return h.addConsumer(td)
	case "raw":
		name := h.arg(td, 0)
		r := &rawApp{name: name}
		h.apps[name] = r
		h.w.Add(r, h.w.NowMs())
		h.step(h.w.NowMs())
	case "send", "commit", "forge", "init-pid", "leave-group", "marker", "init-txn", "begin", "commit-txn", "abort-txn", "add-offsets",
		"fetch-offsets", "txn-offsets":
		return h.act(td)
	case "send-offsets":
		return h.sendOffsets(td)
	case "forge-fetch":
		return h.forgeFetch(td)
	case "expect-broken":
		h.printBroken = true
	case "run":
		return h.advance(td)
	case "crash", "restart":
		h.inject(td, sim.Fault{Kind: sim.FaultKind(td.Cmd), Node: h.arg(td, 0)})
	case "cut", "heal":
		h.inject(td, sim.Fault{Kind: sim.FaultKind(td.Cmd), From: h.arg(td, 0), To: h.arg(td, 1)})
	case "log", "state", "committed", "coordinator", "txn-coordinator", "waits":
		return nil // printed by newLines
	default:
		return fmt.Errorf("unknown command %q", td.Cmd)
	}
	return nil
}

// inject applies a fault now, or arms it for a protocol point (when=EVENT, message=MSG).
func (h *harness) inject(td *datadriven.TestData, f sim.Fault) {
	var event, msg string
	if !td.MaybeScanArgs(h.t, "when", &event) {
		h.w.Inject(f)
		return
	}
	td.MaybeScanArgs(h.t, "message", &msg)
	h.w.AddTrigger(sim.Trigger{Event: sim.Event(event), Message: msg, Fault: f})
}

// arg is the i-th bare word of the command line.
func (h *harness) arg(td *datadriven.TestData, i int) string {
	if i >= len(td.CmdArgs) {
		h.t.Fatalf("%s: %s needs %d arguments", td.Pos, td.Cmd, i+1)
	}
	return td.CmdArgs[i].Key
}

func (h *harness) setCluster(td *datadriven.TestData) error {
	for _, a := range td.CmdArgs {
		if a.Key == "brokers" {
			n, err := strconv.Atoi(a.Vals[0])
			if err != nil {
				return err
			}
			h.cluster.Brokers = n
			continue
		}
		if a.Key == "kafka.version" {
			// first: the release's defaults, then the keys after it
			v, ok := protocol.ParseVersion(a.Vals[0])
			if !ok {
				return fmt.Errorf("kafka.version: expected one of %v, got %q", protocol.VersionChoices(), a.Vals[0])
			}
			h.cluster.Config = server.DefaultConfigFor(v)
			continue
		}
		if set, ok := txnBrokerKeys[a.Key]; ok {
			// refused by the scene layer until it runs transactions; modelled here
			n, err := strconv.ParseInt(a.Vals[0], 10, 64)
			if err != nil {
				return fmt.Errorf("%s: %w", a.Key, err)
			}
			set(&h.cluster.Config, n)
			continue
		}
		if err := server.ConfigKeys.Set(&h.cluster.Config, a.Key, props.Value{Text: a.Vals[0]}); err != nil {
			return fmt.Errorf("%s: %w", a.Key, err)
		}
	}
	return h.cluster.Config.Validate()
}

// txnBrokerKeys are the transaction coordinator's broker settings a test may set.
var txnBrokerKeys = map[string]func(*server.Config, int64){
	"transaction.state.log.num.partitions": func(c *server.Config, n int64) { c.TransactionStateLogNumPartitions = int(n) },
	"transaction.max.timeout.ms":           func(c *server.Config, n int64) { c.TransactionMaxTimeoutMs = n },
	"transaction.abort.timed.out.transaction.cleanup.interval.ms": func(c *server.Config, n int64) {
		c.TransactionAbortIntervalMs = n
	},
}

func (h *harness) addTopic(td *datadriven.TestData) error {
	t := kafka.Topic{Name: h.arg(td, 0), Partitions: 1, RF: min(3, h.cluster.Brokers)}
	td.MaybeScanArgs(h.t, "partitions", &t.Partitions)
	td.MaybeScanArgs(h.t, "rf", &t.RF)
	if a, ok := td.Arg("leaders"); ok {
		t.Leaders = a.Vals
	}
	h.cluster.Topics = append(h.cluster.Topics, t)
	return nil
}

func (h *harness) setNetwork(td *datadriven.TestData) error {
	td.MaybeScanArgs(h.t, "latency", &h.latencyMs)
	for _, a := range td.CmdArgs {
		if a.Key != "link" {
			continue
		}
		if len(a.Vals) != 3 {
			return fmt.Errorf("link=(a,b,ms)")
		}
		ms, err := strconv.ParseInt(a.Vals[2], 10, 64)
		if err != nil {
			return err
		}
		if h.links == nil {
			h.links = map[[2]string]int64{}
		}
		h.links[[2]string{a.Vals[0], a.Vals[1]}] = ms
	}
	return nil
}

func (h *harness) start() {
	h.w = sim.NewWorld(sim.Config{Seed: 1, LatencyMs: h.latencyMs, LinkLatencyMs: h.links})
	h.w.Add(h.cluster.NewController(), 0)
	for _, b := range h.cluster.NewBrokers() {
		h.w.Add(b, 0)
	}
	h.step(0)
}

func (h *harness) addProducer(td *datadriven.TestData) error {
	cfg := clients.DefaultProducerConfig()
	cfg.EnableIdempotence = false // unless the test sets enable.idempotence=true
	for _, a := range td.CmdArgs[1:] {
		switch a.Key {
		case "transactional.id":
			cfg.TransactionalID = a.Vals[0]
			continue
		case "transaction.timeout.ms":
			n, err := strconv.ParseInt(a.Vals[0], 10, 64)
			if err != nil {
				return err
			}
			cfg.TransactionTimeoutMs = n
			continue
		}
		if err := clients.ProducerKeys.Set(&cfg, a.Key, props.Value{Text: a.Vals[0]}); err != nil {
			return fmt.Errorf("%s: %w", a.Key, err)
		}
	}
	if err := cfg.Check(); err != nil {
		return err
	}
	name := h.arg(td, 0)
	p := &producerApp{name: name, client: clients.NewProducer(cfg, h.cluster.BrokerNames(), h.topicNames())}
	h.apps[name] = p
	h.w.Add(p, h.w.NowMs())
	h.step(h.w.NowMs())
	return nil
}

func (h *harness) addConsumer(td *datadriven.TestData) error {
	cfg := clients.DefaultConsumerConfig()
	var group string
	var topics []string
	for _, a := range td.CmdArgs[1:] {
		switch a.Key {
		case "group":
			group = a.Vals[0]
		case "topics":
			topics = a.Vals
		default:
			if err := clients.ConsumerKeys.Set(&cfg, a.Key, props.Value{Text: a.Vals[0]}); err != nil {
				return fmt.Errorf("%s: %w", a.Key, err)
			}
		}
	}
	name := h.arg(td, 0)
	c := &consumerApp{name: name, client: clients.NewConsumer(cfg, group, name, h.cluster.BrokerNames(), topics)}
	h.apps[name] = c
	h.w.Add(c, h.w.NowMs())
	h.step(h.w.NowMs())
	return nil
}

func (h *harness) topicNames() []string {
	var out []string
	for _, t := range h.cluster.Topics {
		out = append(out, t.Name)
	}
	return out
}

// act runs a command as the named application's handler would, now.
func (h *harness) act(td *datadriven.TestData) error {
	a, ok := h.apps[h.arg(td, 0)]
	if !ok {
		return fmt.Errorf("no application %q", h.arg(td, 0))
	}
	var err error
	h.w.Act(a.Name(), func(env *sim.Env) { err = a.act(env, h.t, td) })
	return err
}

func (h *harness) advance(td *datadriven.TestData) error {
	var ms int64
	td.ScanArgs(h.t, "ms", &ms)
	h.step(h.w.NowMs() + ms)
	return nil
}

// step runs every event up to atMs, checking the invariants after each.
func (h *harness) step(atMs int64) {
	for next := h.w.NextEventMs(); next >= 0 && next <= atMs; next = h.w.NextEventMs() {
		h.w.Step()
		for _, name := range h.w.NodeNames() {
			if b, ok := nodeAs[*server.Broker](h.w, name); ok {
				if bad := b.Invariants(h.w); len(bad) > 0 {
					h.t.Fatalf("at %d ms: %s", h.w.NowMs(), strings.Join(bad, "; "))
				}
			}
			if c, ok := nodeAs[*consumerApp](h.w, name); ok {
				if bad := c.client.Invariants(h.w); len(bad) > 0 && !h.printBroken {
					h.t.Fatalf("at %d ms: %s", h.w.NowMs(), strings.Join(bad, "; "))
				} else {
					for _, problem := range bad {
						h.broken = append(h.broken, fmt.Sprintf("%d broken: %s", h.w.NowMs(), problem))
					}
				}
			}
		}
	}
	h.w.AdvanceClock(atMs)
}

func nodeAs[T any](w *sim.World, name string) (T, bool) {
	n, _ := w.Node(name)
	t, ok := n.(T)
	return t, ok
}

// newLines prints what the command caused, or the state it asks for.
func (h *harness) newLines(td *datadriven.TestData) string {
	var b strings.Builder
	switch td.Cmd {
	case "log":
		h.printLog(&b, parseTP(h.arg(td, 0)))
	case "state":
		st, _ := protocol.ControllerState(h.w, parseTP(h.arg(td, 0)))
		fmt.Fprintln(&b, st.Describe())
	case "committed":
		fmt.Fprintln(&b, protocol.CommittedOffset(h.w, h.arg(td, 0), parseTP(h.arg(td, 1))))
	case "coordinator":
		tp, _ := protocol.GroupTP(h.w, h.arg(td, 0))
		st, _ := protocol.ControllerState(h.w, tp)
		fmt.Fprintf(&b, "%s leader=%s\n", tp, st.Leader)
	case "txn-coordinator":
		h.printTxnCoordinator(&b, h.arg(td, 0))
	case "waits":
		if br, ok := nodeAs[*server.Broker](h.w, h.arg(td, 0)); ok {
			for _, r := range br.WaitsFor(h.w) {
				fmt.Fprintln(&b, r.Text(fate.En))
			}
		}
	}
	if h.w == nil {
		return b.String()
	}
	lines := h.w.Trace().Texts(false)
	nowire := td.HasArg("nowire")
	for _, l := range lines[h.printed:] {
		if _, rest, _ := strings.Cut(l, " "); !nowire || !(strings.HasPrefix(rest, "send ") || strings.HasPrefix(rest, "recv ")) {
			fmt.Fprintln(&b, l)
		}
	}
	h.printed = len(lines)
	for _, l := range h.broken {
		fmt.Fprintln(&b, l)
	}
	h.broken = nil
	return b.String()
}

// printLog prints every hosted replica of a partition: its role, epoch, HW, LEO and ISR
// as the broker holds them, then its batches.
func (h *harness) printLog(b *strings.Builder, tp protocol.TP) {
	for _, name := range h.cluster.BrokerNames() {
		br, _ := nodeAs[*server.Broker](h.w, name)
		p := br.Replicas().Partition(tp)
		if p == nil {
			continue
		}
		_, up := h.w.Node(name)
		st := p.State()
		role := "follower"
		if p.IsLeader() {
			role = "leader"
		}
		if !up {
			role = "down"
		}
		lso := ""
		if p.Log.HasTransactions() {
			lso = fmt.Sprintf(" lso=%d", p.LastStableOffset())
		}
		fmt.Fprintf(b, "%s %s epoch=%d hw=%d%s leo=%d isr=[%s]\n", name, role, st.LeaderEpoch, p.HW, lso, p.LEO(), strings.Join(st.ISR, ","))
		for _, batch := range p.Log.All() {
			var bodies []string
			for _, r := range batch.Records {
				bodies = append(bodies, r.Body.Describe())
			}
			pid := ""
			switch {
			case batch.Control:
				pid = fmt.Sprintf(" control pid=%d e%d coordinator-epoch=%d", batch.ProducerID, batch.ProducerEpoch,
					batch.Records[0].Body.(protocol.ControlMarker).CoordinatorEpoch)
			case batch.HasProducerID():
				pid = fmt.Sprintf(" pid=%d e%d seq=%d..%d", batch.ProducerID, batch.ProducerEpoch, batch.BaseSequence, batch.LastSequence())
			}
			if batch.Transactional && !batch.Control {
				pid += " txn"
			}
			fmt.Fprintf(b, "  %d..%d e%d %s%s\n", batch.BaseOffset, batch.LastOffset(), batch.LeaderEpoch, strings.Join(bodies, " "), pid)
		}
		for _, id := range p.Log.ProducerIDs() {
			e, _ := p.Log.Producer(id)
			var cached []string
			for _, m := range e.Batches {
				cached = append(cached, fmt.Sprintf("%d..%d@%d", m.FirstSeq, m.LastSeq, m.FirstOffset))
			}
			txn := ""
			if e.TxnFirstOffset >= 0 {
				txn = fmt.Sprintf(" open txn from %d", e.TxnFirstOffset)
			}
			fmt.Fprintf(b, "  producer pid=%d epoch=%d last five: %s%s\n", id, e.Epoch, strings.Join(cached, " "), txn)
		}
		for _, t := range p.Log.AbortedIndex() {
			fmt.Fprintf(b, "  aborted pid=%d %d..%d\n", t.ProducerID, t.FirstOffset, t.LastOffset)
		}
	}
}

// printTxnCoordinator prints a transactional id's __transaction_state partition, its
// leader, and the id's state as the leader's coordinator holds it.
func (h *harness) printTxnCoordinator(b *strings.Builder, id string) {
	tp := protocol.TransactionStateTP(id, h.cluster.Config.TransactionStateLogNumPartitions)
	st, _ := protocol.ControllerState(h.w, tp)
	fmt.Fprintf(b, "%s leader=%s\n", tp, st.Leader)
	br, ok := nodeAs[*server.Broker](h.w, st.Leader)
	if !ok {
		return
	}
	for _, v := range br.Transactions() {
		if v.ID == id {
			fmt.Fprintf(b, "%s pid=%d e%d %s [%s]\n", v.ID, v.PID, v.Epoch, v.State, tpsText(v.Partitions))
		}
	}
}

func tpsText(tps []protocol.TP) string {
	parts := make([]string, len(tps))
	for i, tp := range tps {
		parts[i] = tp.String()
	}
	return strings.Join(parts, ",")
}

func parseTP(s string) protocol.TP {
	i := strings.LastIndexByte(s, '-')
	n, _ := strconv.Atoi(s[i+1:])
	return protocol.TP{Topic: s[:i], Partition: int32(n)}
}

// producerApp hands records to a producer client and writes down how each send ended.
type producerApp struct {
	name    string
	client  *clients.Producer
	sent    int
	blocked bool
}

func (p *producerApp) Name() string                        { return p.name }
func (p *producerApp) Start(env *sim.Env)                  { p.client.Start(env) }
func (p *producerApp) Crash()                              { p.client.Reset() }
func (p *producerApp) Clone() sim.Node                     { c := *p; c.client = p.client.Clone(); return &c }
func (p *producerApp) Receive(env *sim.Env, m sim.Message) { p.report(env, p.client.Receive(env, m)) }
func (p *producerApp) Fire(env *sim.Env, t sim.Payload)    { p.report(env, p.client.Fire(env, t)) }

func (p *producerApp) act(env *sim.Env, t testing.TB, td *datadriven.TestData) error {
	var done []clients.Completion
	var err error
	switch td.Cmd {
	case "init-txn":
		done, err = p.client.InitTransactions(env)
	case "begin":
		err = p.client.BeginTransaction()
	case "commit-txn":
		done, err = p.client.CommitTransaction(env)
	case "abort-txn":
		done, err = p.client.AbortTransaction(env)
	default:
		return p.send(env, t, td)
	}
	p.report(env, done)
	return err
}

func (p *producerApp) send(env *sim.Env, t testing.TB, td *datadriven.TestData) error {
	n, topic, key := 1, "", ""
	td.MaybeScanArgs(t, "n", &n)
	td.MaybeScanArgs(t, "topic", &topic)
	td.MaybeScanArgs(t, "key", &key)
	if topic == "" {
		topic = "orders"
	}
	for i := range n {
		if p.client.Blocked() {
			env.Note(fmt.Sprintf("blocked in send(): %d of %d not handed over", n-i, n))
			return nil
		}
		p.sent++
		id := fmt.Sprintf("%s#%d", p.name, p.sent)
		p.report(env, p.client.Send(env, topic, key, strconv.Itoa(p.sent), id))
	}
	return nil
}

func (p *producerApp) report(env *sim.Env, done []clients.Completion) {
	defer func() {
		if blocked := p.client.Blocked(); blocked != p.blocked {
			p.blocked = blocked
			env.Note(fmt.Sprintf("send() blocked=%t", blocked))
		}
	}()
	for _, c := range done {
		if c.Txn != clients.TxnNone {
			if c.Err != "" {
				env.Note(fmt.Sprintf("transaction %s %s", c.Txn, c.Err))
			} else {
				env.Note("transaction " + c.Txn.String())
			}
			continue
		}
		if c.Err != "" {
			env.Note(fmt.Sprintf("failed [%s] %s", strings.Join(c.Msgs, " "), c.Err))
			continue
		}
		env.Note(fmt.Sprintf("acked [%s] %s@%d", strings.Join(c.Msgs, " "), c.TP, c.Offset))
	}
}

// consumerApp polls whenever its client has records and writes down what it got.
type consumerApp struct {
	name   string
	client *clients.Consumer
}

func (c *consumerApp) Name() string       { return c.name }
func (c *consumerApp) Start(env *sim.Env) { c.client.Start(env) }
func (c *consumerApp) Crash()             { c.client.Reset() }
func (c *consumerApp) Clone() sim.Node    { n := *c; n.client = c.client.Clone(); return &n }
func (c *consumerApp) Receive(env *sim.Env, m sim.Message) {
	c.handle(env, c.client.Receive(env, m))
}
func (c *consumerApp) Fire(env *sim.Env, t sim.Payload) { c.handle(env, c.client.Fire(env, t)) }

func (c *consumerApp) act(env *sim.Env, _ testing.TB, _ *datadriven.TestData) error {
	if !c.client.Commit(env) {
		return fmt.Errorf("%s has nothing to commit (state %s)", c.name, c.client.State())
	}
	return nil
}

func (c *consumerApp) handle(env *sim.Env, evs []clients.ConsumerEvent) {
	for _, e := range evs {
		switch e.Kind {
		case clients.RecordsReady, clients.AssignedNow, clients.Rebalancing:
			for _, r := range c.client.Poll(env) {
				env.Note(fmt.Sprintf("polled %s %s@%d", r.Msg, r.TP, r.Offset))
			}
		case clients.Committed:
			env.Note("committed")
		case clients.CommitFailed:
			env.Note("commit failed " + e.Err.String())
		case clients.Stopped:
			env.Note("stopped " + e.Err.String())
		}
	}
}

// rawApp sends hand-made requests, as a client with any producer identity would, so that
// a test can put the broker's producer state rules to work one by one.
type rawApp struct {
	name string
	seq  int64 // request ids
	sent int   // records sent, for their identities
}

func (r *rawApp) Name() string                  { return r.name }
func (r *rawApp) Start(*sim.Env)                {}
func (r *rawApp) Crash()                        {}
func (r *rawApp) Clone() sim.Node               { c := *r; return &c }
func (r *rawApp) Receive(*sim.Env, sim.Message) {}
func (r *rawApp) Fire(*sim.Env, sim.Payload)    {}

func (r *rawApp) act(env *sim.Env, t testing.TB, td *datadriven.TestData) error {
	var to string
	td.ScanArgs(t, "to", &to)
	r.seq++
	switch td.Cmd {
	case "init-pid":
		env.Send(to, protocol.InitProducerIdRequest{ReqID: r.seq})
		return nil
	case "leave-group":
		var group, member string
		td.ScanArgs(t, "group", &group)
		td.ScanArgs(t, "member", &member)
		env.Send(to, protocol.LeaveGroupRequest{Group: group, Member: member, Reason: "test"})
		return nil
	case "fetch-offsets":
		var group string
		var stable bool
		td.ScanArgs(t, "group", &group)
		td.MaybeScanArgs(t, "stable", &stable)
		a, _ := td.Arg("tps")
		var tps []protocol.TP
		for _, v := range a.Vals {
			tps = append(tps, parseTP(v))
		}
		env.Send(to, protocol.OffsetFetchRequest{Group: group, TPs: tps, RequireStable: stable})
		return nil
	case "txn-offsets":
		id, group, pid, epoch := scanTxnGroup(t, td)
		var member string
		var generation int
		td.MaybeScanArgs(t, "member", &member)
		td.ScanArgs(t, "generation", &generation)
		offsets, err := parseOffsets(td)
		if err != nil {
			return err
		}
		env.Send(to, protocol.TxnOffsetCommitRequest{ReqID: r.seq, TransactionalID: id, Group: group, ProducerID: pid,
			ProducerEpoch: epoch, Member: member, Generation: int32(generation), Offsets: offsets})
		return nil
	case "add-offsets":
		id, group, pid, epoch := scanTxnGroup(t, td)
		env.Send(to, protocol.AddOffsetsToTxnRequest{ReqID: r.seq, TransactionalID: id, ProducerID: pid,
			ProducerEpoch: epoch, Group: group})
		return nil
	}
	if td.Cmd == "marker" {
		return r.marker(env, t, td, to)
	}
	var tp, acks string
	var pid int64
	var epoch, seq, n = 0, 0, 1
	td.ScanArgs(t, "tp", &tp)
	td.ScanArgs(t, "pid", &pid)
	td.ScanArgs(t, "epoch", &epoch)
	td.ScanArgs(t, "seq", &seq)
	td.MaybeScanArgs(t, "n", &n)
	td.MaybeScanArgs(t, "acks", &acks)
	var txn bool
	td.MaybeScanArgs(t, "txn", &txn)
	var records []protocol.Record
	for range n {
		r.sent++
		records = append(records, protocol.DataRecord(fmt.Sprintf("%s#%d", r.name, r.sent), "", strconv.Itoa(r.sent)))
	}
	b := protocol.NewBatch(records)
	b.ProducerID, b.ProducerEpoch, b.BaseSequence, b.Transactional = pid, int16(epoch), int32(seq), txn
	a := protocol.AcksAll
	if acks == "1" {
		a = protocol.AcksLeader
	}
	env.Send(to, protocol.ProduceRequest{ReqID: r.seq, Acks: a, TimeoutMs: 30000,
		Partitions: []protocol.ProducePartition{{TP: parseTP(tp), Batch: b}}})
	return nil
}

// scanTxnGroup reads txn=ID group=G pid=N epoch=N.
func scanTxnGroup(t testing.TB, td *datadriven.TestData) (id, group string, pid int64, epoch int16) {
	var e int
	td.ScanArgs(t, "txn", &id)
	td.ScanArgs(t, "group", &group)
	td.ScanArgs(t, "pid", &pid)
	td.ScanArgs(t, "epoch", &e)
	return id, group, pid, int16(e)
}

// marker plays the transaction coordinator: a WriteTxnMarkers request of one marker.
func (r *rawApp) marker(env *sim.Env, t testing.TB, td *datadriven.TestData, to string) error {
	var pid int64
	var epoch, coordinatorEpoch int
	var commit bool
	td.ScanArgs(t, "pid", &pid)
	td.ScanArgs(t, "epoch", &epoch)
	td.ScanArgs(t, "commit", &commit)
	td.MaybeScanArgs(t, "coordinator-epoch", &coordinatorEpoch)
	a, ok := td.Arg("partitions")
	if !ok {
		return fmt.Errorf("marker needs partitions=(TP,...)")
	}
	mk := protocol.TxnMarker{ProducerID: pid, ProducerEpoch: int16(epoch), Commit: commit, CoordinatorEpoch: int32(coordinatorEpoch)}
	for _, v := range a.Vals {
		mk.Partitions = append(mk.Partitions, parseTP(v))
	}
	env.Send(to, protocol.WriteTxnMarkersRequest{ReqID: r.seq, Markers: []protocol.TxnMarker{mk}})
	return nil
}

// parseOffsets reads offsets=(orders-0=3,...).
func parseOffsets(td *datadriven.TestData) ([]protocol.TPOffset, error) {
	a, ok := td.Arg("offsets")
	if !ok {
		return nil, fmt.Errorf("%s needs offsets=(TP=N,...)", td.Cmd)
	}
	var out []protocol.TPOffset
	for _, v := range a.Vals {
		tp, off, ok := strings.Cut(v, "=")
		n, err := strconv.ParseInt(off, 10, 64)
		if !ok || err != nil {
			return nil, fmt.Errorf("offsets: %q is not TP=N", v)
		}
		out = append(out, protocol.TPOffset{TP: parseTP(tp), Offset: n})
	}
	return out, nil
}

// sendOffsets has a producer send offsets to its transaction, with a consumer's group
// metadata or one the command gives.
func (h *harness) sendOffsets(td *datadriven.TestData) error {
	p, ok := h.apps[h.arg(td, 0)].(*producerApp)
	if !ok {
		return fmt.Errorf("no producer %q", h.arg(td, 0))
	}
	offsets, err := parseOffsets(td)
	if err != nil {
		return err
	}
	var gm clients.GroupMetadata
	if a, ok := td.Arg("consumer"); ok {
		c, ok := h.apps[a.Vals[0]].(*consumerApp)
		if !ok {
			return fmt.Errorf("no consumer %q", a.Vals[0])
		}
		gm = c.client.GroupMetadata()
	}
	td.MaybeScanArgs(h.t, "group", &gm.Group)
	td.MaybeScanArgs(h.t, "member", &gm.Member)
	gen := int(gm.Generation)
	td.MaybeScanArgs(h.t, "generation", &gen)
	gm.Generation = int32(gen)
	var msgs []string
	for _, o := range offsets {
		msgs = append(msgs, "offsets "+o.String())
	}
	h.w.Act(p.name, func(env *sim.Env) {
		var done []clients.Completion
		done, err = p.client.SendOffsetsToTransaction(env, offsets, gm, msgs)
		p.report(env, done)
	})
	return err
}

// forgeFetch has a raw client answer a consumer's fetch with what the partition's leader
// holds from an offset, up to its log end, listing no aborted transaction: a broken
// answer that a read_committed consumer trusts, so that its invariant fires.
func (h *harness) forgeFetch(td *datadriven.TestData) error {
	var to, tp string
	var req, from int64
	td.ScanArgs(h.t, "to", &to)
	td.ScanArgs(h.t, "req", &req)
	td.ScanArgs(h.t, "tp", &tp)
	td.ScanArgs(h.t, "from", &from)
	part := parseTP(tp)
	leader, ok := protocol.LiveLeader(h.w, part)
	if !ok {
		return fmt.Errorf("%s has no live leader", tp)
	}
	br, _ := nodeAs[*server.Broker](h.w, leader)
	p := br.Replicas().Partition(part)
	resp := protocol.FetchResponse{ReqID: req, TP: part, Batches: p.Log.Read(from, p.LEO()), HW: p.LEO(),
		Isolation: protocol.ReadCommitted, LastStable: p.LEO()}
	h.w.Act(h.arg(td, 0), func(env *sim.Env) { env.Send(to, resp) })
	return nil
}
