package apps

import "deliverylab/core/sim"

// The protocol points the applications report.
const (
	Sent      sim.Event = "sent"
	Acked     sim.Event = "acked"
	Failed    sim.Event = "failed"
	Polled    sim.Event = "polled"
	Processed sim.Event = "processed"
	// A transaction's end, as the application is told it: commitTransaction or
	// abortTransaction returned. The coordinator answers EndTxn once PrepareCommit or
	// PrepareAbort is in its log and writes the markers right after
	// (TransactionCoordinator.handleEndTransaction).
	TxnCommitted sim.Event = "txn-committed"
	TxnAborted   sim.Event = "txn-aborted"
)

func init() {
	sim.RegisterEvents(
		sim.EventSpec{Event: Sent, Where: "producer", When: "the application hands message n to its client",
			Fields: []sim.Field{sim.FieldMsgs}},
		sim.EventSpec{Event: Acked, Where: "producer",
			When:   "the application was told the message succeeded (with `acks=0`: when its batch left the client)",
			Fields: []sim.Field{sim.FieldMsgs, sim.FieldPartition, sim.FieldOffset}},
		sim.EventSpec{Event: Failed, Where: "producer", When: "the application was told the message failed",
			Fields: []sim.Field{sim.FieldMsgs, sim.FieldPartition, sim.FieldErr},
			Detail: "the error (`TimeoutException`, …)", DetailOf: func(o sim.Observation) string { return o.Err }},
		sim.EventSpec{Event: TxnCommitted, Where: "producer",
			When:   "`commitTransaction()` returned: the transaction's messages are acknowledged (the coordinator writes the COMMIT markers next)",
			Fields: []sim.Field{sim.FieldMsgs}},
		sim.EventSpec{Event: TxnAborted, Where: "producer",
			When:   "`abortTransaction()` returned for a transaction the scene aborts (the coordinator writes the ABORT markers next)",
			Fields: []sim.Field{sim.FieldMsgs}},
		sim.EventSpec{Event: Polled, Where: "consumer", When: "`poll` returned the record",
			Fields: []sim.Field{sim.FieldMsgs, sim.FieldPartition, sim.FieldOffset, sim.FieldValue},
			Detail: "the record's value", DetailOf: func(o sim.Observation) string { return o.Value }},
		sim.EventSpec{Event: Processed, Where: "consumer",
			When:   "the application finished processing the record (and the sink acknowledged it)",
			Fields: []sim.Field{sim.FieldMsgs, sim.FieldPartition, sim.FieldOffset, sim.FieldOutput},
			Detail: "the sink, or empty", DetailOf: func(o sim.Observation) string { return o.Output }},
	)
}
