package sinks

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"deliverylab/core/sim"
)

// The XA side of a transactional sink: what a Flink job's two-phase-commit database sink
// needs (flink-connector-jdbc's exactly-once JdbcSink, XaTransaction): rows written into
// a transaction branch named by its xid, the branch prepared at the checkpoint barrier,
// committed once the checkpoint completes, rolled back when no checkpoint recorded it.
// The database keeps what XA makes it keep: a prepared branch survives a crash of the
// database and of its client, an active (not yet prepared) one does not; only committed
// rows are rows a reader sees, and so the only effects the ledger counts.

// XaState is a branch's state in the database.
type XaState uint8

// The branch states.
const (
	XaActive   XaState = iota // rows written, not prepared: lost if the database crashes
	XaPrepared                // prepared: durable, waiting for its commit or rollback
)

// xaBranch is one transaction branch: its rows, not visible until it commits.
type xaBranch struct {
	State XaState
	Rows  []Row
}

// XaWrite writes a row into the branch Xid; Start says it is the branch's first (the
// writer's xa_start). It is answered WriteAck, or XaDone with XAER_NOTA when the branch
// is prepared already, or is not there although the writer wrote into it before: the
// database lost it in a crash, with the rows written so far.
type XaWrite struct {
	ReqID int64
	Xid   string
	Start bool
	Msg   string
	Key   string
	Value string
}

// XaOp is what an XaRequest asks of a branch.
type XaOp uint8

// The branch operations (XA's xa_prepare, xa_commit, xa_rollback).
const (
	XaPrepare XaOp = iota + 1
	XaCommit
	XaRollback
)

var xaOpNames = [...]string{XaPrepare: "prepare", XaCommit: "commit", XaRollback: "rollback"}

func (o XaOp) String() string {
	if int(o) < len(xaOpNames) && xaOpNames[o] != "" {
		return xaOpNames[o]
	}
	return fmt.Sprintf("XaOp(%d)", o)
}

// XaRequest prepares, commits or rolls back the branch Xid; answered XaDone.
type XaRequest struct {
	ReqID int64
	Op    XaOp
	Xid   string
}

// XaDone answers an XaRequest (or an XaWrite the branch refused). Err is XAER_NOTA when
// the database knows no such branch (already committed or rolled back, or lost with the
// database's crash before it was prepared), "" when done.
type XaDone struct {
	ReqID int64
	Err   string
}

// XaErrNoTransaction is XA's XAER_NOTA: the xid names no branch the database holds.
const XaErrNoTransaction = "XAER_NOTA"

// XaRecover lists the prepared branches whose xid starts with Prefix (xa_recover), the
// restarted writer's first request. The database has already rolled back the writer's
// active branches with that prefix: their session ended when the writer failed.
type XaRecover struct {
	ReqID  int64
	Prefix string
}

// XaRecovered answers XaRecover: the prepared xids, sorted.
type XaRecovered struct {
	ReqID int64
	Xids  []string
}

// IsRequest makes a request to a crashed sink fail fast.
func (XaWrite) IsRequest() bool   { return true }
func (XaRequest) IsRequest() bool { return true }
func (XaRecover) IsRequest() bool { return true }

func (XaWrite) Kind() string     { return "XaWrite" }
func (XaRequest) Kind() string   { return "XaRequest" }
func (XaDone) Kind() string      { return "XaDone" }
func (XaRecover) Kind() string   { return "XaRecover" }
func (XaRecovered) Kind() string { return "XaRecovered" }

func (w XaWrite) Describe() string {
	if w.Start {
		return fmt.Sprintf("XaWrite req=%d %s xid=%s start", w.ReqID, w.Msg, w.Xid)
	}
	return fmt.Sprintf("XaWrite req=%d %s xid=%s", w.ReqID, w.Msg, w.Xid)
}
func (r XaRequest) Describe() string {
	return fmt.Sprintf("XaRequest req=%d %s xid=%s", r.ReqID, r.Op, r.Xid)
}
func (d XaDone) Describe() string {
	if d.Err != "" {
		return fmt.Sprintf("XaDone req=%d %s", d.ReqID, d.Err)
	}
	return fmt.Sprintf("XaDone req=%d", d.ReqID)
}
func (r XaRecover) Describe() string { return fmt.Sprintf("XaRecover req=%d %s*", r.ReqID, r.Prefix) }
func (r XaRecovered) Describe() string {
	return fmt.Sprintf("XaRecovered req=%d [%s]", r.ReqID, strings.Join(r.Xids, " "))
}

