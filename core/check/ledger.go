package check

import (
	"fmt"
	"sort"
	"strings"

	"deliverylab/core/sim"
)

// Fates.
const (
	Delivered   = "delivered"
	Duplicated  = "duplicated"
	Lost        = "lost"
	Unavailable = "unavailable"
	Failed      = "failed"
)

// Output is one output's final facts, gathered by the scene from the world.
type Output struct {
	Name    string
	Effects map[string]int  // message identity -> number of effects
	Held    map[string]bool // no effect yet, but still held where it could be delivered
	Why     map[string]string
}

// Fate is one message's outcome in one output.
type Fate struct {
	Msg    string
	Fate   string
	En, Zh string // why, in both languages
}

// Result is the ledger of one output.
type Result struct {
	Output  string
	Verdict string
	Counts  map[string]int // sent, acked, delivered, duplicated, lost, unavailable, failed
	Fates   []Fate
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
}

// Ledger gathers the message histories of a run.
type Ledger struct {
	order []string
	hist  map[string]*history
}

// NewLedger reads a run's observations.
func NewLedger(obs []sim.Observation) *Ledger {
	l := &Ledger{hist: map[string]*history{}}
	for _, o := range obs {
		for _, m := range o.Msgs {
			h := l.hist[m]
			if h == nil {
				h = &history{}
				l.hist[m] = h
				l.order = append(l.order, m)
			}
			switch o.Event {
			case "sent":
				if !h.sent {
					h.sent, h.sentMs = true, o.AtMs
				}
			case "acked":
				if !h.acked {
					h.acked, h.ackedMs, h.ackPartition, h.ackOffset = true, o.AtMs, o.Partition, o.Offset
				}
			case "failed":
				if !h.failed {
					h.failed, h.failedMs, h.failErr = true, o.AtMs, o.Detail
				}
			case "truncated":
				h.truncatedBy, h.truncatedMs = o.Node, o.AtMs
			case "appended":
				h.appends = append(h.appends, fmt.Sprintf("%s@%d", o.Partition, o.Offset))
			case "polled":
				h.polled, h.polledMs = true, o.AtMs
				h.polls++
			case "offset-committed":
				h.committed, h.committedMs = true, o.AtMs
			case "processed":
				h.processed = true
			}
		}
	}
	return l
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

// Judge gives every message its fate in an output and the verdict.
func (l *Ledger) Judge(out Output) Result {
	r := Result{Output: out.Name, Counts: map[string]int{}}
	for _, m := range l.Messages() {
		h := l.hist[m]
		r.Counts["sent"]++
		if h.acked {
			r.Counts["acked"]++
		}
		f := l.fate(m, h, out)
		r.Counts[f.Fate]++
		r.Fates = append(r.Fates, f)
	}
	for _, k := range []string{"sent", "acked", Delivered, Duplicated, Lost, Unavailable, Failed} {
		r.Counts[k] += 0
	}
	r.Verdict = Verdict(r.Counts[Lost], r.Counts[Duplicated])
	return r
}

// Verdict names the guarantee a run showed (SCENE-FORMAT.md, Fates and verdict).
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
		return Fate{Msg: m, Fate: Delivered, En: fmt.Sprintf("one effect in %s", out.Name), Zh: fmt.Sprintf("在 %s 中恰好生效一次", out.Name)}
	case n > 1:
		return Fate{Msg: m, Fate: Duplicated, En: fmt.Sprintf("%d effects in %s%s", n, out.Name, l.dupWhy(h)),
			Zh: fmt.Sprintf("在 %s 中生效 %d 次%s", out.Name, n, l.dupWhyZh(h))}
	case !h.acked:
		if h.failed {
			return Fate{Msg: m, Fate: Failed, En: fmt.Sprintf("the producer was told it failed (%s) at %d ms", h.failErr, h.failedMs),
				Zh: fmt.Sprintf("生产者在 %d 毫秒收到失败（%s）", h.failedMs, h.failErr)}
		}
		return Fate{Msg: m, Fate: Failed, En: "never acknowledged: the producer died or the run ended before it was told",
			Zh: "从未被确认：生产者在得到答复前崩溃或运行已结束"}
	case out.Held[m]:
		why := out.Why[m]
		return Fate{Msg: m, Fate: Unavailable, En: "acknowledged, not yet in " + out.Name + ": still held by " + why,
			Zh: "已确认，尚未进入 " + out.Name + "：仍保存在 " + why}
	}
	return Fate{Msg: m, Fate: Lost, En: l.lostWhy(h, out), Zh: l.lostWhyZh(h, out)}
}

