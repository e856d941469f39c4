package sim

import (
	"encoding/binary"
	"math/bits"
	"strconv"
)

// Trace is the ordered text of every event, and a running hash of it: the determinism
// check. Lines may be discarded (Keep=false) when only the hash is wanted.
type Trace struct {
	Keep bool
	// Off: no line is written, not even into the hash (a run only its outcome matters
	// for: the explorer's branches). Set it before the first event.
	Off   bool
	Lines []Line
	// Tail, when above 0, keeps only about the last Tail lines: for a reader (the page)
	// that shows the end of the trace, and must not hold a long run's whole text.
	Tail int
	hash uint64
}

// Line is one trace line: "42 send #7 p1->broker-1 Produce …".
type Line struct {
	Text string
	// Background marks lines about background traffic (see Background), which readable
	// timelines leave out; the hash covers every line.
	Background bool
}

func newTrace() Trace { return Trace{Keep: true, hash: 14695981039346656037} }

// Hash is a hash of every line so far, each followed by a newline, in hex: FNV-1a's
// multiply-and-xor taken eight bytes at a time (and rotated, so that every byte of a
// word reaches every bit), then byte by byte for a line's last few bytes. A line's
// every byte is hashed at every event: one byte a step had been a tenth of the
// kernel's time.
func (t *Trace) Hash() string { return strconv.FormatUint(t.hash, 16) }

// add hashes one line and keeps it if asked to; text is the caller's buffer, copied
// only when the line is kept.
func (t *Trace) add(text []byte, background bool) {
	const prime = 1099511628211
	h, rest := t.hash, text
	for ; len(rest) >= 8; rest = rest[8:] {
		h = bits.RotateLeft64((h^binary.LittleEndian.Uint64(rest))*prime, 31)
	}
	for _, c := range rest {
		h = (h ^ uint64(c)) * prime
	}
	t.hash = (h ^ '\n') * prime
	if t.Keep {
		t.Lines = append(t.Lines, Line{Text: string(text), Background: background})
		if t.Tail > 0 && len(t.Lines) >= 2*t.Tail {
			t.Lines = append([]Line(nil), t.Lines[len(t.Lines)-t.Tail:]...)
		}
	}
}

// Tracing reports whether the trace is written: callers skip composing a line that
// would be thrown away.
func (w *World) Tracing() bool { return !w.trace.Off }

// traceLine writes the line "<now> <parts…>". It is put together in a buffer the world
// reuses rather than by adding strings: a line is written for every event, and each +
// had been a new string the size of the line.
func (w *World) traceLine(background bool, parts ...string) {
	if w.trace.Off {
		return
	}
	b := w.lineStart()
	for _, p := range parts {
		b = append(b, p...)
	}
	w.lineEnd(b, background)
}

// lineStart begins a trace line in the reused buffer: "<now> ".
func (w *World) lineStart() []byte {
	return append(strconv.AppendInt(w.lineBuf[:0], w.nowMs, 10), ' ')
}

// lineEnd hashes (and keeps, if asked) the line b, keeping its buffer for the next.
func (w *World) lineEnd(b []byte, background bool) {
	w.lineBuf = b
	w.trace.add(b, background)
}

// traceMessage writes what happened to a message on the wire: "<now> <verb> " and the
// message as Message.Describe has it.
func (w *World) traceMessage(verb string, m Message) {
	if w.trace.Off {
		return
	}
	b := append(append(w.lineStart(), verb...), ' ')
	w.lineEnd(m.appendDescribe(b), m.background)
}

// Texts lists the text of the lines kept, oldest first; background lines are left out
// unless all is true.
func (t *Trace) Texts(all bool) []string {
	out := make([]string, 0, len(t.Lines))
	for _, l := range t.Lines {
		if all || !l.Background {
			out = append(out, l.Text)
		}
	}
	return out
}