func (w XaWrite) Label() string   { return w.Msg }
func (r XaRequest) Label() string { return r.Op.String() }
func (XaRecover) Label() string   { return "recover" }

// Numbered is an XA request or an answer to one: it carries the writer's request id.
type Numbered interface{ RequestID() int64 }

func (w XaWrite) RequestID() int64     { return w.ReqID }
func (r XaRequest) RequestID() int64   { return r.ReqID }
func (r XaRecover) RequestID() int64   { return r.ReqID }
func (d XaDone) RequestID() int64      { return d.ReqID }
func (r XaRecovered) RequestID() int64 { return r.ReqID }
func (a WriteAck) RequestID() int64    { return a.ReqID }

func (XaWrite) Family() sim.Family     { return sim.Sink }
func (XaRequest) Family() sim.Family   { return sim.Sink }
func (XaDone) Family() sim.Family      { return sim.Sink }
func (XaRecover) Family() sim.Family   { return sim.Sink }
func (XaRecovered) Family() sim.Family { return sim.Sink }

// xaBranches is the transactional sink's XA store, by xid.
type xaBranches map[string]*xaBranch

func (b xaBranches) clone() xaBranches {
	c := make(xaBranches, len(b))
	for k, v := range b {
		nb := *v
		nb.Rows = slices.Clone(v.Rows)
		c[k] = &nb
	}
	return c
}

// crash drops the active branches: a database that restarts rolls back every
// transaction that was not prepared.
func (b xaBranches) crash() {
	for k, v := range b {
		if v.State == XaActive {
			delete(b, k)
		}
	}
}

// receiveXa handles the XA requests; it reports whether m was one.
func (t *Transactional) receiveXa(env *sim.Env, m sim.Message) bool {
	switch p := m.Payload.(type) {
	case XaWrite:
		br := t.xa[p.Xid]
		if br == nil && p.Start {
			br = &xaBranch{}
			t.xa[p.Xid] = br
		}
		if br == nil || br.State != XaActive {
			env.Send(m.From, XaDone{ReqID: p.ReqID, Err: XaErrNoTransaction})
			return true
		}
		br.Rows = append(br.Rows, Row{Msg: p.Msg, Key: p.Key, Value: p.Value})
		env.Send(m.From, WriteAck{ReqID: p.ReqID})
	case XaRequest:
		env.Send(m.From, XaDone{ReqID: p.ReqID, Err: t.xaDo(env, p)})
	case XaRecover:
		var xids []string
		for _, x := range slices.Sorted(maps.Keys(t.xa)) {
			if !strings.HasPrefix(x, p.Prefix) {
				continue
			}
			if t.xa[x].State == XaActive {
				delete(t.xa, x) // its session is over
				continue
			}
			xids = append(xids, x)
		}
		env.Send(m.From, XaRecovered{ReqID: p.ReqID, Xids: xids})
	default:
		return false
	}
	return true
}

// xaDo prepares, commits or rolls back a branch; it returns the XA error, "" if done.
func (t *Transactional) xaDo(env *sim.Env, r XaRequest) string {
	br := t.xa[r.Xid]
	if br == nil {
		return XaErrNoTransaction
	}
	switch r.Op {
	case XaPrepare:
		if br.State != XaActive {
			return XaErrNoTransaction
		}
		br.State = XaPrepared
	case XaCommit:
		// A commit of an active branch is a one-phase commit; a database allows it, and
		// the writer never asks for it.
		delete(t.xa, r.Xid)
		for _, row := range br.Rows {
			t.Rows = append(t.Rows, row)
			env.Observe(sim.Observation{Event: Written, Msgs: []string{row.Msg}, Output: t.name})
		}
	case XaRollback:
		delete(t.xa, r.Xid)
	}
	return ""
}

// Branches lists the branches the database holds, sorted by xid: each one's state and
// how many rows it would commit.
func (t *Transactional) Branches() []Branch {
	out := make([]Branch, 0, len(t.xa))
	for _, x := range slices.Sorted(maps.Keys(t.xa)) {
		out = append(out, Branch{Xid: x, State: t.xa[x].State, Rows: len(t.xa[x].Rows)})
	}
	return out
}

// Branch is one transaction branch as the database holds it.
type Branch struct {
	Xid   string
	State XaState
	Rows  int
}
