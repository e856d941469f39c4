package scene

import (
	"fmt"

	"deliverylab/core/check"
	"deliverylab/core/kafka"
	"deliverylab/core/sinks"
)

// Output gathers one output's facts from the world: its effects, and which messages
// without an effect are still held where they could yet be delivered.
func (r *Run) Output(name string) check.Output {
	out := check.Output{Name: name, Effects: map[string]int{}, Held: map[string]bool{}, Why: map[string]string{}}
	var feeders []ConsumerSpec
	if n, ok := r.World.Node(name); ok || r.Scene.hasSink(name) {
		if t, isTable := n.(*sinks.Table); isTable {
			out.Effects = t.Effects()
		}
		for _, c := range r.Scene.Consumers {
			if c.Spec.Sink == name {
				feeders = append(feeders, c)
			}
		}
	}
	for _, c := range r.Scene.Consumers {
		if c.Name == name && c.Spec.Sink == "" {
			feeders = append(feeders, c)
			for _, o := range r.World.Observations() {
				if o.Event == "processed" && o.Node == name {
					for _, m := range o.Msgs {
						out.Effects[m]++
					}
				}
			}
		}
	}
	r.markHeld(&out, feeders)
	return out
}

// markHeld finds messages with no effect that a log still holds where they could be
// delivered: on a down replica of an offline partition, above a stuck HW, or past the
// group's committed offset while every consumer of the output is down.
func (r *Run) markHeld(out *check.Output, feeders []ConsumerSpec) {
	consumersDown := len(feeders) > 0
	for _, c := range feeders {
		if r.up(c.Name) {
			consumersDown = false
		}
	}
	ctrl := r.controller()
	for _, t := range r.Scene.Topics {
		if !feeds(feeders, t.Name) {
			continue
		}
		for i := 0; i < t.Partitions; i++ {
			tp := kafka.TP{Topic: t.Name, Partition: int32(i)}
			st, _ := ctrl.Partition(tp)
			if st.Leader == "" || !r.up(st.Leader) {
				for _, b := range st.Replicas {
					if r.up(b) {
						continue
					}
					r.holdAll(out, b, tp, 0, fmt.Sprintf("%s on %s (down; the partition has no leader)", tp, b))
				}
				continue
			}
			n, _ := r.World.Node(st.Leader)
			br := n.(*kafka.Broker)
			rep := br.Replica(tp)
			from := rep.HW
			why := fmt.Sprintf("%s above the high watermark on %s", tp, st.Leader)
			if consumersDown {
				from = max(r.committedOffset(feeders[0].Group, tp), 0)
				why = fmt.Sprintf("%s on %s, waiting for the consumer that is down", tp, st.Leader)
			}
			r.holdAll(out, st.Leader, tp, from, why)
		}
	}
}

func feeds(feeders []ConsumerSpec, topic string) bool {
	for _, c := range feeders {
		if contains(c.Topics, topic) {
			return true
		}
	}
	return false
}

func (r *Run) holdAll(out *check.Output, broker string, tp kafka.TP, from int64, why string) {
	n, _ := r.World.Node(broker)
	rep := n.(*kafka.Broker).Replica(tp)
	if rep == nil {
		return
	}
	for _, rec := range rep.Log {
		if rec.Offset >= from && rec.Msg != "" && out.Effects[rec.Msg] == 0 && !out.Held[rec.Msg] {
			out.Held[rec.Msg] = true
			out.Why[rec.Msg] = why
		}
	}
}

// committedOffset is a group's committed position in a partition as its coordinator (the
// leader of __consumer_offsets) would answer it, or -1.
func (r *Run) committedOffset(group string, tp kafka.TP) int64 {
	st, ok := r.controller().Partition(kafka.TP{Topic: kafka.OffsetsTopic})
	if !ok || st.Leader == "" {
		return -1
	}
	n, _ := r.World.Node(st.Leader)
	return n.(*kafka.Broker).CommittedOffset(group, tp)
}
