package scene

import (
	"strings"
	"testing"

	"deliverylab/core/fate"
	"deliverylab/core/sim"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A consumer paused for 2 s reads nothing meanwhile and everything once resumed.
func TestAPausedConsumerReadsOnceResumed(t *testing.T) {
	sc, err := Parse("pause.yaml", []byte(parseGood+"faults: [{at.ms: 0, pause: c1, for.ms: 2000}]\n"))
	require.NoError(t, err)
	run := sc.NewRun()
	run.AdvanceTo(1999)
	assert.True(t, run.World.Paused("c1"))
	run.ToEnd()
	assert.Equal(t, EndSettled, run.EndNote)
	assert.Equal(t, 3, run.Judge().Messages["delivered"])
	assert.False(t, run.World.Paused("c1"))
}

// A pause nothing resumes keeps the run from settling; it ends at the time limit and
// says the node is paused, in both languages.
func TestAPauseNothingResumesEndsAtTheTimeLimitSayingSo(t *testing.T) {
	sc, err := Parse("pause.yaml", []byte(parseGood+"faults: [{at.ms: 200, pause: broker-1}]\n"))
	require.NoError(t, err)
	run := sc.NewRun()
	run.ToEnd()
	assert.Equal(t, EndTimeLimit, run.EndNote)
	assert.Contains(t, run.EndText(fate.En), "broker-1 is paused and holds")
	assert.Contains(t, run.EndText(fate.Zh), "broker-1 已暂停")
}

func TestPauseResumeAndHealOnewayParse(t *testing.T) {
	sc, err := Parse("pause.yaml", []byte(parseGood+`faults:
  - {at.ms: 10, pause: broker-2, for.ms: 50}
  - {at.ms: 100, pause: c1}
  - {at.ms: 200, resume: c1}
  - {at.ms: 300, cut-oneway: [p1, broker-1]}
  - {at.ms: 400, heal-oneway: [p1, broker-1]}
`))
	require.NoError(t, err)
	var got []string
	for _, f := range sc.Faults {
		got = append(got, f.Fault.Describe())
	}
	assert.Equal(t, []string{"pause broker-2 for 50ms", "pause c1", "resume c1", "cut-oneway p1 broker-1", "heal-oneway p1 broker-1"}, got)

	f, err := sc.ParseFault("{pause: p1}")
	require.NoError(t, err)
	assert.Equal(t, sim.Fault{Kind: sim.FaultPause, Node: "p1"}, f)
	_, err = sc.ParseFault("{resume: controller}")
	assert.ErrorContains(t, err, "does not resume here")
	_, err = sc.ParseFault("{resume: nobody}")
	assert.ErrorContains(t, err, `got "nobody"`)
	_, err = sc.ParseFault("{heal-oneway: [p1]}")
	assert.ErrorContains(t, err, "expected two node names")
	_, err = sc.ParseFault("{resume: c1, for.ms: 5}")
	assert.ErrorContains(t, err, "only crash, pause, cut, cut-oneway, partition can be undone")
}

// pause, resume and heal-oneway run on a real cluster now (SIGSTOP and SIGCONT of the
// process, the fault proxy mending one direction of a link): they reach the plan as
// they are. A sink, a table inside the runner, has no process to pause.
func TestTheConformancePlanCarriesPauseAndHealOneway(t *testing.T) {
	for _, fault := range []string{"{at.ms: 10, pause: broker-2, for.ms: 50}", "{at.ms: 10, resume: c1}", "{at.ms: 10, heal-oneway: [p1, broker-1]}"} {
		sc, err := Parse("pause.yaml", []byte(parseGood+"faults: ["+fault+"]\n"))
		require.NoError(t, err)
		plan, err := sc.Plan(1000)
		require.NoError(t, err, fault)
		require.Len(t, plan.Faults, 1)
		assert.Equal(t, sc.Faults[0].Fault.Kind, plan.Faults[0].Kind)
	}
	withSink := strings.Replace(parseGood, "auto.offset.reset: earliest}", "auto.offset.reset: earliest}\n    sink: db", 1) +
		"sinks: [{name: db, kind: table}]\n"
	sc, err := Parse("pause.yaml", []byte(withSink+"faults: [{at.ms: 10, pause: db}]\n"))
	require.NoError(t, err)
	_, err = sc.Plan(1000)
	assert.ErrorContains(t, err, "a sink has no process of its own to pause")
}
