package check

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"deliverylab/core/apps"
	"deliverylab/core/fate"
	"deliverylab/core/kafka/protocol"
	"deliverylab/core/sim"
	"deliverylab/core/sinks"
)

// Output is one output's final facts, gathered by the scene from the world.
type Output struct {
	Name    string
	Effects map[string]int         // message identity -> number of effects
	Held    map[string]fate.Reason // no effect yet, but still held where it could be delivered: where
	Past    map[string]fate.Reason // never read, still in a log but below the group's committed offset
	// Values: a counter's output, the value each message adds to the total; nil for
	// other outputs.
	Values map[string]int64
	// Absent: messages that reached the output and left no effect, and why (an upsert
	// with the same key overwrote the row, a unique key was taken).
	Absent map[string]fate.Reason
	// ReadAborted: how many times the output's readers polled each message from a
	// transaction that aborted (read_uncommitted).
	ReadAborted map[string]int
	// TotalsOf: the output is a dashboard of a Flink job's totals (a count or sum) of this
	// input topic: an effect is a fold into its key's last total.
	TotalsOf string
	// OnlyAborted: the messages that reached the topics the output's readers read only
	// inside transactions that aborted, and where ("out-0@3").
	OnlyAborted map[string][]string
}

// Total is a counter's total as the dashboard shows it, beside the one it should show:
// every message that was acknowledged or reached it, added once.
type Total struct {
	Shown    int64 `json:"shown"`
	Expected int64 `json:"expected"`
}

// Fate is one message's outcome in one output, and why.
type Fate struct {
	Msg    string
	Fate   fate.Name
	Reason fate.Reason
	AtMs   int64    // when the fate was decided (decidedAt); -1 unknown
	Path   []string // the nodes the message visited, in order, no repeats side by side
}

// Result is the ledger of one output.
type Result struct {
	Output  string
	Verdict string
	Counts  map[string]int // sent, acked, delivered, duplicated, lost, unavailable, failed
	Fates   []Fate
	Total   *Total // a counter's output only
}

// history is what the observations say about one message.
type history struct {
	sentMs, ackedMs, failedMs    int64
	acked, failed, sent          bool
	failErr                      string
	ackPartition                 string
	ackOffset                    int64
	truncatedBy                  string
	truncatedMs                  int64
	polledMs, committedMs        int64
	polled, committed, processed bool
	appends                      []string // "partition@offset" of each leader append
	polls                        int
	writtenBy                    map[string]int // writes per node that wrote it on (a Streams application's outputs)
	visits                       []visit        // every observation of it, for its path and when its fate was decided
}

// Ledger gathers the message histories of a run.
type Ledger struct {
	order []string
	hist  map[string]*history
}

// NewLedger reads a run's observations.
func NewLedger(obs sim.ObservationList) *Ledger {
	l := &Ledger{hist: map[string]*history{}}
	for _, o := range obs.All() {
		for _, m := range o.Msgs {
			h := l.hist[m]
			if h == nil {
				h = &history{}
				l.hist[m] = h
				l.order = append(l.order, m)
			}
			h.add(o)
		}
	}
	return l
}

func (h *history) add(o sim.Observation) {
	h.visits = append(h.visits, visit{node: o.Node, output: o.Output, event: o.Event, atMs: o.AtMs})
	switch o.Event {
	case apps.Sent:
		if !h.sent {
			h.sent, h.sentMs = true, o.AtMs
		}
	case apps.Acked:
		if !h.acked {
			h.acked, h.ackedMs, h.ackPartition, h.ackOffset = true, o.AtMs, o.Partition, o.Offset
		}
	case apps.Failed:
		if !h.failed {
			h.failed, h.failedMs, h.failErr = true, o.AtMs, o.Err
		}
	case protocol.Truncated:
		h.truncatedBy, h.truncatedMs = o.Node, o.AtMs
	case protocol.Appended:
		h.appends = append(h.appends, fmt.Sprintf("%s@%d", o.Partition, o.Offset))
	case apps.Polled:
		h.polled, h.polledMs = true, o.AtMs
		h.polls++
	case protocol.OffsetCommitted:
		h.committed, h.committedMs = true, o.AtMs
	case apps.Processed:
		h.processed = true
	case sinks.Written:
		if h.writtenBy == nil {
			h.writtenBy = map[string]int{}
		}
		h.writtenBy[o.Node]++
	}
}

