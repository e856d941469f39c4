package sim

import "maps"

// nameTable interns names as small ids: the names an observation log keeps — nodes,
// events, partitions, groups and members: a run has a few dozen of them and a long one
// half a million observations, each of which had held its own 16-byte string headers
// (and a fetch's answer its own copy of the partition's name) — and the ports the queue's
// timers were set from (an event without pointers to strings is one the collector need
// not look into).
type nameTable struct {
	list []string          // by id; id 0 is ""
	ids  map[string]uint32 // list's inverse
	// shared: a clone of the log shares ids until either adds a name (copy on write: a
	// world is cloned far more often than a new name is seen).
	shared bool
}

// id is s's id, added if it is new.
func (n *nameTable) id(s string) uint32 {
	if s == "" {
		return 0
	}
	if id, ok := n.ids[s]; ok {
		return id
	}
	if n.ids == nil || n.shared {
		n.ids, n.shared = maps.Clone(n.ids), false
		if n.ids == nil {
			n.ids = map[string]uint32{}
		}
		if len(n.list) == 0 {
			n.list = []string{""}
		}
	}
	id := uint32(len(n.list))
	n.list = append(n.list, s)
	n.ids[s] = id
	return id
}

// all is the list by id, "" at 0 even before a name was added.
func (n *nameTable) all() []string {
	if len(n.list) == 0 {
		return noNames
	}
	return n.list[:len(n.list):len(n.list)]
}

var noNames = []string{""}

// clone shares the names: the list clipped, so that the two logs' additions never
// reach each other, and the index until one of them adds a name.
func (n *nameTable) clone() nameTable {
	n.shared = true
	return nameTable{list: n.list[:len(n.list):len(n.list)], ids: n.ids, shared: true}
}
