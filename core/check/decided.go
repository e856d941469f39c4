package check

import (
	"deliverylab/core/apps"
	"deliverylab/core/fate"
	"deliverylab/core/sim"
	"deliverylab/core/sinks"
)

// visit is one observation of a message: where and when it was seen.
type visit struct {
	node, output string
	event        sim.Event
	atMs         int64
}

// path is the nodes a message visited, in the order they saw it; a node seen twice in a
// row (appended, then replicated on the same broker) is one step of the path.
func (h *history) path() []string {
	var out []string
	for _, v := range h.visits {
		if v.node != "" && (len(out) == 0 || out[len(out)-1] != v.node) {
			out = append(out, v.node)
		}
	}
	return out
}

// decidedAt is when a message's fate was decided, so that the ledger can jump to that
// moment: when it reached the output (the second time for a duplicate), when it was
// truncated away, when the producer was told it failed; else its last observation, and
// -1 when it was never observed.
func decidedAt(f fate.Name, h *history, output string) int64 {
	switch f {
	case fate.Delivered:
		if at, ok := h.reached(output, 1); ok {
			return at
		}
	case fate.Duplicated:
		if at, ok := h.reached(output, 2); ok {
			return at
		}
	case fate.Lost:
		if h.truncatedBy != "" {
			return h.truncatedMs
		}
	case fate.Failed:
		if h.failed {
			return h.failedMs
		}
	}
	if len(h.visits) == 0 {
		return -1
	}
	return h.visits[len(h.visits)-1].atMs
}

// reached is when the message reached the output for the nth time: a sink's write, or
// a consumer output's processing.
func (h *history) reached(output string, nth int) (int64, bool) {
	for _, v := range h.visits {
		if (v.event == sinks.Written && v.output == output) || (v.event == apps.Processed && v.node == output && v.output == "") {
			if nth--; nth == 0 {
				return v.atMs, true
			}
		}
	}
	return 0, false
}
