package kafka

import (
	"sort"

	"deliverylab/core/sim"
)

// ControllerName is the KRaft controller quorum's node name.
const ControllerName = "controller"

// OffsetsTopic is the internal topic holding committed offsets.
const OffsetsTopic = "__consumer_offsets"

// replicaSocketTimeoutMs bounds a follower fetch whose answer never comes (a cut link).
const replicaSocketTimeoutMs = 30000

// Broker is a Kafka broker: partition replicas, the leader's produce and fetch handling,
// follower fetching, and the group coordinator for groups whose offsets partition it
// leads.
type Broker struct {
	name string
	cfg  BrokerConfig

	// durable
	replicas    map[TP]*Replica
	incarnation int64

	// volatile
	meta       map[TP]PartitionState
	registered bool
	reqSeq     int64
	purgatory  []delayedProduce
	parked     []parkedFetch
	groups     map[string]*group
	commits    []delayedCommit
}

type delayedProduce struct {
	From       string
	Req        ProduceRequest
	BaseOffset int64
	LastOffset int64
	DeadlineMs int64
}

type parkedFetch struct {
	From       string
	Req        FetchRequest
	DeadlineMs int64
}

// brokerTimer is a broker's timer payload.
type brokerTimer struct {
	What string
	TP   TP
	ID   int64
	Key  string
}

func (t brokerTimer) Kind() string     { return "timer" }
func (t brokerTimer) Describe() string { return "timer " + t.What + " " + t.TP.String() + " " + t.Key }

// NewBroker makes a broker with empty logs.
func NewBroker(name string, cfg BrokerConfig) *Broker {
	return &Broker{name: name, cfg: cfg, replicas: map[TP]*Replica{}}
}

// Name implements sim.Node.
func (b *Broker) Name() string { return b.name }

// Start registers with the controller and starts heartbeating.
func (b *Broker) Start(env *sim.Env) {
	b.incarnation++
	b.meta = map[TP]PartitionState{}
	b.groups = map[string]*group{}
	env.Send(ControllerName, BrokerRegistration{Broker: b.name, Incarnation: b.incarnation})
	env.After(b.cfg.BrokerHeartbeatIntervalMs, brokerTimer{What: "heartbeat"})
	env.After(b.cfg.ReplicaLagTimeMaxMs/2, brokerTimer{What: "isr-check"})
}

// Crash drops everything but the logs, epoch caches and high-watermark checkpoints.
func (b *Broker) Crash() {
	b.meta = nil
	b.registered = false
	b.purgatory = nil
	b.parked = nil
	b.groups = nil
	b.commits = nil
	for _, r := range b.replicas {
		r.followers = nil
		r.isrPending = false
		r.fetch = followerFetch{}
	}
}

// Clone implements sim.Node.
func (b *Broker) Clone() sim.Node {
	c := *b
	c.replicas = make(map[TP]*Replica, len(b.replicas))
	for k, r := range b.replicas {
		c.replicas[k] = r.clone()
	}
	if b.meta != nil {
		c.meta = make(map[TP]PartitionState, len(b.meta))
		for k, v := range b.meta {
			c.meta[k] = v.clone()
		}
	}
	c.purgatory = append([]delayedProduce(nil), b.purgatory...)
	c.parked = append([]parkedFetch(nil), b.parked...)
	c.commits = append([]delayedCommit(nil), b.commits...)
	if b.groups != nil {
		c.groups = make(map[string]*group, len(b.groups))
		for k, g := range b.groups {
			c.groups[k] = g.clone()
		}
	}
	return &c
}

// Replica returns this broker's replica of a partition, if it hosts one.
func (b *Broker) Replica(tp TP) *Replica { return b.replicas[tp] }

// TPs lists the partitions this broker hosts, sorted.
func (b *Broker) TPs() []TP {
	out := make([]TP, 0, len(b.replicas))
	for tp := range b.replicas {
		out = append(out, tp)
	}
	sortTPs(out)
	return out
}

// Meta returns the broker's view of a partition's state.
func (b *Broker) Meta(tp TP) (PartitionState, bool) {
	p, ok := b.meta[tp]
	return p, ok
}

// IsLeader reports whether this broker currently leads the partition.
func (b *Broker) IsLeader(tp TP) bool {
	p, ok := b.meta[tp]
	return ok && p.Leader == b.name
}

