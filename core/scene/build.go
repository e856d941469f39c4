package scene

import (
	"maps"
	"slices"
	"strconv"

	"deliverylab/core/apps"
	"deliverylab/core/flink"
	"deliverylab/core/kafka/clients"
	"deliverylab/core/kafka/protocol"
	"deliverylab/core/sim"
	"deliverylab/core/sinks"
)

// Build makes the world a scene describes, with its scripted faults and narration armed.
// It is the one place where the scene layer names the protocol packages' node types.
func (s *Scene) Build() *sim.World {
	w := sim.NewWorld(sim.Config{Seed: s.Seed, LatencyMs: s.LatencyMs, JitterMs: s.JitterMs, LinkLatencyMs: s.linkLatencies()})
	cluster := s.Cluster
	cluster.Groups = s.groupIDs()
	cluster.TransactionalIDs = s.transactionalIDs()
	brokers := cluster.BrokerNames()
	w.Add(cluster.NewController(), 0)
	for _, p := range s.Producers {
		cfg := p.Config
		cfg.Client = s.KafkaVersion
		cl := clients.NewProducer(cfg, brokers, []string{p.Work.Topic})
		if p.TransactionSize > 0 {
			w.Add(apps.NewTxnProducer(p.Name, p.Work, apps.TxnWork{Size: p.TransactionSize, Abort: p.AbortTransactions}, p.OnRestart, cl), p.StartMs)
			continue
		}
		w.Add(apps.NewProducer(p.Name, p.Work, p.OnRestart, p.Sync, cl), p.StartMs)
	}
	for _, b := range cluster.NewBrokers() {
		w.Add(b, 0)
	}
	for _, c := range s.Consumers {
		cl := clients.NewConsumer(c.Config, c.Group, c.Name, brokers, c.Topics)
		w.Add(apps.NewConsumer(c.Name, c.Spec, cl), c.StartMs)
	}
	for _, ss := range s.Streams {
		w.Add(s.newStreams(ss, brokers), ss.StartMs)
	}
	for _, k := range s.Sinks {
		w.Add(sinks.New(k.Kind, k.Name), 0)
	}
	for _, j := range s.Jobs {
		w.Add(s.newJob(j, brokers), j.StartMs)
	}
	for _, f := range s.Faults {
		if f.When != nil {
			w.AddTrigger(*f.When)
		} else {
			w.Schedule(f.AtMs, f.Fault)
		}
	}
	for i, n := range s.Narration {
		nf := sim.Fault{Kind: sim.FaultNarrate, Index: i}
		if n.When != nil {
			t := *n.When
			t.Fault = nf
			w.AddTrigger(t)
		} else {
			w.Schedule(n.AtMs, nf)
		}
	}
	return w
}

// transactionalIDs lists the producers' transactional ids, once each, sorted.
func (s *Scene) transactionalIDs() []string {
	var out []string
	for _, p := range s.Producers {
		if id := p.Config.TransactionalID; id != "" {
			out = append(out, id)
		}
	}
	out = append(out, s.streamsTxnIDs()...)
	out = append(out, s.jobTxnIDs()...)
	slices.Sort(out)
	return slices.Compact(out)
}

// jobTxnIDs lists the transactional ids an EXACTLY_ONCE KafkaSink may use in a run:
// "prefix-subtask-checkpoint" for every checkpoint the run could take (and the ids its
// aborter probes), so that their __transaction_state partitions run.
func (s *Scene) jobTxnIDs() []string {
	var out []string
	for _, j := range s.Jobs {
		sp := j.Spec
		if sp.Sink.Guarantee != flink.GuaranteeExactlyOnce {
			continue
		}
		checkpoints := min(MaxRunMs/sp.Checkpointing.IntervalMs+2, 2000)
		for sub := range 2 * sp.Parallelism { // the aborter probes the next parallelism's ids too
			for c := int64(1); c <= checkpoints; c++ {
				out = append(out, sp.Sink.TransactionalIDPrefix+"-"+strconv.Itoa(sub)+"-"+strconv.FormatInt(c, 10))
			}
		}
	}
	return out
}

// groupIDs lists the consumer groups of the scene, once each, sorted.
func (s *Scene) groupIDs() []string {
	var out []string
	for _, c := range s.Consumers {
		out = append(out, c.Group)
	}
	for _, ss := range s.Streams {
		out = append(out, ss.Name) // application.id is the group id
	}
	for _, js := range s.Jobs {
		if g := js.Spec.Source.GroupID; g != "" {
			out = append(out, g) // where the KafkaSource commits its checkpoints' offsets
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// newJob makes a Flink job: its source subtasks' assigned consumers and its sink
// subtasks' producers.
func (s *Scene) newJob(js JobSpec, brokers []string) *flink.Job {
	spec := js.Spec
	var partitions []protocol.TP
	for _, t := range s.Cluster.Topics {
		if t.Name == spec.Source.Topic {
			for i := range t.Partitions {
				partitions = append(partitions, protocol.TP{Topic: t.Name, Partition: int32(i)})
			}
		}
	}
	newConsumer := func(clientID string) *clients.Consumer {
		return clients.NewAssignedConsumer(spec.Source.Consumer, clientID, brokers, []string{spec.Source.Topic})
	}
	newProducer := func(clientID, transactionalID string) *clients.Producer {
		c := spec.Sink.Producer
		c.TransactionalID = transactionalID
		c.Client = s.KafkaVersion
		return clients.NewProducer(c, brokers, []string{spec.Sink.Topic})
	}
	return flink.NewJob(js.Name, spec, partitions, newConsumer, newProducer)
}

// jobLatencyMs is the latency of a job's channels and calls between its own parts: one
// process, in memory.
const jobLatencyMs = 1

// linkLatencies is the scene's per-link latencies, with each job's own.
func (s *Scene) linkLatencies() map[[2]string]int64 {
	if len(s.Jobs) == 0 {
		return s.Links
	}
	out := maps.Clone(s.Links)
	if out == nil {
		out = map[[2]string]int64{}
	}
	for _, j := range s.Jobs {
		out[[2]string{j.Name, j.Name}] = jobLatencyMs
	}
	return out
}

// newStreams makes a Kafka Streams application: its main consumer, and a maker of the
// thread producer each process starts with (transactional under exactly_once_v2).
func (s *Scene) newStreams(ss StreamsSpec, brokers []string) *apps.Streams {
	consumer := clients.NewConsumer(ss.Consumer, ss.Name, ss.Name, brokers, []string{ss.Spec.From})
	cfg := ss.Producer
	newProducer := func(transactionalID string) *clients.Producer {
		c := cfg
		c.TransactionalID = transactionalID
		c.Client = s.KafkaVersion
		return clients.NewProducer(c, brokers, []string{ss.Spec.To})
	}
	partitionOf := s.Cluster.TransactionPartition
	txnIDOf := func(process int) string { return apps.TransactionalID(ss.Name, process, partitionOf) }
	return apps.NewStreams(ss.Name, ss.Spec, consumer, newProducer, txnIDOf)
}
