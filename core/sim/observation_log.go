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
	full [][]keptObservation // chunks of obsChunk each, read-only
	last []keptObservation   // the chunk being filled
}

func (l *observationLog) add(o Observation) {
	if len(l.last) == obsChunk {
		l.full = append(l.full, l.last)
		l.last = nil
	}
	// The chunk grows as a slice does: a whole chunk made at once (1.3 MB, zeroed) had
	// been a tenth of the time of a short run, which never fills one.
	l.last = append(l.last, keep(o))
}

// list is the observations so far. It shares the log's chunks: later adds go past the
// end of the last one it holds, where it does not look.
func (l *observationLog) list() ObservationList {
	chunks := slices.Clip(l.full)
	if len(l.last) > 0 {
		chunks = append(chunks, l.last)
	}
	return ObservationList{chunks: chunks}
}

// clone shares the full chunks (clipped, so neither log's appends reach the other's)
// and copies the one being filled.
func (l *observationLog) clone() observationLog {
	c := observationLog{full: slices.Clip(l.full)}
	c.last = slices.Clone(l.last)
	return c
}

// ObservationList is a run's observations, oldest first, read in place: a long run's
// are never copied into one slice (that copy alone took 1.8 s of a run to the event
// limit). It must not be changed.
type ObservationList struct {
	chunks [][]keptObservation
}

// ListOf is a list of obs (facts read from elsewhere, a test's).
func ListOf(obs []Observation) ObservationList {
	kept := make([]keptObservation, len(obs))
	for i, o := range obs {
		kept[i] = keep(o)
	}
	return ObservationList{chunks: [][]keptObservation{kept}}
}

// Len is how many observations there are.
func (l ObservationList) Len() int {
	n := 0
	for _, c := range l.chunks {
		n += len(c)
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
	return func(yield func(int, Observation) bool) {
		i := 0
		for _, c := range l.chunks {
			for j := range c {
				if (events == nil || slices.Contains(events, c[j].Event)) && !yield(i, c[j].observation()) {
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
		for j := range c {
			out = append(out, c[j].observation())
		}
	}
	return out
}

// Backward yields the observations newest first, with their indexes.
func (l ObservationList) Backward() iter.Seq2[int, Observation] {
	return func(yield func(int, Observation) bool) {
		i := l.Len()
		for c := len(l.chunks) - 1; c >= 0; c-- {
			for j := len(l.chunks[c]) - 1; j >= 0; j-- {
				i--
				if !yield(i, l.chunks[c][j].observation()) {
					return
				}
			}
		}
	}
}
