package scene

import (
	"fmt"
	"testing"

	"deliverylab/scenes"
)

// BenchmarkKernelEventsPerSecond runs the busiest shipped scene (the most events a run)
// to its end and reports kernel events per second.
func BenchmarkKernelEventsPerSecond(b *testing.B) {
	busiest, most := "", int64(0)
	for _, name := range scenes.Names() {
		data, err := scenes.Read(name)
		if err != nil {
			b.Fatal(err)
		}
		s, err := Parse(name+".yaml", data)
		if err != nil {
			b.Fatal(err)
		}
		r := s.NewRun()
		r.ToEnd()
		if n := r.World.EventsRun(); n > most {
			busiest, most = name, n
		}
	}
	data, err := scenes.Read(busiest)
	if err != nil {
		b.Fatal(err)
	}
	benchRun(b, busiest+".yaml", data)
}

// BenchmarkFlinkScene runs Flink scenes (jobs reading, checkpointing, failing over and
// writing again; a paused subtask; two jobs) to their end and reports kernel events per
// second for each.
func BenchmarkFlinkScene(b *testing.B) {
	for _, name := range []string{"flink-sink-none-duplicates", "flink-at-least-once-counts-twice", "flink-shared-prefix-loses-data"} {
		b.Run(name, func(b *testing.B) {
			data, err := scenes.Read(name)
			if err != nil {
				b.Fatal(err)
			}
			benchRun(b, name+".yaml", data)
		})
	}
}

// longAutoCommitScene runs for about the given seconds of virtual time: a producer sends
// 100 records to three replicas in two seconds, and a consumer hands them to a worker
// that takes seconds/100 s each while it goes on polling and auto-committing every 5 ms
// (Kafka's classic consumer commits its positions at each interval, changed or not:
// ConsumerCoordinator.maybeAutoCommitOffsetsAsync), so __consumer_offsets gains a record
// every few milliseconds and the run is judged for settling at every instant, most of
// them with nothing on the wire. (With auto.commit.interval.ms: 0 a commit is always on
// the wire: the run never settles and goes to its 10-minute limit whatever its length.)
func longAutoCommitScene(seconds int) []byte {
	return []byte(fmt.Sprintf(`title: {en: "A long auto-commit run", zh: "一次长时间的自动提交运行"}
summary: {en: "Benchmark.", zh: "基准测试。"}
seed: 1
cluster:
  brokers: 3
  config: {min.insync.replicas: 2}
  topics:
    - {name: orders, partitions: 1, replication.factor: 3}
network: {latency.ms: 1}
apps:
  - producer: p1
    config: {acks: all, enable.idempotence: false}
    send: {topic: orders, count: 100, interval.ms: 20, value: "{n}"}
  - consumer: c1
    group: dashboard
    topics: [orders]
    config: {enable.auto.commit: true, auto.commit.interval.ms: 5, auto.offset.reset: earliest}
    commit: auto
    processing: async
    processing.ms: %d
`, seconds*1000/100))
}

// BenchmarkLongAutoCommitScene runs longAutoCommitScene for 15 s, 1 min and 5 min of
// virtual time and reports kernel events per second: were the settle check's cost to
// grow with the logs, the longer runs would be slower per event.
func BenchmarkLongAutoCommitScene(b *testing.B) {
	for _, seconds := range []int{15, 60, 300} {
		b.Run(fmt.Sprintf("%ds", seconds), func(b *testing.B) {
			benchRun(b, "long-auto-commit.yaml", longAutoCommitScene(seconds))
		})
	}
}

func benchRun(b *testing.B, name string, data []byte) {
	b.Helper()
	s, err := Parse(name, data)
	if err != nil {
		b.Fatal(err)
	}
	var events int64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r := s.NewRun()
		r.World.Trace().Keep = false
		r.ToEnd()
		if r.EndNote != "settled" {
			b.Fatalf("%s ended at %d ms by %s, want settled", name, r.World.NowMs(), r.EndNote)
		}
		events += r.World.EventsRun()
	}
	b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
}

// BenchmarkSwarmBusiestRun is the wall time of the run of TestSwarm's 300 schedules
// (seed 8) that takes the most events: rebalance-takeover under schedule 196, which
// keeps a fault and runs to its time limit. Tests report events, never wall time.
func BenchmarkSwarmBusiestRun(b *testing.B) {
	gs, err := shippedGenScenes()
	if err != nil {
		b.Fatal(err)
	}
	const k = 196
	g := gs[k%len(gs)]
	text, err := g.withSchedule(decodeSchedule(swarmScheduleOf(8, k)))
	if err != nil {
		b.Fatal(err)
	}
	var events int64
	for i := 0; i < b.N; i++ {
		res, err := runSchedule("busiest.yaml", text, true, 0)
		if err != nil || res.Broken != "" {
			b.Fatal(err, res.Broken)
		}
		events = res.Events
	}
	b.ReportMetric(float64(events), "events")
}
