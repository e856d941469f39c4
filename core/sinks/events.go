package sinks

import "deliverylab/core/sim"

// Written is the protocol point of a sink: it stored a row.
const Written sim.Event = "written"

func init() {
	sim.RegisterEvents(sim.EventSpec{Event: Written, Where: "sink", When: "it stored a row",
		Fields: []sim.Field{sim.FieldMsgs, sim.FieldOutput},
		Detail: "the sink's name", DetailOf: func(o sim.Observation) string { return o.Output }})
}
