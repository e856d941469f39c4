package scene

import (
	"deliverylab/core/apps"
	"deliverylab/core/check"
	"deliverylab/core/fate"
)

// effector is a sink: its effects in the ledger, per message identity.
type effector interface {
	Effects() map[string]int
}

// Output gathers one output's facts from the world: its effects, and which messages
// without an effect are still held where they could yet be delivered.
func (r *Run) Output(name string) check.Output {
	out := check.Output{Name: name, Effects: map[string]int{}, Held: map[string]fate.Reason{}}
	var feeders []ConsumerSpec
	for _, c := range r.Scene.Consumers {
		switch {
		case c.Spec.Sink == name && r.Scene.hasSink(name):
			feeders = append(feeders, c)
		case c.Name == name && c.Spec.Sink == "":
			feeders = append(feeders, c)
			for _, o := range r.World.Observations() {
				if o.Event == apps.Processed && o.Node == name {
					for _, m := range o.Msgs {
						out.Effects[m]++
					}
				}
			}
		}
	}
	if e, ok := nodeAs[effector](r.World, name); ok {
		out.Effects = e.Effects()
	}
	r.markHeld(&out, feeders)
	return out
}

// markHeld asks every node that holds messages (fate.Holder) which of them the output's
// consumers could still get; a message held in several places keeps the first.
func (r *Run) markHeld(out *check.Output, feeders []ConsumerSpec) {
	if len(feeders) == 0 {
		return
	}
	reader := fate.Reader{Group: feeders[0].Group, Down: true}
	for _, c := range feeders {
		reader.Topics = append(reader.Topics, c.Topics...)
		if _, up := r.World.Node(c.Name); up {
			reader.Down = false
		}
	}
	for _, name := range r.World.NodeNames() {
		h, ok := nodeAs[fate.Holder](r.World, name)
		if !ok {
			continue
		}
		for _, held := range h.Holds(r.World, reader) {
			if _, seen := out.Held[held.Msg]; !seen && out.Effects[held.Msg] == 0 {
				out.Held[held.Msg] = held.Where
			}
		}
	}
}
