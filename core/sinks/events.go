package sinks

import "deliverylab/core/sim"

// The protocol points of a sink.
const (
	Written          sim.Event = "written"           // it stored a row
	DuplicateRefused sim.Event = "duplicate-refused" // a unique key refused an insert
)

func init() {
	sim.RegisterEvents(sim.EventSpec{Event: Written, Where: "sink", When: "it stored a row",
		Fields: []sim.Field{sim.FieldMsgs, sim.FieldOutput},
		Detail: "the sink's name", DetailOf: func(o sim.Observation) string { return o.Output }},
		sim.EventSpec{Event: DuplicateRefused, Where: "sink", When: "its unique key refused an insert: a row with the record's key is there already",
			Fields: []sim.Field{sim.FieldMsgs, sim.FieldOutput},
			Detail: "the sink's name", DetailOf: func(o sim.Observation) string { return o.Output }})
}
