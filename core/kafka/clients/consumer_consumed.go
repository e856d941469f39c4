package clients

import "deliverylab/core/kafka/protocol"

// Consumed is what a transactional application sends with sendOffsetsToTransaction: the
// position in each assigned partition (the offset after the last record it returned),
// and the identities returned since the last time (for the ledger). It takes them: the
// next call returns only what was returned after this one.
func (c *Consumer) Consumed() ([]protocol.TPOffset, []string) {
	msgs := c.returned
	c.returned = nil
	var offs []protocol.TPOffset
	for _, tp := range c.assigned {
		if p, ok := c.positions[tp]; ok && p >= 0 {
			offs = append(offs, protocol.TPOffset{TP: tp, Offset: p})
		}
	}
	return offs, msgs
}

// Positions is the position in each partition the consumer owns and knows where to read:
// what the canvas marks on the leader's log.
func (c *Consumer) Positions() []protocol.TPOffset {
	var out []protocol.TPOffset
	for _, tp := range c.assigned {
		if p := c.Position(tp); p >= 0 {
			out = append(out, protocol.TPOffset{TP: tp, Offset: p})
		}
	}
	return out
}
