package sim

// keptObservation is an Observation as the log keeps it: the fields nearly every point
// sets, inline, with its names as ids of the log's obsNames, and the ones only some kinds
// of point set behind two pointers, nil when none is set: a group's (a commit, an
// assignment) and the rest (an error, a sink's, a transaction's, a checkpoint's, an
// aggregate's). A run to the event limit keeps about half a million observations: at 320
// bytes each they were most of its memory; kept, most take 64, a commit 128.
type keptObservation struct {
	AtMs                   int64
	WireID                 int64
	Offset                 int64
	node, event, partition uint32
	Epoch                  int32
	msgs                   uint32 // Msgs, kept in the chunk (obsChunkOf)
	group                  *groupFields
	rare                   *rareFields
}

// groupFields is what a group's points set.
type groupFields struct {
	group, member       uint32
	Generation          int32
	Assigned, Committed []string
}

// rareFields is what only a few other kinds of point set.
type rareFields struct {
	Err, Election, Output, Value, TxnID, Key string
	Checkpoint                               int64
	Folds                                    []string
}

func (n *obsNames) keep(o *Observation) keptObservation {
	k := keptObservation{AtMs: o.AtMs, node: n.id(o.Node), event: n.id(string(o.Event)), WireID: o.WireID,
		partition: n.id(o.Partition), Offset: o.Offset, Epoch: o.Epoch}
	// Assigned and Folds count when set though empty (a member assigned no partition says
	// so): nil checks, not lengths.
	if o.Group != "" || o.Member != "" || o.Generation != 0 || o.Assigned != nil || o.Committed != nil {
		k.group = &groupFields{group: n.id(o.Group), member: n.id(o.Member), Generation: o.Generation, Assigned: o.Assigned,
			Committed: o.Committed}
	}
	if o.Err != "" || o.Election != "" || o.Output != "" || o.Value != "" || o.TxnID != "" || o.Key != "" || o.Checkpoint != 0 || o.Folds != nil {
		k.rare = &rareFields{Err: o.Err, Election: o.Election, Output: o.Output, Value: o.Value, TxnID: o.TxnID, Key: o.Key,
			Checkpoint: o.Checkpoint, Folds: o.Folds}
	}
	return k
}

// observation is the kept observation as it was added, but for its Msgs (its chunk's);
// names are the log's.
func (k *keptObservation) observation(names []string) Observation {
	o := Observation{AtMs: k.AtMs, Node: names[k.node], Event: Event(names[k.event]), WireID: k.WireID,
		Partition: names[k.partition], Offset: k.Offset, Epoch: k.Epoch}
	if g := k.group; g != nil {
		o.Group, o.Member, o.Generation, o.Assigned, o.Committed = names[g.group], names[g.member], g.Generation, g.Assigned, g.Committed
	}
	if r := k.rare; r != nil {
		o.Err, o.Election, o.Output, o.Value, o.TxnID, o.Key = r.Err, r.Election, r.Output, r.Value, r.TxnID, r.Key
		o.Checkpoint, o.Folds = r.Checkpoint, r.Folds
	}
	return o
}
