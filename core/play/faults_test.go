package play

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"deliverylab/core/sim"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// faultScene is small and exact: p1 writes to broker-1 (the leader), c1 reads, p2
// starts late.
const faultScene = `title: {en: "Faults", zh: "故障"}
seed: 1
cluster:
  brokers: 3
  topics:
    - {name: orders, partitions: 1, replication.factor: 3, leaders: [broker-1]}
apps:
  - producer: p1
    config: {acks: all}
    send: {topic: orders, count: 5, interval.ms: 200}
  - producer: p2
    send: {topic: orders, count: 1}
    start.ms: 5000
  - consumer: c1
    topics: [orders]
    config: {enable.auto.commit: false, auto.offset.reset: earliest}
    sink: db
sinks:
  - {name: db}
`

func loadFaults(t *testing.T) *Session {
	t.Helper()
	s, err := LoadSource("faults.yaml", []byte(faultScene))
	require.NoError(t, err)
	return s
}

func userErr(t *testing.T, err error) UserError {
	t.Helper()
	var u UserError
	require.True(t, errors.As(err, &u), "%v is a UserError", err)
	return u
}

// Every fault that would change nothing is refused, saying why in both languages.
func TestInjectRefusesAFaultThatChangesNothingSayingWhy(t *testing.T) {
	cases := []struct {
		before []string
		fault  string
		en, zh string
	}{
		{nil, "{restart: broker-1}", "broker-1 is up: only a node that is down can be restarted", "broker-1 正在运行：只有宕机的节点才能重启"},
		{nil, "{restart: p2}", "p2 has not started yet (it starts at 5000 ms): there is nothing to restart", "p2 还没有启动（它在 5000 毫秒启动）"},
		{[]string{"{crash: broker-2}"}, "{crash: broker-2}", "broker-2 is already down", "broker-2 已经宕机了"},
		{[]string{"{crash: broker-2}"}, "{pause: broker-2}", "broker-2 is down: there is no running process to pause", "broker-2 已宕机"},
		{[]string{"{pause: c1}"}, "{pause: c1}", "c1 is already paused", "c1 已经暂停了"},
		{nil, "{resume: c1}", "c1 is not paused: there is nothing to resume", "c1 没有暂停"},
		{[]string{"{cut: [c1, broker-1]}"}, "{cut: [broker-1, c1]}", "the link broker-1 ↔ c1 is already cut both ways", "两个方向都已切断"},
		{[]string{"{cut-oneway: [c1, broker-1]}"}, "{cut-oneway: [c1, broker-1]}", "messages c1 → broker-1 are already cut", "c1 → broker-1 方向已经切断"},
		{nil, "{heal: [c1, broker-1]}", "the link c1 ↔ broker-1 is not cut", "链路 c1 ↔ broker-1 没有被切断"},
		{[]string{"{cut-oneway: [c1, broker-1]}"}, "{heal-oneway: [broker-1, c1]}", "messages broker-1 → c1 are not cut", "broker-1 → c1 方向没有被切断"},
		{nil, "{heal: all}", "no link is cut", "没有被切断的链路"},
		{[]string{"{partition: [[broker-1], [broker-2]]}"}, "{partition: [[broker-2, broker-3, p1, p2, c1, db, controller], [broker-1]]}",
			"every link this partition cuts is already cut", "这次分区要切断的链路都已经切断了"},
		{nil, "{drop: message, id: 99999}", "no message #99999 is in flight now", "现在线路上没有消息 #99999"},
		{nil, "{delay: message, id: 99999, delay.ms: 5}", "no message #99999 is in flight now", "现在线路上没有消息 #99999"},
		{nil, "{duplicate: message, id: 99999}", "no message #99999 is in flight now", "现在线路上没有消息 #99999"},
		{nil, "{crash: broker-9}", `expected a node of this scene (p1, p2, broker-1, broker-2, broker-3, c1, db), got "broker-9"`, "故障格式有误：fault.crash: expected a node of this scene"},
		{nil, "{explode: broker-1}", "unknown key", "故障格式有误："},
	}
	for _, c := range cases {
		t.Run(c.fault, func(t *testing.T) {
			s := loadFaults(t)
			s.Advance(100)
			for _, b := range c.before {
				require.NoError(t, s.Inject(b))
			}
			before := s.State()
			u := userErr(t, s.Inject(c.fault))
			assert.Contains(t, u.En, c.en)
			assert.Contains(t, u.Zh, c.zh)
			assert.Equal(t, u.En, u.Error())
			assert.Len(t, s.State().FaultList, len(before.FaultList), "a refused fault is not recorded")
		})
	}
}

