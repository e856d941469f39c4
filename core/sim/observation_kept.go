package sim

import "unsafe"

// keptObservation is an Observation as the log keeps it: the fields nearly every point
// sets, inline, with its names as ids of the log's nameTable, and the ones only some kinds
// of point set in two lists beside the chunk's observations (obsChunkOf), 0 when none is
// set: a group's (a commit, an assignment) and the rest (an error, a sink's, a
// transaction's, a checkpoint's, an aggregate's). A run to the event limit keeps about
// half a million observations: at 320 bytes each they were most of its memory; kept, 56.
// It holds no pointer, so a chunk of them is memory the collector never looks into; each
// commit had kept three objects of its own (its group's fields, the list of what it
// committed and its one entry), which the collector marked at every cycle.
type keptObservation struct {
	AtMs                   int64
	WireID                 int64
	Offset                 int64
	node, event, partition uint32
	Epoch                  int32
	msgs                   uint32 // 1 + the index of Msgs in the chunk's msgs, 0 for none
	group                  uint32 // 1 + the index in the chunk's groups, 0 for none
	rare                   uint32 // 1 + the index in the chunk's rares, 0 for none
}

// groupFields is what a group's points set.
type groupFields struct {
	group, member       uint32
	Generation          int32
	Assigned, Committed listRef
}

// rareFields is what only a few other kinds of point set.
type rareFields struct {
	Err, Election, Output, Value, TxnID, Key string
	Checkpoint                               int64
	Folds                                    listRef
}

// listRef is a list of names kept one after another in the chunk's lists: n of them
// from start, or none set (n < 0), which is not an empty list (a member assigned no
// partition says so).
type listRef struct {
	start uint32
	n     int32
}

// keepList copies l into the chunk's lists, and the text of its names into the chunk's
// text: a commit's list is one name made for it ("orders-0=4"), and each had been an
// object of its own.
func (c *obsChunkOf) keepList(l []string) listRef {
	if l == nil {
		return listRef{n: -1}
	}
	r := listRef{start: uint32(len(c.lists)), n: int32(len(l))}
	for _, s := range l {
		c.lists = append(c.lists, c.keepText(s))
	}
	return r
}

// textBlock is how many bytes of names a block of a chunk's text holds.
const textBlock = 4096

// keepText copies s into the chunk's text and returns the copy. The text is written
// once and never changed (a full block is left as it is and a new one begun, and a
// clone's blocks are clipped), so a string may stand on it.
func (c *obsChunkOf) keepText(s string) string {
	if len(s) == 0 || len(s) > textBlock/8 {
		return s
	}
	if cap(c.text)-len(c.text) < len(s) {
		c.text = make([]byte, 0, textBlock)
	}
	start := len(c.text)
	c.text = append(c.text, s...)
	return unsafe.String(&c.text[start], len(s))
}

// list is the list r names, clipped: the reader may append to it.
func (c *obsChunkOf) list(r listRef) []string {
	if r.n < 0 {
		return nil
	}
	end := int(r.start) + int(r.n)
	return c.lists[r.start:end:end]
}

// keep is o as the chunk keeps it, its group's and rare fields added to the chunk.
func (c *obsChunkOf) keep(n *nameTable, o *Observation) keptObservation {
	k := keptObservation{AtMs: o.AtMs, node: n.id(o.Node), event: n.id(string(o.Event)), WireID: o.WireID,
		partition: n.id(o.Partition), Offset: o.Offset, Epoch: o.Epoch}
	// Assigned and Folds count when set though empty (a member assigned no partition says
	// so): nil checks, not lengths.
	if o.Group != "" || o.Member != "" || o.Generation != 0 || o.Assigned != nil || o.Committed != nil {
		c.groups = append(c.groups, groupFields{group: n.id(o.Group), member: n.id(o.Member), Generation: o.Generation,
			Assigned: c.keepList(o.Assigned), Committed: c.keepList(o.Committed)})
		k.group = uint32(len(c.groups))
	}
	if o.Err != "" || o.Election != "" || o.Output != "" || o.Value != "" || o.TxnID != "" || o.Key != "" || o.Checkpoint != 0 || o.Folds != nil {
		c.rares = append(c.rares, rareFields{Err: o.Err, Election: o.Election, Output: o.Output, Value: o.Value, TxnID: o.TxnID,
			Key: o.Key, Checkpoint: o.Checkpoint, Folds: c.keepList(o.Folds)})
		k.rare = uint32(len(c.rares))
	}
	return k
}

// observation is the chunk's observation j as it was added; names are the log's.
func (c *obsChunkOf) observation(j int, names []string) Observation {
	k := &c.obs[j]
	o := Observation{AtMs: k.AtMs, Node: names[k.node], Event: Event(names[k.event]), WireID: k.WireID,
		Partition: names[k.partition], Offset: k.Offset, Epoch: k.Epoch}
	if k.msgs > 0 {
		o.Msgs = c.msgs[k.msgs-1]
	}
	if k.group > 0 {
		g := &c.groups[k.group-1]
		o.Group, o.Member, o.Generation = names[g.group], names[g.member], g.Generation
		o.Assigned, o.Committed = c.list(g.Assigned), c.list(g.Committed)
	}
	if k.rare > 0 {
		r := &c.rares[k.rare-1]
		o.Err, o.Election, o.Output, o.Value, o.TxnID, o.Key = r.Err, r.Election, r.Output, r.Value, r.TxnID, r.Key
		o.Checkpoint, o.Folds = r.Checkpoint, c.list(r.Folds)
	}
	return o
}
