package server

import (
	"slices"

	"deliverylab/core/kafka/protocol"
)

// delayedProduce is an append waiting for the HW to cover it (acks=all, and every offset
// commit): Kafka's DelayedProduce. It answers the client that sent the produce request,
// or calls back the role on this broker that appended (the group coordinator).
type delayedProduce struct {
	Client   string // the client to answer, or "" for a local role
	ReqID    int64  // the client's request, or the local role's reference
	Parts    []producePart
	Deadline int64
	Markers  bool // a WriteTxnMarkers request (txn_markers.go), answered with its response
}

// producePart is one partition of a delayed produce.
type producePart struct {
	TP         protocol.TP
	BaseOffset int64
	LastOffset int64
	Msgs       []string
	Err        protocol.Error // set once the partition failed
	Duplicate  bool           // an idempotent batch the leader already had: answered, not appended
	ProducerID int64          // the producer whose transaction marker this is (Markers)
	Commit     bool           // the marker is COMMIT (Markers)
}

func (d delayedProduce) watches(tp protocol.TP) bool {
	return slices.ContainsFunc(d.Parts, func(p producePart) bool { return p.TP == tp })
}
func (d delayedProduce) deadlineMs() int64 { return d.Deadline }

// delayedFetch is a long poll waiting for something to read: Kafka's DelayedFetch.
type delayedFetch struct {
	From     string
	Req      protocol.FetchRequest
	Deadline int64
}

func (d delayedFetch) watches(tp protocol.TP) bool { return d.Req.TP == tp }
func (d delayedFetch) deadlineMs() int64           { return d.Deadline }

// follower reports whether the fetch comes from a follower (replication) rather than a
// consumer.
func (d delayedFetch) follower() bool { return d.Req.Replica != "" }
