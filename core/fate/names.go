package fate

import (
	"slices"

	"deliverylab/core/sim"
)

// Name is a message's outcome (scenes/README.md, Fates and verdicts).
type Name string

// The fates.
const (
	Delivered   Name = "delivered"
	Duplicated  Name = "duplicated"
	Lost        Name = "lost"
	Unavailable Name = "unavailable"
	Failed      Name = "failed"
)

// Reader is the consumer side of an output: the topics it reads, its group, and whether
// every consumer feeding it is down.
type Reader struct {
	Topics []string
	Group  string
	Down   bool
	// Committed: every consumer of the reader reads read_committed, so a record of an
	// aborted transaction is nothing it could ever get.
	Committed bool
}

// Reads reports whether the reader reads a topic.
func (r Reader) Reads(topic string) bool { return slices.Contains(r.Topics, topic) }

// Held is a message without an effect that a node still holds where a reader could yet
// get it, and where.
type Held struct {
	Msg   string
	Where Reason
	// Past marks a message the log still holds below the group's committed offset: no
	// reader of the group will get it again, so it is lost, but not gone.
	Past bool
}

// Holder is a node that holds messages (a broker's logs): it says which of them a reader
// could still get.
type Holder interface {
	Holds(v sim.View, r Reader) []Held
}
