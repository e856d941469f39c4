package group

import (
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"

	"deliverylab/core/kafka/protocol"
)

// sameBox reports whether two bodies are one value in memory, not two equal ones.
func sameBox(a, b protocol.Body) bool {
	return (*[2]unsafe.Pointer)(unsafe.Pointer(&a))[1] == (*[2]unsafe.Pointer)(unsafe.Pointer(&b))[1]
}

// A commit of the position a partition's last commit had shares that commit's record
// body; a commit of another position, or of another group, gets a body of its own; and a
// clone's commits never reach the original's bodies.
func TestACommitOfAnUnmovedPositionSharesItsBody(t *testing.T) {
	var c Coordinator
	tp := protocol.TP{Topic: "orders"}
	at := func(offset int64) protocol.TPOffset { return protocol.TPOffset{TP: tp, Offset: offset} }

	first := c.commitBody("g", at(4))
	again := c.commitBody("g", at(4))
	assert.Equal(t, protocol.OffsetCommit{Group: "g", TP: tp, Offset: 4}, again)
	assert.True(t, sameBox(first, again), "the position did not move: one body")

	moved := c.commitBody("g", at(5))
	assert.Equal(t, protocol.OffsetCommit{Group: "g", TP: tp, Offset: 5}, moved)
	assert.Equal(t, protocol.OffsetCommit{Group: "h", TP: tp, Offset: 5}, c.commitBody("h", at(5)))

	clone := c.Clone()
	assert.Equal(t, protocol.OffsetCommit{Group: "g", TP: tp, Offset: 9}, clone.commitBody("g", at(9)))
	assert.True(t, sameBox(moved, c.commitBody("g", at(5))), "the clone's commit of 9 is not the original's last")
}