// The opposite faults are taken: the refusals above are about the state, not the kind.
func TestInjectTakesTheFaultsThatChangeSomething(t *testing.T) {
	s := loadFaults(t)
	s.Advance(100)
	for _, f := range []string{"{crash: p2}", "{crash: broker-2}", "{restart: broker-2}", "{pause: c1}", "{resume: c1}",
		"{cut: [c1, broker-1]}", "{heal: [broker-1, c1]}", "{cut-oneway: [c1, broker-1]}", "{cut: [c1, broker-1]}",
		"{heal-oneway: [broker-1, c1]}", "{heal: all}", "{pause: broker-3, for.ms: 100}", "{partition: [[broker-1], [broker-2]]}"} {
		require.NoError(t, s.Inject(f), f)
	}
	st := s.State()
	var got []string
	for _, f := range st.FaultList {
		assert.Equal(t, int64(100), f.AtMs)
		assert.False(t, f.Future)
		got = append(got, f.Text.En+" / "+f.Text.Zh)
	}
	assert.Equal(t, []string{"crash p2 / 让 p2 崩溃", "crash broker-2 / 让 broker-2 崩溃", "restart broker-2 / 重启 broker-2",
		"pause c1 / 暂停 c1", "resume c1 / 恢复 c1", "cut c1 ↔ broker-1 / 切断 c1 ↔ broker-1", "heal broker-1 ↔ c1 / 修复 broker-1 ↔ c1",
		"cut c1 → broker-1 / 切断 c1 → broker-1", "cut c1 ↔ broker-1 / 切断 c1 ↔ broker-1", "heal broker-1 → c1 / 修复 broker-1 → c1",
		"heal every link / 修复所有链路", "pause broker-3 for 100 ms / 暂停 broker-3，持续 100 毫秒",
		"partition [broker-1] | [broker-2] / 网络分区 [broker-1] | [broker-2]"}, got)
	assert.Equal(t, "{crash: p2}", st.FaultList[0].Syntax)
	assert.True(t, nodeNamed(st, "broker-3").Paused)
	s.Advance(101)
	assert.False(t, nodeNamed(s.State(), "broker-3").Paused, "for.ms resumed it")
}

// stepUntil runs events until a message of the kind is on the wire.
func stepUntil(t *testing.T, s *Session, kind string) Flight {
	t.Helper()
	for range 10000 {
		for _, f := range s.State().InFlight {
			if f.Kind == kind {
				return f
			}
		}
		require.True(t, s.Step())
	}
	t.Fatalf("no %s on the wire", kind)
	return Flight{}
}

