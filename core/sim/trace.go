package sim

import "strconv"

// Trace is the ordered text of every event, and a running hash of it: the determinism
// check. Lines may be discarded (Keep=false) when only the hash is wanted.
type Trace struct {
	Keep  bool
	Lines []string
	hash  uint64
}

func newTrace() Trace { return Trace{Keep: true, hash: 14695981039346656037} }

// Hash is the FNV-1a hash of every line so far, in hex.
func (t *Trace) Hash() string { return strconv.FormatUint(t.hash, 16) }

func (t *Trace) add(line string) {
	for i := 0; i < len(line); i++ {
		t.hash ^= uint64(line[i])
		t.hash *= 1099511628211
	}
	t.hash ^= '\n'
	t.hash *= 1099511628211
	if t.Keep {
		t.Lines = append(t.Lines, line)
	}
}

func (w *World) traceLine(text string) {
	w.trace.add(strconv.FormatInt(w.nowMs, 10) + " " + text)
}