func (l *Ledger) lostWhy(h *history, out Output) string {
	ack := fmt.Sprintf("acknowledged at %d ms", h.ackedMs)
	if h.ackOffset >= 0 && h.ackPartition != "" {
		ack = fmt.Sprintf("acknowledged at %d ms (offset %d of %s)", h.ackedMs, h.ackOffset, h.ackPartition)
	} else if h.ackOffset < 0 {
		ack = fmt.Sprintf("acknowledged at %d ms without waiting for the broker (acks=0)", h.ackedMs)
	}
	switch {
	case h.truncatedBy != "":
		return fmt.Sprintf("%s, then truncated from %s's log at %d ms when it followed a new leader that never had it", ack, h.truncatedBy, h.truncatedMs)
	case h.polled && h.committed && !h.processed:
		return fmt.Sprintf("%s, polled at %d ms and its offset committed at %d ms, but the consumer crashed before processing it", ack, h.polledMs, h.committedMs)
	case h.polled && !h.processed:
		return fmt.Sprintf("%s and polled at %d ms, but never processed, and the group's committed offset is past it", ack, h.polledMs)
	}
	return fmt.Sprintf("%s, but no log that could still deliver it holds it and %s never got it", ack, out.Name)
}

func (l *Ledger) lostWhyZh(h *history, out Output) string {
	ack := fmt.Sprintf("在 %d 毫秒被确认", h.ackedMs)
	if h.ackOffset < 0 {
		ack = fmt.Sprintf("在 %d 毫秒被确认，但没有等待 broker（acks=0）", h.ackedMs)
	}
	switch {
	case h.truncatedBy != "":
		return fmt.Sprintf("%s，随后在 %d 毫秒从 %s 的日志中被截断：新的 leader 从未拥有它", ack, h.truncatedMs, h.truncatedBy)
	case h.polled && h.committed && !h.processed:
		return fmt.Sprintf("%s，在 %d 毫秒被拉取、%d 毫秒提交了位移，但消费者在处理前崩溃", ack, h.polledMs, h.committedMs)
	case h.polled && !h.processed:
		return fmt.Sprintf("%s，在 %d 毫秒被拉取但从未处理，而消费组已提交的位移已越过它", ack, h.polledMs)
	}
	return fmt.Sprintf("%s，但已没有任何日志能再交付它，%s 也从未收到", ack, out.Name)
}

func (l *Ledger) dupWhy(h *history) string {
	switch {
	case len(h.appends) > 1:
		return fmt.Sprintf(": appended %d times (%s): the producer retried a request whose answer never came", len(h.appends), strings.Join(h.appends, ", "))
	case h.polls > 1:
		return fmt.Sprintf(": polled %d times: the consumer read it again from an older committed offset", h.polls)
	}
	return ""
}

func (l *Ledger) dupWhyZh(h *history) string {
	switch {
	case len(h.appends) > 1:
		return fmt.Sprintf("：被追加了 %d 次（%s）：生产者重试了一个没有得到应答的请求", len(h.appends), strings.Join(h.appends, "，"))
	case h.polls > 1:
		return fmt.Sprintf("：被拉取了 %d 次：消费者从较早的已提交位移重新读取了它", h.polls)
	}
	return ""
}

// Errors counts error observations by name (retried ones too).
func Errors(obs []sim.Observation) map[string]int {
	out := map[string]int{}
	for _, o := range obs {
		if o.Event == "error" && o.Detail != "" {
			out[o.Detail]++
		}
	}
	return out
}

// SortedKeys lists a count map's keys in order.
func SortedKeys(m map[string]int) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