// A wire fault is described by the message as it was on the wire when it was made.
func TestAWireFaultSaysWhichMessageItHit(t *testing.T) {
	s := loadFaults(t)
	f := stepUntil(t, s, "ProduceResponse")
	require.NoError(t, s.Inject(fmt.Sprintf("{drop: message, id: %d}", f.ID)))
	g := stepUntil(t, s, "Produce")
	require.NoError(t, s.Inject(fmt.Sprintf("{delay: message, id: %d, delay.ms: 500}", g.ID)))
	list := s.State().FaultList
	require.Len(t, list, 2)
	// the batch p1#1 and p1#2: the response carries no message ids; the point that sent it does
	assert.Equal(t, Text{"drop p1#1,p1#2's ProduceResponse (broker-1 → p1)", "丢弃 p1#1,p1#2 的 ProduceResponse（broker-1 → p1）"}, list[0].Text)
	assert.Regexp(t, `^delay p1#\d's Produce \(p1 → broker-1\) by 500 ms$`, list[1].Text.En)
	assert.Regexp(t, `^让 p1#\d 的 Produce（p1 → broker-1） 晚到 500 毫秒$`, list[1].Text.Zh)
	s.RunToEnd()
	assert.Equal(t, list[0].Text, s.State().FaultList[0].Text, "said when it was made: the message is gone now")

	fetch := stepUntilFrom(t, loadFaults(t), "Fetch")
	assert.Equal(t, Text{fmt.Sprintf("duplicate Fetch #%d (broker-2 → broker-1)", fetch.id), fmt.Sprintf("复制 Fetch #%d（broker-2 → broker-1）", fetch.id)},
		fetch.s.State().FaultList[0].Text, "a message about no application message: its kind and wire id")
}

type fetchHit struct {
	s  *Session
	id int64
}

func stepUntilFrom(t *testing.T, s *Session, kind string) fetchHit {
	f := stepUntil(t, s, kind)
	require.NoError(t, s.Inject(fmt.Sprintf("{duplicate: message, id: %d}", f.ID)))
	return fetchHit{s, f.ID}
}

// An armed fault waits in armedList, fires at its protocol point and is then listed at
// the time it fired; a replay (SeekTo) arms it again.
func TestAnArmedFaultFiresAtItsProtocolPoint(t *testing.T) {
	s := loadFaults(t)
	require.NoError(t, s.Inject("{when: {node: broker-1, event: appended}, crash: broker-1}"))
	st := s.State()
	require.Len(t, st.ArmedList, 1)
	assert.Equal(t, Text{"when broker-1 appended: crash broker-1", "当 broker-1 appended 时：让 broker-1 崩溃"}, st.ArmedList[0].Text)
	assert.Empty(t, st.FaultList)
	assert.True(t, nodeNamed(st, "broker-1").Up)
	for nodeNamed(s.State(), "broker-1").Up {
		require.True(t, s.Step())
	}
	var appendedAt int64 = -1
	for _, o := range s.run.World.Observations().All() {
		if o.Event == "appended" && appendedAt < 0 {
			appendedAt = o.AtMs
		}
	}
	st = s.State()
	assert.Empty(t, st.ArmedList)
	require.Len(t, st.FaultList, 1)
	assert.Equal(t, appendedAt, st.FaultList[0].AtMs)
	assert.Equal(t, "{when: {node: broker-1, event: appended}, crash: broker-1}", st.FaultList[0].Syntax)

	require.NoError(t, s.SeekTo(appendedAt+50))
	assert.False(t, nodeNamed(s.State(), "broker-1").Up, "the replay armed it again")
	assert.Equal(t, appendedAt, s.State().FaultList[0].AtMs)
	assert.Equal(t, []Text{{"when broker-1 appended: crash broker-1", "当 broker-1 appended 时：让 broker-1 崩溃"}}, []Text{s.State().FaultList[0].Text})

	u := userErr(t, s.Inject("{when: {event: nope}, crash: broker-1}"))
	assert.Contains(t, u.En, `expected one of`)
	assert.True(t, strings.HasPrefix(u.Zh, "故障格式有误："))
}

// A paused consumer shows paused, holds what reaches it, and catches up once resumed.
func TestAPausedNodeInTheSession(t *testing.T) {
	s := loadFaults(t)
	s.Advance(50)
	require.NoError(t, s.Inject("{pause: c1}"))
	s.Advance(2000)
	c1 := nodeNamed(s.State(), "c1")
	assert.True(t, c1.Paused)
	assert.True(t, c1.Up)
	assert.Regexp(t, `^paused, \d+ waiting$`, c1.Detail)
	assert.Empty(t, nodeNamed(s.State(), "db").Rows)
	require.NoError(t, s.Inject("{resume: c1}"))
	s.RunToEnd()
	assert.Len(t, nodeNamed(s.State(), "db").Rows, 6)
	assert.False(t, nodeNamed(s.State(), "c1").Paused)
}

