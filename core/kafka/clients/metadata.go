package clients

import (
	"maps"
	"slices"

	"deliverylab/core/kafka/protocol"
	"deliverylab/core/sim"
)

// metadata is the part of a client that learns partition leaders from brokers (Kafka's
// Metadata and its updater), trying bootstrap brokers in turn when one does not answer.
type metadata struct {
	Bootstrap []string
	Topics    []string
	Leaders   map[protocol.TP]protocol.PartitionState
	Next      int // which bootstrap broker to ask next
	InFlight  bool
	ReqSeq    int64 // bumps per request, to ignore late timeouts
	// BackoffMs is retry.backoff.ms: after an answer or a failure the client waits this
	// long before it asks again (Metadata.timeToAllowUpdate from lastRefreshMs), so a
	// partition without a leader is not asked about in a loop.
	BackoffMs   int64
	Refreshed   bool // an answer or a failure came: RefreshedMs holds
	RefreshedMs int64
	RetryAtMs   int64 // when a metadata-retry timer is set for, 0 when none is
}

func (md *metadata) clone() metadata {
	c := *md
	c.Bootstrap = slices.Clone(md.Bootstrap)
	c.Topics = slices.Clone(md.Topics)
	c.Leaders = maps.Clone(md.Leaders)
	return c
}

// metadataTimeout gives up on a metadata request that got no answer (Seq), and asks the
// next broker.
type metadataTimeout struct{ Seq int64 }

// metadataRetry asks again after retry.backoff.ms.
type metadataRetry struct{}

func (metadataTimeout) Kind() string     { return "MetadataTimeout" }
func (metadataTimeout) Describe() string { return metadataTimeoutLine }
func (metadataRetry) Kind() string       { return "MetadataRetry" }
func (metadataRetry) Describe() string   { return metadataRetryLine }

// The timers' lines in the trace, from their Kinds (sim.TimerLine).
var (
	metadataTimeoutLine = sim.TimerLine("", metadataTimeout{})
	metadataRetryLine   = sim.TimerLine("", metadataRetry{})
)

func (md *metadata) reset() {
	md.Leaders = map[protocol.TP]protocol.PartitionState{}
	md.InFlight = false
	md.Refreshed, md.RetryAtMs = false, 0 // a new process: its timers are gone
}

// bootstrapBroker is the broker the client asks next.
func (md *metadata) bootstrapBroker() string {
	if len(md.Bootstrap) == 0 {
		return ""
	}
	return md.Bootstrap[md.Next%len(md.Bootstrap)]
}

// refresh asks a broker for leadership unless a request is already out.
func (md *metadata) refresh(env *sim.Env, timeoutMs int64) {
	if md.InFlight || len(md.Bootstrap) == 0 {
		return
	}
	if at := md.RefreshedMs + md.BackoffMs; md.Refreshed && env.Now() < at {
		md.retryAt(env, at)
		return
	}
	md.InFlight = true
	md.ReqSeq++
	env.Send(md.bootstrapBroker(), protocol.MetadataRequest{Topics: md.Topics})
	env.After(timeoutMs, metadataTimeout{Seq: md.ReqSeq})
}

// onTimer handles the metadata timers.
func (md *metadata) onTimer(env *sim.Env, t sim.Payload, timeoutMs int64) {
	switch t := t.(type) {
	case metadataRetry:
		if env.Now() >= md.RetryAtMs {
			md.RetryAtMs = 0
		}
		md.refresh(env, timeoutMs)
	case metadataTimeout:
		if md.InFlight && t.Seq == md.ReqSeq {
			md.InFlight = false
			md.Next++
			md.refreshed(env)
			md.refresh(env, timeoutMs)
		}
	}
}

// refreshed starts the backoff: an answer and a failure both count (Metadata.update and
// failedUpdate set lastRefreshMs).
func (md *metadata) refreshed(env *sim.Env) {
	md.Refreshed, md.RefreshedMs = true, env.Now()
}

// retryAt sets the metadata-retry timer for atMs unless one is set already.
func (md *metadata) retryAt(env *sim.Env, atMs int64) {
	if md.RetryAtMs != 0 && md.RetryAtMs <= atMs {
		return
	}
	md.RetryAtMs = atMs
	env.After(atMs-env.Now(), metadataRetry{})
}

// onRefused moves on to the next bootstrap broker after a refused metadata request.
func (md *metadata) onRefused(env *sim.Env) {
	md.InFlight = false
	md.Next++
	md.ReqSeq++
	md.refreshed(env)
	md.retryAt(env, env.Now()+md.BackoffMs)
}

// onResponse records leaders and, when some partition has none, asks again once the
// backoff has passed.
func (md *metadata) onResponse(env *sim.Env, resp protocol.MetadataResponse) {
	md.InFlight = false
	md.refreshed(env)
	complete := len(resp.Partitions) > 0
	for _, p := range resp.Partitions {
		md.Leaders[p.TP] = p
		if p.Leader == "" {
			complete = false
		}
	}
	if !complete {
		md.retryAt(env, env.Now()+md.BackoffMs)
	}
}

// leader returns the partition's leader, or "".
func (md *metadata) leader(tp protocol.TP) string { return md.Leaders[tp].Leader }

// partitions counts a topic's partitions as known, 0 if unknown.
func (md *metadata) partitions(topic string) int {
	n := 0
	for tp := range md.Leaders {
		if tp.Topic == topic {
			n++
		}
	}
	return n
}

// forget drops a leader after an error that says it moved.
func (md *metadata) forget(tp protocol.TP) {
	if p, ok := md.Leaders[tp]; ok {
		p.Leader = ""
		md.Leaders[tp] = p
	}
}