// HostReplica creates an empty replica; the scene builder calls it for the initial
// assignment so that logs exist before the first metadata arrives.
func (b *Broker) HostReplica(tp TP) {
	if b.replicas[tp] == nil {
		b.replicas[tp] = &Replica{TP: tp}
	}
}

func sortTPs(tps []TP) {
	sort.Slice(tps, func(i, j int) bool {
		if tps[i].Topic != tps[j].Topic {
			return tps[i].Topic < tps[j].Topic
		}
		return tps[i].Partition < tps[j].Partition
	})
}

func (b *Broker) nextReq() int64 {
	b.reqSeq++
	return b.reqSeq
}

// Receive dispatches a message.
func (b *Broker) Receive(env *sim.Env, m sim.Message) {
	switch p := m.Payload.(type) {
	case MetadataUpdate:
		b.onMetadata(env, p.Partitions)
	case BrokerHeartbeatResponse:
		b.registered = !p.Fenced
	case AlterPartitionResponse:
		b.onAlterPartitionResponse(env, p)
	case ApiVersionsRequest:
		env.Send(m.From, ApiVersionsResponse{})
	case MetadataRequest:
		env.Send(m.From, MetadataResponse{Partitions: b.metadataFor(p.Topics)})
	case ProduceRequest:
		b.onProduce(env, m.From, p)
	case FetchRequest:
		b.onFetch(env, m.From, p)
	case FetchResponse:
		b.onFetchResponse(env, m.From, p)
	case ListOffsetsRequest:
		b.onListOffsets(env, m.From, p)
	case FindCoordinatorRequest:
		env.Send(m.From, b.findCoordinator(p.Group))
	case JoinGroupRequest:
		b.onJoinGroup(env, m.From, p)
	case SyncGroupRequest:
		b.onSyncGroup(env, m.From, p)
	case HeartbeatRequest:
		b.onHeartbeat(env, m.From, p)
	case OffsetCommitRequest:
		b.onOffsetCommit(env, m.From, p)
	case OffsetFetchRequest:
		b.onOffsetFetch(env, m.From, p)
	case sim.Refused:
		b.onRefused(env, p)
	}
}

// Fire dispatches a timer.
func (b *Broker) Fire(env *sim.Env, t sim.Payload) {
	bt := t.(brokerTimer)
	switch bt.What {
	case "heartbeat":
		env.Send(ControllerName, BrokerHeartbeat{Broker: b.name, Incarnation: b.incarnation})
		env.After(b.cfg.BrokerHeartbeatIntervalMs, bt)
	case "isr-check":
		b.checkISR(env)
		env.After(b.cfg.ReplicaLagTimeMaxMs/2, bt)
	case "produce-timeout":
		b.expireProduces(env)
	case "fetch-wait":
		b.expireParkedFetches(env)
	case "fetch-retry":
		b.sendFollowerFetch(env, bt.TP)
	case "fetch-timeout":
		if r := b.replicas[bt.TP]; r != nil && r.fetch.InFlight && r.fetch.ReqID == bt.ID {
			r.fetch.InFlight = false
			b.sendFollowerFetch(env, bt.TP)
		}
	case "complete-delayed":
		b.completeDelayed(env, bt.TP)
	case "member-expiry":
		b.expireMember(env, bt.Key, bt.ID)
	case "initial-rebalance":
		b.completeJoin(env, bt.Key)
	}
}

func (b *Broker) metadataFor(topics []string) []PartitionState {
	want := map[string]bool{}
	for _, t := range topics {
		want[t] = true
	}
	var out []PartitionState
	for _, tp := range b.metaTPs() {
		if len(want) == 0 || want[tp.Topic] {
			out = append(out, b.meta[tp].clone())
		}
	}
	return out
}

func (b *Broker) metaTPs() []TP {
	out := make([]TP, 0, len(b.meta))
	for tp := range b.meta {
		out = append(out, tp)
	}
	sortTPs(out)
	return out
}

func (b *Broker) onRefused(env *sim.Env, p sim.Refused) {
	if f, ok := p.Orig.(FetchRequest); ok {
		if r := b.replicas[f.TP]; r != nil && r.fetch.InFlight && r.fetch.ReqID == f.ReqID {
			r.fetch.InFlight = false
			env.After(b.cfg.ReplicaFetchBackoffMs, brokerTimer{What: "fetch-retry", TP: f.TP})
		}
	}
}