// The menu offers what fits each target, and says Disabled exactly when Inject refuses
// the item's fault (with the same reason).
func TestMenuItemsAreTakenOrRefusedAsTheySay(t *testing.T) {
	for _, sceneName := range []string{"", "streams-exactly-once"} {
		open := func() *Session {
			var s *Session
			if sceneName == "" {
				s = loadFaults(t)
				s.Advance(300)
			} else {
				var err error
				s, err = Load(sceneName)
				require.NoError(t, err)
				s.Advance(6000)
			}
			for len(s.State().InFlight) == 0 {
				require.True(t, s.Step())
			}
			return s
		}
		s := open()
		var targets []Target
		for _, n := range s.State().Nodes {
			targets = append(targets, Target{Kind: "node", Name: n.Name})
		}
		fl := s.State().InFlight
		require.NotEmpty(t, fl)
		targets = append(targets, Target{Kind: "message", ID: fl[0].ID}, Target{Kind: "link", From: fl[0].From, To: fl[0].To})
		for _, tg := range targets {
			items := s.Menu(tg)
			require.NotEmpty(t, items, "%+v", tg)
			for _, it := range items {
				assert.NotEmpty(t, it.Label.En)
				assert.NotEmpty(t, it.Label.Zh)
				fresh := open()
				err := fresh.Inject(it.Fault)
				if it.Disabled {
					require.Error(t, err, it.Fault)
					assert.Equal(t, errText(err), it.Why, it.Fault)
				} else {
					assert.NoError(t, err, it.Fault)
				}
			}
		}
	}
	assert.Empty(t, loadFaults(t).Menu(Target{Kind: "none"}))
}

func menuFaults(items []MenuItem) map[string]MenuItem {
	out := map[string]MenuItem{}
	for _, it := range items {
		out[it.Fault] = it
	}
	return out
}

// Each node kind gets the protocol points it really reports.
func TestMenuOffersTheProtocolPointsOfTheNodesKind(t *testing.T) {
	s := loadFaults(t)
	s.Advance(300)
	broker := menuFaults(s.Menu(Target{Kind: "node", Name: "broker-1"}))
	assert.Contains(t, broker, "{when: {node: broker-1, event: appended}, crash: broker-1}")
	assert.Equal(t, Text{"crash after its next append, before it responds", "在下一次追加写入之后、响应之前崩溃"},
		broker["{when: {node: broker-1, event: appended}, crash: broker-1}"].Label)
	assert.Contains(t, broker, "{when: {node: broker-1, event: responded}, crash: broker-1}")
	assert.True(t, broker["{restart: broker-1}"].Disabled)
	assert.Equal(t, "broker-1 is up: only a node that is down can be restarted", broker["{restart: broker-1}"].Why.En)
	assert.False(t, broker["{crash: broker-1}"].Disabled)
	assert.True(t, broker["{resume: broker-1}"].Disabled)
	assert.Contains(t, menuFaults(s.Menu(Target{Kind: "node", Name: "p1"})), "{when: {node: p1, event: acked}, crash: p1}")
	c1 := menuFaults(s.Menu(Target{Kind: "node", Name: "c1"}))
	assert.Contains(t, c1, "{when: {node: c1, event: polled}, crash: c1}")
	assert.Contains(t, c1, "{when: {node: c1, event: offset-committed}, crash: c1}")
	assert.NotContains(t, c1, "{when: {node: c1, event: appended}, crash: c1}")

	st, err := Load("streams-exactly-once")
	require.NoError(t, err)
	enrich := menuFaults(st.Menu(Target{Kind: "node", Name: "enrich"}))
	assert.Contains(t, enrich, "{when: {node: enrich, event: processed}, crash: enrich}")

	link := s.Menu(Target{Kind: "link", From: "p1", To: "broker-1"})
	require.Len(t, link, 3)
	assert.Equal(t, "{cut-oneway: [p1, broker-1]}", link[0].Fault)
	assert.Equal(t, "{cut: [p1, broker-1]}", link[1].Fault)
	assert.True(t, link[2].Disabled, "nothing to heal")
	require.NoError(t, s.Inject(link[0].Fault))
	link = s.Menu(Target{Kind: "link", From: "p1", To: "broker-1"})
	assert.True(t, link[0].Disabled)
	assert.False(t, link[1].Disabled, "the other direction can still be cut")
	assert.False(t, link[2].Disabled)

	f := stepUntil(t, s, "ProduceResponse")
	msg := s.Menu(Target{Kind: "message", ID: f.ID})
	require.Len(t, msg, 4)
	assert.Regexp(t, `^drop p\d#\d's ProduceResponse \(broker-1 → p\d\)$`, msg[0].Label.En)
	assert.Equal(t, fmt.Sprintf("{delay: message, id: %d, delay.ms: 2000}", f.ID), msg[3].Fault)
}

