package protocol

import (
	"strings"

	"deliverylab/core/sim"
)

// The protocol points Kafka's roles report (sim.Observation), registered below with what
// they mean.
const (
	Requested       sim.Event = "requested"
	Appended        sim.Event = "appended"
	Replicated      sim.Event = "replicated"
	Responded       sim.Event = "responded"
	Truncated       sim.Event = "truncated"
	Elected         sim.Event = "elected"
	Offline         sim.Event = "offline"
	OffsetCommitted sim.Event = "offset-committed"
	MemberRemoved   sim.Event = "member-removed"
	Assigned        sim.Event = "assigned"
	ClientError     sim.Event = "error"
	// TruncationDetected: a consumer's position lay past a truncation (KIP-320).
	TruncationDetected sim.Event = "truncation-detected"
	// TxnPrepared: a transaction coordinator's PrepareCommit or PrepareAbort is durable;
	// it has answered EndTxn and writes the markers next.
	TxnPrepared sim.Event = "txn-prepared"
)

func errDetail(o sim.Observation) string { return o.Err }

func init() {
	sim.RegisterEvents(
		sim.EventSpec{Event: Requested, Where: "producer",
			When:   "a produce request carrying the message left the producer (carries the wire id `delay: request` uses)",
			Fields: []sim.Field{sim.FieldPartition, sim.FieldMsgs, sim.FieldRequestWire}, Background: true},
		sim.EventSpec{Event: Appended, Where: "leader broker", When: "it appended a produce batch to its log",
			Fields: []sim.Field{sim.FieldPartition, sim.FieldOffset, sim.FieldMsgs}},
		sim.EventSpec{Event: Replicated, Where: "follower broker", When: "it appended records fetched from the leader",
			Fields: []sim.Field{sim.FieldPartition, sim.FieldOffset, sim.FieldMsgs}},
		sim.EventSpec{Event: Responded, Where: "leader broker",
			When:   "it sent a produce response (carries the wire id `drop: response` uses)",
			Fields: []sim.Field{sim.FieldPartition, sim.FieldOffset, sim.FieldMsgs, sim.FieldErr, sim.FieldWireID},
			Detail: "the error, or empty", DetailOf: errDetail},
		sim.EventSpec{Event: ClientError, Where: "producer, consumer",
			When:   "a client got an error (retried ones too), or a consumer's write to its sink was refused",
			Fields: []sim.Field{sim.FieldErr, sim.FieldMsgs, sim.FieldPartition},
			Detail: "the error name", DetailOf: errDetail},
		sim.EventSpec{Event: OffsetCommitted, Where: "coordinator broker",
			When:   "a commit covering the message is durable and its response sent (carries the wire id)",
			Fields: []sim.Field{sim.FieldGroup, sim.FieldCommitted, sim.FieldMsgs, sim.FieldWireID},
			Detail: "`GROUP TOPIC-P=OFFSET,…`",
			DetailOf: func(o sim.Observation) string {
				return o.Group + " " + strings.Join(o.Committed, ",")
			}},
		sim.EventSpec{Event: Assigned, Where: "consumer", When: "it got its partitions after a rebalance",
			Fields: []sim.Field{sim.FieldGroup, sim.FieldGeneration, sim.FieldAssigned},
			Detail: "`GROUP gen=N [TOPIC-P,…]`",
			DetailOf: func(o sim.Observation) string {
				return o.Group + " gen=" + itoa(int64(o.Generation)) + " [" + strings.Join(o.Assigned, ",") + "]"
			}},
		sim.EventSpec{Event: MemberRemoved, Where: "coordinator broker", When: "a member's session timed out, or it left the group (LeaveGroup)",
			Fields: []sim.Field{sim.FieldGroup, sim.FieldMember},
			Detail: "`GROUP/MEMBER`", DetailOf: func(o sim.Observation) string { return o.Group + "/" + o.Member }},
		sim.EventSpec{Event: Elected, Where: "`controller`", When: "a new leader was elected",
			Fields: []sim.Field{sim.FieldPartition, sim.FieldEpoch, sim.FieldElection},
			Detail: "`clean`, `unclean`, `elr` (Kafka 4: from the eligible leader replicas, the ISR being empty) or `last-known-leader` (Kafka 4: the last leader, back after ISR and ELR were emptied)", DetailOf: func(o sim.Observation) string { return o.Election }},
		sim.EventSpec{Event: Offline, Where: "`controller`",
			When:   "a partition lost its leader and no live in-sync replica can take over",
			Fields: []sim.Field{sim.FieldPartition}},
		sim.EventSpec{Event: TruncationDetected, Where: "consumer",
			When:   "after a leader change it found its position past where the new leader's log ends its epoch, and seeks back there (KIP-320; the offset is the new position)",
			Fields: []sim.Field{sim.FieldPartition, sim.FieldOffset}},
		sim.EventSpec{Event: TxnPrepared, Where: "coordinator broker",
			When:   "PrepareCommit or PrepareAbort is durable in its transaction log (`EndTxn` is answered, or the timeout sweep aborts; or a new leader of the log loaded it), and the COMMIT or ABORT markers are about to go to the partitions' leaders",
			Fields: []sim.Field{sim.FieldPartition, sim.FieldTxnID, sim.FieldValue},
			Detail: "`COMMIT` or `ABORT`", DetailOf: func(o sim.Observation) string { return o.Value }},
		sim.EventSpec{Event: Truncated, Where: "follower broker",
			When:   "it cut records off its log to match a new leader (the messages removed)",
			Fields: []sim.Field{sim.FieldPartition, sim.FieldOffset, sim.FieldMsgs}},
	)
}
