package browsertest

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// crashLeaderAtFirstAck does by hand, with real mouse clicks on the canvas, what the
// acks scenes teach: it pauses at the moment the leader of orders-0 (broker-1) has sent
// its first acknowledgement, clicks away any replication response already carrying the
// message to the followers (in these scenes the followers sit 60 ms away, so usually
// none has left yet), and clicks the leader to crash it. Then it runs to the end.
//
// Clicking broker-1 at t=0 would prove nothing: nothing has been acknowledged yet, so
// nothing can be lost, whatever acks says.
func crashLeaderAtFirstAck(t *testing.T, p *page, scene string) pageState {
	t.Helper()
	p.call(fmt.Sprintf("load(%q)", scene))
	// step() pauses and runs one event; stop when broker-1's first ack is on the wire.
	found := eval[bool](p, `(() => {
		for (let i = 0; i < 5000; i++) {
			const s = window.deliverylab.state();
			if (s.ended) return false;
			if (s.inFlight.some(f => f.from === "broker-1" && f.kind === "ProduceResponse")) return true;
			window.deliverylab.step();
		}
		return false;
	})()`)
	require.True(t, found, "broker-1 sends an acknowledgement")
	s := p.state()
	require.Equal(t, scene, s.Scene)
	require.False(t, s.Playing)
	require.Equal(t, "broker-1", s.leaderOf("orders-0"), "broker-1 leads orders-0")

	// Seek half way through the ack's flight, so messages that left broker-1 together
	// are spread along their paths and each can be clicked on its own.
	ack := s.flight(t, func(f flight) bool { return f.From == "broker-1" && f.Kind == "ProduceResponse" })
	p.call(fmt.Sprintf("seek(%d)", (ack.SentMs+ack.ArriveMs)/2))

	for range 4 { // at most one replication response per follower
		s = p.state()
		var carrying []flight
		for _, f := range s.InFlight {
			if f.From == "broker-1" && f.Kind == "FetchResponse" && strings.Contains(f.Label, "#") && f.OnCanvas {
				carrying = append(carrying, f)
			}
		}
		if len(carrying) == 0 {
			break
		}
		target := carrying[0]
		p.click(target.ClientPos)
		s = p.state()
		for _, f := range s.InFlight {
			require.NotEqual(t, target.ID, f.ID, "a click at %v on message %d (%s %s->%s) dropped it; faults: %v, last error: %q, last click: %+v (ticks now %d)",
				target.ClientPos, target.ID, target.Kind, target.From, target.To, s.Faults, s.LastError.Text, s.LastClick, s.Ticks)
		}
		t.Logf("dropped %s %s->%s %q by a click", target.Kind, target.From, target.To, target.Label)
	}

	b1, rect := s.node(t, "broker-1")
	require.True(t, b1.Up, "broker-1 is up before its click")
	faults := len(s.Faults)
	p.click(rect.Center())
	s = p.state()
	b1, _ = s.node(t, "broker-1")
	require.False(t, b1.Up, "a click on broker-1 crashed it (faults: %v)", s.Faults)
	require.Len(t, s.Faults, faults+1, "the click went through the fault API")
	assert.Contains(t, s.Faults[faults], "broker-1")

	p.call("runToEnd()")
	s = p.state()
	require.True(t, s.Ended, "runToEnd ends the run")
	t.Logf("%s: verdict %q, counts %v, faults %v, ended: %s", scene, s.Ledger.Verdict, s.Ledger.Counts, s.Faults, s.EndNote)
	return s
}

func TestAcks1LeaderCrashLosesAcknowledgedWrite(t *testing.T) {
	p := open(t)
	s := crashLeaderAtFirstAck(t, p, "acks-1-lost")
	require.GreaterOrEqual(t, s.Ledger.Counts["lost"], 1, "acks=1 and a crashed leader lose a write")

	// The DOM ledger says so too, with a reason, once the page has rendered.
	p.waitJS(10e9, `document.querySelector('#ledger-body tr[data-fate="lost"]') !== null`)
	lostRow := eval[[]string](p, `[...document.querySelector('#ledger-body tr[data-fate="lost"]').children].map(td => td.textContent)`)
	require.Len(t, lostRow, 3)
	assert.Equal(t, "lost", lostRow[1])
	assert.NotEmpty(t, lostRow[2], "a lost message says why")
	assert.Equal(t, fmt.Sprint(s.Ledger.Counts["lost"]),
		eval[string](p, `document.querySelector('#counts [data-count="lost"] b').textContent`))
	assert.Equal(t, s.Ledger.Verdict, eval[string](p, `document.getElementById('verdict').textContent`))
	// Under the ledger, Jepsen's anomalies of the ended run, each with its count.
	require.NotEmpty(t, s.Ledger.Anomalies, "an ended run carries Jepsen's anomalies")
	p.waitJS(10e9, `!document.getElementById('anomalies').hidden`)
	for _, a := range s.Ledger.Anomalies {
		assert.Equal(t, fmt.Sprint(a.Count),
			eval[string](p, `document.querySelector('#anomaly-list [data-anomaly="`+string(a.Name)+`"] b').textContent`), a.Name)
	}
	// The click left the scene's script: the page says the captions may no longer match.
	p.waitJS(10e9, `!document.getElementById('off-script').hidden`)

	p.screenshot("acks-1-lost-en")

	// Switch to Chinese with the page's own button: prose and the ledger follow.
	require.NoError(t, clickSelector(p, `button[data-lang="zh"]`))
	p.waitJS(10e9, `document.documentElement.lang === "zh-CN" &&
		document.querySelector('#ledger-body tr[data-fate="lost"] td:nth-child(2)').textContent === "丢失"`)
	assert.Equal(t, "结局", eval[string](p, `document.querySelector('.messages th:nth-child(2)').textContent`))
	assert.Contains(t, eval[string](p, `document.querySelector('#anomaly-list [data-anomaly="poll-skip"] .meaning').textContent`), "拉取跳过")
	p.screenshot("acks-1-lost-zh")
	require.NoError(t, clickSelector(p, `button[data-lang="en"]`)) // the choice is remembered
}

func TestAcksAllLeaderCrashKeepsEveryWrite(t *testing.T) {
	p := open(t)
	s := crashLeaderAtFirstAck(t, p, "acks-all-safe")
	assert.Zero(t, s.Ledger.Counts["lost"], "acks=all loses nothing when the leader crashes")
	assert.Positive(t, s.Ledger.Counts["delivered"])

	p.waitJS(10e9, `document.querySelector('#ledger-body tr[data-fate="delivered"]') !== null`)
	assert.Zero(t, eval[int](p, `document.querySelectorAll('#ledger-body tr[data-fate="lost"]').length`))
	p.screenshot("acks-all-safe-en")
}
