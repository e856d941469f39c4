package sinks

import "deliverylab/core/sim"

// The protocol points of a sink.
const (
	Written          sim.Event = "written"           // it stored a row (or a Streams application's output was acknowledged)
	DuplicateRefused sim.Event = "duplicate-refused" // a unique key refused an insert
)

func init() {
	sim.RegisterEvents(sim.EventSpec{Event: Written, Where: "sink, streams",
		When:   "a sink stored a row; a Streams application's output record was acknowledged (its sink is the output topic)",
		Fields: []sim.Field{sim.FieldMsgs, sim.FieldOutput},
		Detail: "the sink's name, or the output topic", DetailOf: func(o sim.Observation) string { return o.Output }},
		sim.EventSpec{Event: DuplicateRefused, Where: "sink", When: "its unique key refused an insert: a row with the record's key is there already",
			Fields: []sim.Field{sim.FieldMsgs, sim.FieldOutput},
			Detail: "the sink's name", DetailOf: func(o sim.Observation) string { return o.Output }})
}
