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
func (metadataTimeout) Describe() string { return "timer metadata-timeout" }
func (metadataRetry) Kind() string       { return "MetadataRetry" }
func (metadataRetry) Describe() string   { return "timer metadata-retry" }

func (md *metadata) reset() {
	md.Leaders = map[protocol.TP]protocol.PartitionState{}
	md.InFlight = false
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
	md.InFlight = true
	md.ReqSeq++
	env.Send(md.bootstrapBroker(), protocol.MetadataRequest{Topics: md.Topics})
	env.After(timeoutMs, metadataTimeout{Seq: md.ReqSeq})
}

// onTimer handles the metadata timers.
func (md *metadata) onTimer(env *sim.Env, t sim.Payload, timeoutMs int64) {
	switch t := t.(type) {
	case metadataRetry:
		md.refresh(env, timeoutMs)
	case metadataTimeout:
		if md.InFlight && t.Seq == md.ReqSeq {
			md.InFlight = false
			md.Next++
			md.refresh(env, timeoutMs)
		}
	}
}

// onRefused moves on to the next bootstrap broker after a refused metadata request.
func (md *metadata) onRefused(env *sim.Env, backoffMs int64) {
	md.InFlight = false
	md.Next++
	md.ReqSeq++
	env.After(backoffMs, metadataRetry{})
}

// onResponse records leaders and, when some partition has none, asks again after
// backoffMs.
func (md *metadata) onResponse(env *sim.Env, resp protocol.MetadataResponse, backoffMs int64) {
	md.InFlight = false
	complete := len(resp.Partitions) > 0
	for _, p := range resp.Partitions {
		md.Leaders[p.TP] = p
		if p.Leader == "" {
			complete = false
		}
	}
	if !complete {
		env.After(backoffMs, metadataRetry{})
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
