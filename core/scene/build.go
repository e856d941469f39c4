package scene

import (
	"deliverylab/core/apps"
	"deliverylab/core/kafka"
	"deliverylab/core/sim"
	"deliverylab/core/sinks"
)

// Build makes the world a scene describes, with its scripted faults and narration armed.
func (s *Scene) Build() *sim.World {
	w := sim.NewWorld(sim.Config{Seed: s.Seed, LatencyMs: s.LatencyMs, JitterMs: s.JitterMs, LinkLatencyMs: s.Links})
	brokers := s.brokerNames()
	parts := s.placement()
	w.Add(kafka.NewController(s.BrokerCfg, brokers, parts), 0)
	for _, p := range s.Producers {
		cl := kafka.NewProducer(p.Config, brokers, []string{p.Work.Topic})
		w.Add(apps.NewProducer(p.Name, p.Work, p.OnRestart, cl), p.StartMs)
	}
	for _, b := range brokers {
		br := kafka.NewBroker(b, s.BrokerCfg)
		for _, ps := range parts {
			if contains(ps.Replicas, b) {
				br.HostReplica(ps.TP)
			}
		}
		w.Add(br, 0)
	}
	for _, c := range s.Consumers {
		cl := kafka.NewConsumer(c.Config, c.Group, c.Name, brokers, c.Topics)
		w.Add(apps.NewConsumer(c.Name, c.Spec, cl), c.StartMs)
	}
	for _, k := range s.Sinks {
		w.Add(sinks.NewTable(k.Name), 0)
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

// placement assigns replicas: partition i of the k-th topic starts at broker (i+k) mod N,
// the named leader (if any) first; __consumer_offsets has one partition with replication
// factor min(3, brokers).
func (s *Scene) placement() []kafka.PartitionState {
	brokers := s.brokerNames()
	var out []kafka.PartitionState
	add := func(tp kafka.TP, rf, start int, leader string) {
		var reps []string
		if leader != "" {
			reps = append(reps, leader)
		}
		for j := 0; len(reps) < rf; j++ {
			b := brokers[(start+j)%len(brokers)]
			if !contains(reps, b) {
				reps = append(reps, b)
			}
		}
		out = append(out, kafka.PartitionState{TP: tp, Replicas: reps, Leader: reps[0], ISR: append([]string(nil), reps...)})
	}
	for k, t := range s.Topics {
		for i := 0; i < t.Partitions; i++ {
			leader := ""
			if len(t.Leaders) > i {
				leader = t.Leaders[i]
			}
			add(kafka.TP{Topic: t.Name, Partition: int32(i)}, t.RF, i+k, leader)
		}
	}
	if len(s.Consumers) > 0 {
		add(kafka.TP{Topic: kafka.OffsetsTopic}, min(3, len(brokers)), len(s.Topics), "")
	}
	return out
}
