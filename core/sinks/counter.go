package sinks

import (
	"slices"
	"strconv"

	"deliverylab/core/fate"
	"deliverylab/core/show"
	"deliverylab/core/sim"
)

// Counter is a live dashboard: it adds each record's value to a running total that the
// whole world reads. A re-delivered record is added again (the total overcounts); a lost
// one is never added (it undercounts). The scene parser makes sure the values reaching
// it are whole numbers.
type Counter struct {
	base
	Total  int64
	Folded []string // the identities added to the total, in order (one per addition)
}

// NewCounter makes a counter at zero.
func NewCounter(name string) *Counter { return &Counter{base: base{name: name}} }

// Clone implements sim.Node.
func (c *Counter) Clone() sim.Node {
	n := *c
	n.Folded = slices.Clone(c.Folded)
	return &n
}

// Receive adds a record's value to the total.
func (c *Counter) Receive(env *sim.Env, m sim.Message) {
	w, ok := m.Payload.(Write)
	if !ok {
		return
	}
	v, _ := strconv.ParseInt(w.Value, 10, 64) // whole numbers only: see the parser
	c.Total += v
	c.Folded = append(c.Folded, w.Msg)
	c.written(env, m, w)
}

// Effects counts how many times each message was added to the final total.
func (c *Counter) Effects() map[string]int {
	out := map[string]int{}
	for _, m := range c.Folded {
		out[m]++
	}
	return out
}

// Show implements show.Shower: what was added, and the total the dashboard shows.
func (c *Counter) Show(sim.View) show.Node {
	return show.Node{Kind: show.Sink, Rows: slices.Clone(c.Folded), Status: fate.Because(fate.StatusTotal, "total", strconv.FormatInt(c.Total, 10))}
}
