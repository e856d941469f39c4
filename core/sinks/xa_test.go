package sinks

import (
	"testing"

	"deliverylab/core/fate"
	"deliverylab/core/sim"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A branch's rows are rows only once it commits; a crash of the database rolls back the
// active branches and keeps the prepared ones; xa_recover lists a writer's prepared
// branches and ends its active ones; a commit of a branch the database no longer holds
// is answered XAER_NOTA.
func TestXaBranchesCommitPrepareAndSurviveWhatXaKeeps(t *testing.T) {
	w, app, node := world(t, TransactionalKind)
	db := node.(*Transactional)
	send := func(p sim.Payload) sim.Payload {
		w.SendAs("app", "db", p)
		w.RunUntil(w.NowMs()+10, nil)
		return app.Last
	}
	send(XaWrite{ReqID: 1, Xid: "job-sink-0-1", Start: true, Msg: "p1#1"})
	send(XaWrite{ReqID: 2, Xid: "job-sink-0-1", Msg: "p1#2"})
	send(XaWrite{ReqID: 3, Xid: "job-sink-0-2", Start: true, Msg: "p1#3"})
	send(XaWrite{ReqID: 4, Xid: "job-sink-1-2", Start: true, Msg: "p1#4"})
	send(XaRequest{ReqID: 5, Op: XaPrepare, Xid: "job-sink-0-1"})
	assert.Empty(t, db.Effects(), "nothing is committed yet")
	assert.Equal(t, []Branch{{Xid: "job-sink-0-1", State: XaPrepared, Rows: 2}, {Xid: "job-sink-0-2", State: XaActive, Rows: 1},
		{Xid: "job-sink-1-2", State: XaActive, Rows: 1}}, db.Branches())

	got := send(XaRecover{ReqID: 6, Prefix: "job-sink-0-"})
	assert.Equal(t, XaRecovered{ReqID: 6, Xids: []string{"job-sink-0-1"}}, got, "the prepared branch, not the active one")
	assert.Equal(t, []Branch{{Xid: "job-sink-0-1", State: XaPrepared, Rows: 2}, {Xid: "job-sink-1-2", State: XaActive, Rows: 1}},
		db.Branches(), "the recovering writer's active branch is rolled back, another subtask's stays")

	db.Crash()
	assert.Equal(t, []Branch{{Xid: "job-sink-0-1", State: XaPrepared, Rows: 2}}, db.Branches(), "a crash keeps only the prepared")
	assert.Equal(t, XaDone{ReqID: 7, Err: XaErrNoTransaction}, send(XaRequest{ReqID: 7, Op: XaPrepare, Xid: "job-sink-1-2"}),
		"the active branch died with the database")
	assert.Equal(t, XaDone{ReqID: 8, Err: XaErrNoTransaction}, send(XaWrite{ReqID: 8, Xid: "job-sink-0-1", Msg: "p1#5"}),
		"a prepared branch takes no more rows")
	assert.Equal(t, XaDone{ReqID: 14, Err: XaErrNoTransaction}, send(XaWrite{ReqID: 14, Xid: "job-sink-1-2", Msg: "p1#7"}),
		"a branch lost in the crash is not started again by a later write into it")

	assert.Equal(t, XaDone{ReqID: 9}, send(XaRequest{ReqID: 9, Op: XaCommit, Xid: "job-sink-0-1"}))
	assert.Equal(t, map[string]int{"p1#1": 1, "p1#2": 1}, db.Effects())
	assert.Equal(t, XaDone{ReqID: 10, Err: XaErrNoTransaction}, send(XaRequest{ReqID: 10, Op: XaCommit, Xid: "job-sink-0-1"}),
		"committed once: a second commit finds no branch and commits nothing")
	assert.Equal(t, map[string]int{"p1#1": 1, "p1#2": 1}, db.Effects())

	send(XaWrite{ReqID: 11, Xid: "job-sink-0-3", Start: true, Msg: "p1#6"})
	send(XaRequest{ReqID: 12, Op: XaPrepare, Xid: "job-sink-0-3"})
	assert.Equal(t, XaDone{ReqID: 13}, send(XaRequest{ReqID: 13, Op: XaRollback, Xid: "job-sink-0-3"}))
	assert.Empty(t, db.Branches())
	assert.Equal(t, map[string]int{"p1#1": 1, "p1#2": 1}, db.Effects(), "a rolled back branch leaves no row")
	require.Contains(t, db.Show(nil).Status.Text(fate.En), "2 rows")
}
