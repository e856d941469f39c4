package view

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"deliverylab/core/play"
)

// keyedJob is a keyed Flink job (two sources, two maps, two sinks) whose map-0 fails
// as checkpoint 2 completes.
const keyedJob = `title: {en: "a keyed Flink job", zh: "一个按键分区的 Flink 作业"}
seed: 1
cluster:
  brokers: 3
  config: {min.insync.replicas: 2}
  topics:
    - {name: orders, partitions: 2, replication.factor: 3}
    - {name: out, partitions: 1, replication.factor: 3}
apps:
  - producer: p1
    send: {topic: orders, count: 10, interval.ms: 200, value: "{n}"}
  - job: totals
    keyed: true
    checkpointing: {interval.ms: 1000, mode: EXACTLY_ONCE}
    restart.delay.ms: 500
    source: {topic: orders, parallelism: 2}
    parallelism: 2
    operator: map
    sink:
      kafka: {topic: out, delivery.guarantee: NONE}
  - consumer: audit
    group: audit
    topics: [out]
    config: {enable.auto.commit: false, auto.offset.reset: earliest, isolation.level: read_committed}
faults:
  - when: {node: totals/jobmanager, event: checkpoint-completed, checkpoint: 2}
    crash: totals/map-0
`

// Along a real run of a keyed job, every message of the job starts and ends at a part
// box, every text is legible at the classroom sizes, and the failed subtask is drawn
// down while its region restarts.
func TestKeyedJobAlongARun(t *testing.T) {
	s, err := play.LoadSource("keyed.yaml", []byte(keyedJob))
	require.NoError(t, err)
	sawDown, sawPartFlight, sawBarrier := false, false, false
	for i := range 4000 {
		s.Advance(1)
		st := s.State()
		for _, size := range classroomCanvases {
			l := Compute(st.Nodes, size[0], size[1])
			for _, lang := range []Lang{En, Zh} {
				if i%100 != 0 {
					break
				}
				for _, tx := range l.BoxTexts(st.Nodes, lang, Dark) {
					assert.False(t, tx.Cut, "%v %s t=%d: %q was cut", size, lang, st.NowMs, tx.S)
				}
			}
			for _, f := range st.InFlight {
				pos, ok := l.FlightPos(f, float64(st.NowMs))
				assert.True(t, ok, "%+v on the canvas", f)
				_ = pos
				for _, end := range [][2]string{{f.From, f.FromPart}, {f.To, f.ToPart}} {
					if b, _ := l.Box(end[0]); b.Kind == "job" {
						_, found := l.Part(end[0], end[1])
						assert.True(t, found, "%s/%s of %s is a part box", end[0], end[1], f.Kind)
						sawPartFlight = true
					}
				}
				sawBarrier = sawBarrier || f.Kind == "Barrier"
			}
			if p, ok := l.Part("totals", "map-0"); ok && !p.Up {
				sawDown = true
			}
		}
	}
	assert.True(t, sawPartFlight)
	assert.True(t, sawBarrier, "barriers travel between the parts")
	assert.True(t, sawDown, "the failed map-0 was drawn down")
}
