package sim

import (
	"iter"
	"slices"
)

// obsChunk is how many observations a chunk of the log holds.
const obsChunk = 4096

// observationLog keeps a run's observations in fixed chunks: appending never copies
// what is already kept (a long run's single slice, grown by a quarter at a time, had
// copied its hundreds of megabytes over and over: a fifth of the CPU of a run to the
// event limit), and a clone shares the full chunks, which are never written again.
type observationLog struct {
	full  []obsChunkOf // chunks of obsChunk each, read-only
	last  obsChunkOf   // the chunk being filled
	names nameTable
}

// obsChunkOf is a chunk of the log: its observations and, apart, the message lists of
// those that name messages (most of a short run's, few of a long one's: a list inline
// took 24 bytes of every observation), the fields of those that set a group's or rare
// ones, and the lists of names those name.
type obsChunkOf struct {
	obs    []keptObservation
	msgs   [][]string
	groups []groupFields
	rares  []rareFields
	lists  []string
	text   []byte // the block the names in lists are being written into (keepText)
}

func (l *observationLog) add(o *Observation) {
	if len(l.last.obs) == obsChunk {
		if len(l.full) == 0 {
			// The first chunk grew as a slice does, to a quarter more than it holds: kept
			// at its size, which every chunk after it is made at.
			l.last.obs = slices.Clone(l.last.obs)
		}
		l.full = append(l.full, l.last)
		l.last = obsChunkOf{obs: make([]keptObservation, 0, obsChunk)}
	}
	// The first chunk grows as a slice does: a whole chunk made at once (330 KB, zeroed)
	// had been a tenth of the time of a short run, which never fills one.
	l.last.add(&l.names, o)
}

// add keeps o in the chunk.
func (c *obsChunkOf) add(names *nameTable, o *Observation) {
	k := c.keep(names, o)
	if o.Msgs != nil {
		c.msgs = append(c.msgs, o.Msgs)
		k.msgs = uint32(len(c.msgs))
	}
	c.obs = append(c.obs, k)
}

// list is the observations so far. It shares the log's chunks: later adds go past the
// end of the last one it holds, where it does not look.
func (l *observationLog) list() ObservationList {
	chunks := slices.Clip(l.full)
	if len(l.last.obs) > 0 {
		chunks = append(chunks, l.last)
	}
	return ObservationList{chunks: chunks, names: l.names.all()}
}

// clone shares the full chunks (clipped, so neither log's appends reach the other's)
// and copies the one being filled.
func (l *observationLog) clone() observationLog {
	c := observationLog{full: slices.Clip(l.full), names: l.names.clone()}
	c.last = obsChunkOf{obs: slices.Clone(l.last.obs), msgs: slices.Clone(l.last.msgs), groups: slices.Clip(l.last.groups),
		rares: slices.Clip(l.last.rares), lists: slices.Clip(l.last.lists), text: slices.Clip(l.last.text)} // kept entries are never changed: appends reallocate
	return c
}

// ObservationList is a run's observations, oldest first, read in place: a long run's
// are never copied into one slice (that copy alone took 1.8 s of a run to the event
// limit). It must not be changed.
type ObservationList struct {
	chunks []obsChunkOf
	names  []string // the names the observations' ids stand for
}

// ListOf is a list of obs (facts read from elsewhere, a test's).
func ListOf(obs []Observation) ObservationList {
	var names nameTable
	c := obsChunkOf{obs: make([]keptObservation, 0, len(obs))}
	for i := range obs {
		c.add(&names, &obs[i])
	}
	return ObservationList{chunks: []obsChunkOf{c}, names: names.all()}
}

// Len is how many observations there are.
func (l ObservationList) Len() int {
	n := 0
	for _, c := range l.chunks {
		n += len(c.obs)
	}
	return n
}

// All yields each observation with its index.
func (l ObservationList) All() iter.Seq2[int, Observation] { return l.of(nil) }

// Of yields, with their indexes, only the observations of the given events: the others
// are skipped without being read out (a checker's pass over a long run's half a million
// observations for the few hundred it looks at).
func (l ObservationList) Of(events ...Event) iter.Seq2[int, Observation] { return l.of(events) }

// of yields the observations of the events, or every one for nil.
func (l ObservationList) of(events []Event) iter.Seq2[int, Observation] {
	var ids []uint32
	for _, e := range events {
		if id, ok := l.lookup(string(e)); ok {
			ids = append(ids, id)
		}
	}
	return func(yield func(int, Observation) bool) {
		i := 0
		for _, c := range l.chunks {
			for j := range c.obs {
				if (events == nil || slices.Contains(ids, c.obs[j].event)) && !yield(i, c.observation(j, l.names)) {
					return
				}
				i++
			}
		}
	}
}

// Slice is a copy of every observation in one slice (an export's).
func (l ObservationList) Slice() []Observation {
	out := make([]Observation, 0, l.Len())
	for _, c := range l.chunks {
		for j := range c.obs {
			out = append(out, c.observation(j, l.names))
		}
	}
	return out
}

// Backward yields the observations newest first, with their indexes.
func (l ObservationList) Backward() iter.Seq2[int, Observation] {
	return func(yield func(int, Observation) bool) {
		i := l.Len()
		for c := len(l.chunks) - 1; c >= 0; c-- {
			for j := len(l.chunks[c].obs) - 1; j >= 0; j-- {
				i--
				if !yield(i, l.chunks[c].observation(j, l.names)) {
					return
				}
			}
		}
	}
}

// lookup is the id of a name the list's observations use (an event's, when a pass
// looks for its observations), if any does.
func (l ObservationList) lookup(name string) (uint32, bool) {
	for id, n := range l.names {
		if n == name {
			return uint32(id), true
		}
	}
	return 0, false
}
