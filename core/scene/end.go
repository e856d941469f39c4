package scene

import (
	"strconv"
	"strings"

	"deliverylab/core/fate"
	"deliverylab/core/sim"
)

// waiter is a node that can say what it waits for while it has not settled.
type waiter interface {
	WaitsFor(v sim.View) []fate.Reason
}

// endWhy says why a run that did not settle ended, and what it still waited for.
func (r *Run) endWhy(note EndNote) []fate.Reason {
	w := r.World
	var head fate.Reason
	switch note {
	case EndFrozen:
		f := w.Frozen()
		if f == nil {
			return nil
		}
		// A frozen run waits for nothing: it loops.
		return []fate.Reason{fate.Because(fate.EndedFrozen, "ms", itoa(f.AtMs), "events", itoa(f.Events), "loop", f.Steps())}
	case EndEvents:
		head = fate.Because(fate.EndedEvents, "events", itoa(w.EventsRun()))
	case EndTimeLimit:
		head = fate.Because(fate.EndedTime, "ms", itoa(w.NowMs()))
	default:
		return nil
	}
	return append([]fate.Reason{head}, r.waits()...)
}

// waits lists what the run waits for: the script, the wire, and each node that has not
// settled, in its own words.
func (r *Run) waits() []fate.Reason {
	w := r.World
	var out []fate.Reason
	if w.PendingFaults() {
		out = append(out, fate.Because(fate.WaitsForScript))
	}
	for _, name := range w.PausedHolding() {
		out = append(out, fate.Because(fate.WaitsForResume, "node", name, "count", strconv.Itoa(w.Held(name))))
	}
	if n := w.Busy(); n > 0 {
		out = append(out, fate.Because(fate.WaitsForWire, "count", strconv.Itoa(n)))
	}
	for _, name := range w.Unsettled() {
		if wt, ok := nodeAs[waiter](w, name); ok {
			if why := wt.WaitsFor(w); len(why) > 0 {
				out = append(out, why...)
				continue
			}
		}
		out = append(out, fate.Because(fate.WaitsForNode, "node", name))
	}
	return out
}

// EndText renders why the run ended without settling ("" when it settled or stopped
// at stop.ms): the reason, then what it still waited for.
func (r *Run) EndText(lang fate.Lang) string { return endText(r.why, lang) }

func endText(why []fate.Reason, lang fate.Lang) string {
	if len(why) == 0 {
		return ""
	}
	colon, semi := fate.Because(fate.ListColon).Text(lang), fate.Because(fate.ListSep).Text(lang)
	head := why[0].Text(lang)
	if len(why) == 1 {
		return head
	}
	rest := make([]string, len(why)-1)
	for i, w := range why[1:] {
		rest[i] = w.Text(lang)
	}
	return head + colon + strings.Join(rest, semi)
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