// Messages lists the application messages sent, in order of first send.
func (l *Ledger) Messages() []string {
	var out []string
	for _, m := range l.order {
		if l.hist[m].sent {
			out = append(out, m)
		}
	}
	return out
}

// Acked reports whether the producer application was told the message succeeded.
func (l *Ledger) Acked(msg string) bool { h := l.hist[msg]; return h != nil && h.acked }

// CountNames are the keys of Result.Counts, in the order reports print them.
var CountNames = []string{"sent", "acked", string(fate.Delivered), string(fate.Duplicated), string(fate.Lost), string(fate.Unavailable), string(fate.Failed)}

// Judge gives every message its fate in an output and the verdict.
func (l *Ledger) Judge(out Output) Result {
	r := Result{Output: out.Name, Counts: map[string]int{}}
	for _, k := range CountNames {
		r.Counts[k] = 0
	}
	for _, m := range l.Messages() {
		h := l.hist[m]
		r.Counts["sent"]++
		if h.acked {
			r.Counts["acked"]++
		}
		f := l.fate(m, h, out)
		f.AtMs, f.Path = decidedAt(f.Fate, h, out.Name), h.path()
		r.Counts[string(f.Fate)]++
		r.Fates = append(r.Fates, f)
		r.Total = addToTotal(r.Total, out, f)
	}
	r.Verdict = Verdict(r.Counts[string(fate.Lost)], r.Counts[string(fate.Duplicated)])
	return r
}

// addToTotal counts one message into a counter's totals: shown as often as it was
// added, expected once unless it failed (never acknowledged, never added).
func addToTotal(t *Total, out Output, f Fate) *Total {
	if out.Values == nil {
		return nil
	}
	if t == nil {
		t = &Total{}
	}
	v := out.Values[f.Msg]
	t.Shown += int64(out.Effects[f.Msg]) * v
	if f.Fate != fate.Failed {
		t.Expected += v
	}
	return t
}

// Verdict names the guarantee a run showed (scenes/README.md, Fates and verdicts).
func Verdict(lost, duplicated int) string {
	switch {
	case lost == 0 && duplicated == 0:
		return "exactly-once"
	case lost == 0:
		return "at-least-once"
	case duplicated == 0:
		return "at-most-once"
	}
	return "none"
}

func (l *Ledger) fate(m string, h *history, out Output) Fate {
	n := out.Effects[m]
	switch {
	case n == 1:
		return Fate{Msg: m, Fate: fate.Delivered, Reason: fate.Because(fate.OneEffect, "output", out.Name)}
	case n > 1:
		return Fate{Msg: m, Fate: fate.Duplicated, Reason: fate.Because(fate.ManyEffects, "count", num(n), "output", out.Name).Then(dupWhy(m, h, out))}
	case !h.acked && h.failed:
		return Fate{Msg: m, Fate: fate.Failed, Reason: fate.Because(fate.FailedTold, "err", h.failErr, "ms", ms(h.failedMs))}
	case !h.acked:
		return Fate{Msg: m, Fate: fate.Failed, Reason: fate.Because(fate.FailedUntold)}
	}
	if where, held := out.Held[m]; held {
		return Fate{Msg: m, Fate: fate.Unavailable, Reason: fate.Because(fate.NotYetIn, "output", out.Name).Then(where)}
	}
	return Fate{Msg: m, Fate: fate.Lost, Reason: ackHow(h).Then(lostWhy(m, h, out))}
}

// ackHow says how a lost message was acknowledged.
func ackHow(h *history) fate.Reason {
	switch {
	case h.ackOffset >= 0 && h.ackPartition != "":
		return fate.Because(fate.AckedAtOffset, "ms", ms(h.ackedMs), "offset", ms(h.ackOffset), "partition", h.ackPartition)
	case h.ackOffset < 0:
		return fate.Because(fate.AckedNoWait, "ms", ms(h.ackedMs))
	}
	return fate.Because(fate.AckedAt, "ms", ms(h.ackedMs))
}