// Every example the fault help gives is a fault the box takes.
func TestFaultHelpExamplesAreFaultsTheBoxTakes(t *testing.T) {
	s := loadFaults(t)
	s.Advance(30)
	help := s.FaultHelp()
	en, zh := strings.Split(help.En, "\n"), strings.Split(help.Zh, "\n")
	require.Equal(t, len(en), len(zh))
	require.Greater(t, len(en), 15)
	kinds := map[sim.FaultKind]bool{}
	for _, l := range en[1:] {
		syntax, _, ok := strings.Cut(l, "  — ")
		require.True(t, ok, l)
		f, trigger, err := s.sc.ParseArmedFault(syntax)
		require.NoError(t, err, syntax)
		if trigger != nil {
			kinds["when"] = true
		}
		kinds[f.Kind] = true
	}
	for _, k := range []sim.FaultKind{sim.FaultCrash, sim.FaultRestart, sim.FaultPause, sim.FaultResume, sim.FaultCut, sim.FaultCutOneway,
		sim.FaultHeal, sim.FaultHealOneway, sim.FaultHealAll, sim.FaultPartition, sim.FaultDrop, sim.FaultDelay, sim.FaultDuplicate, "when"} {
		assert.True(t, kinds[k], "an example of %s", k)
	}
}

// The page reads these JSON names (the contract).
func TestFaultStateJSONNames(t *testing.T) {
	s := loadFaults(t)
	s.Advance(10)
	require.NoError(t, s.Inject("{pause: c1}"))
	require.NoError(t, s.Inject("{when: {node: p1, event: acked}, crash: p1}"))
	out, err := json.Marshal(s.State())
	require.NoError(t, err)
	j := string(out)
	assert.Contains(t, j, `"faultList":[{"atMs":10,"text":{"en":"pause c1","zh":"暂停 c1"},"syntax":"{pause: c1}","future":false}]`)
	assert.Contains(t, j, `"armedList":[{"text":{"en":"when p1 acked: crash p1","zh":"当 p1 acked 时：让 p1 崩溃"},"syntax":"{when: {node: p1, event: acked}, crash: p1}"}]`)
	assert.Contains(t, j, `"name":"c1","kind":"consumer","up":true,"paused":true`)
	m, err := json.Marshal(s.Menu(Target{Kind: "node", Name: "c1"})[0])
	require.NoError(t, err)
	assert.Equal(t, `{"label":{"en":"crash c1","zh":"让 c1 崩溃"},"fault":"{crash: c1}","disabled":false,"why":{"en":"","zh":""}}`, string(m))
}
