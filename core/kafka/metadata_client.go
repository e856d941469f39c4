package kafka

import "deliverylab/core/sim"

// metadataClient is the part of a client that learns partition leaders from brokers,
// trying bootstrap brokers in turn when one does not answer.
type metadataClient struct {
	Bootstrap []string
	Topics    []string
	Leaders   map[TP]PartitionState
	Next      int // which bootstrap broker to ask next
	InFlight  bool
	ReqSeq    int64 // bumps per request, to ignore late timeouts
}

func (mc *metadataClient) clone() metadataClient {
	c := *mc
	c.Bootstrap = append([]string(nil), mc.Bootstrap...)
	c.Topics = append([]string(nil), mc.Topics...)
	c.Leaders = make(map[TP]PartitionState, len(mc.Leaders))
	for k, v := range mc.Leaders {
		c.Leaders[k] = v
	}
	return c
}

// metadataTimer retries a metadata request that got no answer.
type metadataTimer struct{ Seq int64 }

func (metadataTimer) Kind() string     { return "timer" }
func (metadataTimer) Describe() string { return "timer metadata" }

func (mc *metadataClient) reset() {
	mc.Leaders = map[TP]PartitionState{}
	mc.InFlight = false
}

// refresh asks a broker for leadership unless a request is already out.
func (mc *metadataClient) refresh(env *sim.Env, timeoutMs int64) {
	if mc.InFlight || len(mc.Bootstrap) == 0 {
		return
	}
	mc.InFlight = true
	mc.ReqSeq++
	to := mc.Bootstrap[mc.Next%len(mc.Bootstrap)]
	env.Send(to, MetadataRequest{Topics: mc.Topics})
	env.After(timeoutMs, metadataTimer{Seq: mc.ReqSeq})
}

// onTimer handles a metadata timeout: try the next broker.
func (mc *metadataClient) onTimer(env *sim.Env, t metadataTimer, timeoutMs int64) {
	if t.Seq == -1 { // the backoff after a refused request ended
		mc.refresh(env, timeoutMs)
		return
	}
	if mc.InFlight && t.Seq == mc.ReqSeq {
		mc.InFlight = false
		mc.Next++
		mc.refresh(env, timeoutMs)
	}
}

// onRefused moves on to the next bootstrap broker after a refused metadata request.
func (mc *metadataClient) onRefused(env *sim.Env, backoffMs int64) {
	mc.InFlight = false
	mc.Next++
	mc.ReqSeq++
	env.After(backoffMs, metadataTimer{Seq: -1})
}

// onResponse records leaders; it reports whether every partition has one.
func (mc *metadataClient) onResponse(resp MetadataResponse) bool {
	mc.InFlight = false
	complete := len(resp.Partitions) > 0
	for _, p := range resp.Partitions {
		mc.Leaders[p.TP] = p
		if p.Leader == "" {
			complete = false
		}
	}
	return complete
}

// leader returns the partition's leader, or "".
func (mc *metadataClient) leader(tp TP) string { return mc.Leaders[tp].Leader }

// partitions counts a topic's partitions as known, 0 if unknown.
func (mc *metadataClient) partitions(topic string) int {
	n := 0
	for tp := range mc.Leaders {
		if tp.Topic == topic {
			n++
		}
	}
	return n
}

// forget drops a leader after an error that says it moved.
func (mc *metadataClient) forget(tp TP) {
	if p, ok := mc.Leaders[tp]; ok {
		p.Leader = ""
		mc.Leaders[tp] = p
	}
}