func lostWhy(m string, h *history, out Output) fate.Reason {
	if why, ok := out.Absent[m]; ok {
		return why
	}
	switch {
	case h.truncatedBy != "":
		return fate.Because(fate.Truncated, "node", h.truncatedBy, "ms", ms(h.truncatedMs))
	case h.polled && h.committed && !h.processed:
		return fate.Because(fate.CrashedBefore, "polled", ms(h.polledMs), "committed", ms(h.committedMs))
	case h.polled && !h.processed:
		return fate.Because(fate.NeverProcessed, "polled", ms(h.polledMs))
	}
	if where, ok := out.Past[m]; ok && !h.polled {
		return where
	}
	if places := out.OnlyAborted[m]; len(places) > 0 && !h.polled {
		return fate.Because(fate.OnlyAborted, "places", joinPlaces(places))
	}
	return fate.Because(fate.Gone, "output", out.Name)
}

func dupWhy(m string, h *history, out Output) fate.Reason {
	output := out.Name
	// Copies the writer took back (aborted) and the reader read anyway explain the
	// effects first: the writes themselves were undone.
	if c := out.ReadAborted[m]; c > 0 {
		return fate.Because(fate.ReadAborted, "count", num(c), "output", output)
	}
	// A total that holds it twice was folded twice from one copy in the input, unless
	// the input holds two.
	if out.TotalsOf != "" && appendsTo(h.appends, out.TotalsOf) <= 1 {
		return fate.Because(fate.FoldedTwice, "count", num(out.Effects[m]))
	}
	// A node between the producer and the output that wrote it on more than once (a
	// Streams application that read its input again) explains the copies first: its
	// outputs are appends of their own. (A sink's own writes are the output's.)
	if jobs := jobSinks(h.writtenBy, output); len(jobs) > 1 {
		return fate.Because(fate.WrittenByJobs, "nodes", strings.Join(jobs, ", "))
	}
	for _, node := range slices.Sorted(maps.Keys(h.writtenBy)) {
		if c := h.writtenBy[node]; node != output && c > 1 {
			if sim.PortOf(node) != "" {
				return fate.Because(fate.ReplayedByJob, "count", num(c), "node", node) // a Flink job's sink subtask
			}
			return fate.Because(fate.ProcessedAgain, "count", num(c), "node", node)
		}
	}
	switch {
	case len(h.appends) > 1:
		return fate.Because(fate.AppendedTwice, "count", num(len(h.appends)), "places", joinPlaces(h.appends))
	case h.polls > 1:
		return fate.Because(fate.PolledTwice, "count", num(h.polls))
	}
	return fate.Reason{}
}

// jobSinks lists the Flink jobs' sink subtasks ("job/sink-0") that wrote a message, one
// per job, sorted; the output's own writes are not theirs.
func jobSinks(writtenBy map[string]int, output string) []string {
	var out []string
	seen := map[string]bool{}
	for _, node := range slices.Sorted(maps.Keys(writtenBy)) {
		if node != output && sim.PortOf(node) != "" && !seen[sim.NodeOf(node)] {
			seen[sim.NodeOf(node)] = true
			out = append(out, node)
		}
	}
	return out
}

// appendsTo counts the appends ("orders-0@3") to a topic's partitions.
func appendsTo(places []string, topic string) int {
	n := 0
	for _, p := range places {
		tp, _, _ := strings.Cut(p, "@")
		if i := strings.LastIndexByte(tp, '-'); i >= 0 && tp[:i] == topic {
			n++
		}
	}
	return n
}

func joinPlaces(places []string) string { return strings.Join(places, ", ") }

// Errors counts error observations by name (retried ones too).
func Errors(obs sim.ObservationList) map[string]int {
	out := map[string]int{}
	for _, o := range obs.Of(protocol.ClientError) {
		if o.Err != "" {
			out[o.Err]++
		}
	}
	return out
}

// ClientErrors counts error observations by the client that received them, then by name.
func ClientErrors(obs sim.ObservationList) map[string]map[string]int {
	out := map[string]map[string]int{}
	for _, o := range obs.Of(protocol.ClientError) {
		if o.Err == "" {
			continue
		}
		if out[o.Node] == nil {
			out[o.Node] = map[string]int{}
		}
		out[o.Node][o.Err]++
	}
	return out
}

func ms(v int64) string { return strconv.FormatInt(v, 10) }
func num(v int) string  { return strconv.Itoa(v) }
