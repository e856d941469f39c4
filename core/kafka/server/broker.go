// Package server is a Kafka broker, composed of roles as Kafka's broker is: the replica
// manager (partitions, produce and fetch, replication, the purgatories), the group
// coordinator (package group) and the transaction coordinator (package txn), with the
// broker's own lifecycle — registering with the controller and heartbeating — here. A role owns its state, its messages and its
// timers; the broker hands each delivered message and fired timer to the role that
// takes it.
//
// Where the rules live: partition_hw.go (the high watermark advances), partition_isr.go
// (ISR shrink and expand), produce.go (acks and min.insync.replicas), fetch.go (what a
// fetch may read, KIP-320 divergence), fetcher.go (the follower's side), isr.go
// (AlterPartition), purgatory.go (requests that wait), producer_state.go (the leader's
// answer to an idempotent batch; the state itself lives with the log, in package
// storage), producer_ids.go (InitProducerId and the blocks of producer ids),
// txn_markers.go (a leader writing a transaction coordinator's COMMIT and ABORT markers).
package server

import (
	"deliverylab/core/kafka/group"
	"deliverylab/core/kafka/protocol"
	"deliverylab/core/kafka/txn"
	"deliverylab/core/sim"
)

// Broker is one Kafka broker.
type Broker struct {
	name string
	cfg  Config

	// durable: the logs inside the replica manager, and the incarnation the broker
	// registers with
	incarnation int64

	// volatile: whether the controller accepted this incarnation's registration, and how
	// many times it refused it
	registered    bool
	registrations int

	replicas    ReplicaManager
	groups      group.Coordinator
	txns        txn.Coordinator
	producerIDs producerIDManager // volatile

	// waitedFor is what kept the broker from settling when last asked: asked about first
	// the next time (the settle check runs at every instant, and what held a broker one
	// instant most often holds it the next). A hint only: it never changes the answer.
	waitedFor brokerWait
}

// NewBroker makes a broker with empty logs.
func NewBroker(name string, cfg Config) *Broker {
	return &Broker{name: name, cfg: cfg, replicas: newReplicaManager(name, cfg), groups: group.New(cfg.groupConfig()),
		txns: txn.New(cfg.txnConfig())}
}

func (c Config) groupConfig() group.Config {
	return group.Config{InitialRebalanceDelayMs: c.GroupInitialRebalanceDelayMs, CommitTimeoutMs: OffsetsCommitTimeoutMs,
		OffsetsPartitions: c.OffsetsTopicNumPartitions, ConsumerSessionTimeoutMs: c.GroupConsumerSessionTimeoutMs,
		ConsumerHeartbeatIntervalMs: c.GroupConsumerHeartbeatIntervalMs, ConsumerAssignmentIntervalMs: c.GroupConsumerAssignmentIntervalMs}
}

// Name implements sim.Node.
func (b *Broker) Name() string { return b.name }

// HostReplica creates an empty replica; the cluster builder calls it for the initial
// assignment so that logs exist before the first metadata arrives.
func (b *Broker) HostReplica(tp protocol.TP) { b.replicas.host(tp) }

// Replicas is the broker's replica manager, for tests and state views.
func (b *Broker) Replicas() *ReplicaManager { return &b.replicas }

// Start registers with the controller and starts heartbeating.
func (b *Broker) Start(env *sim.Env) {
	b.incarnation++
	b.registered, b.registrations = false, 0
	b.groups.Reset()
	b.txns.Reset()
	b.producerIDs.reset()
	b.register(env)
	env.After(b.cfg.BrokerHeartbeatIntervalMs, heartbeatTick{})
	b.replicas.start(env)
}

// register sends the registration, and arms its resend after an exponential backoff
// (BrokerLifecycleManager: 100 ms, doubling, up to broker.session.timeout.ms; Kafka's
// 2% jitter is left out), in case the controller refuses it or it is lost.
func (b *Broker) register(env *sim.Env) {
	env.Send(protocol.ControllerName, protocol.BrokerRegistration{Broker: b.name, Incarnation: b.incarnation})
	backoff := min(int64(100)<<min(b.registrations, 20), b.cfg.BrokerSessionTimeoutMs)
	b.registrations++
	env.After(backoff, registrationRetry{Attempt: b.registrations})
}

func (b *Broker) onRegistrationResponse(env *sim.Env, resp protocol.BrokerRegistrationResponse) {
	if resp.Err != "" || b.registered {
		return // the armed resend tries again
	}
	b.registered = true
	b.heartbeat(env) // at once, as BrokerLifecycleManager does after registering
}

func (b *Broker) heartbeat(env *sim.Env) {
	env.Send(protocol.ControllerName, protocol.BrokerHeartbeat{Broker: b.name, Incarnation: b.incarnation,
		MetadataOffset: b.replicas.metadataOffset})
}

// Crash drops everything but the logs, epoch caches and high-watermark checkpoints.
func (b *Broker) Crash() {
	b.registered = false
	b.replicas.crash()
	b.groups.Reset()
	b.txns.Reset()
	b.producerIDs.reset()
}

// Clone implements sim.Node.
func (b *Broker) Clone() sim.Node {
	c := *b
	c.replicas = b.replicas.clone()
	c.groups = b.groups.Clone()
	c.txns = b.txns.Clone()
	c.producerIDs = b.producerIDs.clone()
	return &c
}

// Receive hands a message to the role that takes it.
func (b *Broker) Receive(env *sim.Env, m sim.Message) {
	if _, ok := m.Payload.(protocol.ApiVersionsRequest); ok {
		env.Send(m.From, protocol.ApiVersionsResponse{})
		return
	}
	switch p := m.Payload.(type) {
	case protocol.BrokerRegistrationResponse:
		b.onRegistrationResponse(env, p)
		return
	case protocol.InitProducerIdRequest:
		if p.TransactionalID == "" {
			b.handleInitProducerId(env, m.From, p)
			return
		}
	case sim.Disconnected:
		b.txns.OnDisconnected(env, b, p.Peer)
	case protocol.AllocateProducerIdsResponse:
		b.producerIDs.onResponse(p)
		return
	case sim.Refused:
		if _, ok := p.Orig.(protocol.AllocateProducerIdsRequest); ok {
			b.producerIDs.asking = false
			return
		}
	}
	if b.replicas.handle(env, b, m) || b.txns.Handle(env, b, m) {
		return
	}
	if r, ok := m.Payload.(protocol.TxnOffsetCommitRequest); ok && r.TransactionV2 &&
		b.replicas.startOffsetsAdd(env, b, m.From, r, b.groups.OffsetsPartition(r.Group)) {
		return // offsetsAdded goes on
	}
	b.groups.Handle(env, b, m)
	// A BrokerHeartbeatResponse needs nothing: a fenced broker goes on heartbeating, and
	// the controller unfences it once it has read the metadata log.
}

// Fire hands a timer to the role that set it.
func (b *Broker) Fire(env *sim.Env, t sim.Payload) {
	switch t := t.(type) {
	case heartbeatTick:
		if b.registered {
			b.heartbeat(env)
		}
		env.After(b.cfg.BrokerHeartbeatIntervalMs, t)
		return
	case registrationRetry:
		if !b.registered && t.Attempt == b.registrations {
			b.register(env)
		}
		return
	}
	if b.replicas.fire(env, b, t) || b.txns.Fire(env, b, t) {
		return
	}
	b.groups.Fire(env, b, t)
}

// The replica manager's hooks: what happens to __consumer_offsets matters to the group
// coordinator, what happens to __transaction_state to the transaction coordinator.

func (b *Broker) appendDone(env *sim.Env, ref int64, tp protocol.TP, err protocol.Error) {
	if tp.Topic == protocol.TransactionStateTopic {
		b.txns.AppendDone(env, b, ref, err)
		return
	}
	b.groups.AppendDone(env, b, ref, err)
}

func (b *Broker) becameLeader(env *sim.Env, p *Partition) {
	switch p.TP.Topic {
	case protocol.OffsetsTopic:
		b.groups.OnElection(env, p.TP, &p.Log)
	case protocol.TransactionStateTopic:
		var records []protocol.Record
		for _, batch := range p.Log.Read(0, p.Log.LEO()) {
			records = append(records, batch.Records...)
		}
		b.txns.OnElection(env, b, p.TP, records)
	}
}

func (b *Broker) resigned(env *sim.Env, tp protocol.TP) {
	switch tp.Topic {
	case protocol.OffsetsTopic:
		b.groups.OnResignation(env, tp)
	case protocol.TransactionStateTopic:
		b.txns.OnResignation(tp)
	}
}

// offsetsAdded goes on with a version 2 TxnOffsetCommit once the coordinator added its
// offsets partition to the transaction, or answers it with the error.
func (b *Broker) offsetsAdded(env *sim.Env, from string, req protocol.TxnOffsetCommitRequest, err protocol.Error) {
	if err != "" {
		env.Send(from, protocol.TxnOffsetCommitResponse{ReqID: req.ReqID, Err: err})
		return
	}
	b.groups.Handle(env, b, sim.Message{From: from, To: b.name, Payload: req})
}

func (b *Broker) markerWritten(env *sim.Env, tp protocol.TP, pid int64, commit bool, wireID int64) {
	b.groups.OnTxnMarker(env, tp, pid, commit, wireID)
}

// The group coordinator's Host.

// IsLeader reports whether this broker leads a partition.
func (b *Broker) IsLeader(tp protocol.TP) bool { return b.replicas.leaderOf(tp) != nil }

// Leader is a partition's leader as the metadata cache has it.
func (b *Broker) Leader(tp protocol.TP) string { return b.replicas.meta[tp].Leader }

// TopicPartitions lists a topic's partitions from the metadata cache.
func (b *Broker) TopicPartitions(topic string) []protocol.TP {
	var out []protocol.TP
	for _, st := range b.replicas.metadataFor([]string{topic}) {
		out = append(out, st.TP)
	}
	return out
}

// AppendCommit appends offset-commit records to a __consumer_offsets partition.
func (b *Broker) AppendCommit(env *sim.Env, ref int64, tp protocol.TP, records []protocol.Record, timeoutMs int64) (int64, protocol.Error) {
	return b.replicas.appendAsCoordinator(env, ref, tp, records, timeoutMs)
}

// AppendTxnOffsets appends a TxnOffsetCommit's records to a __consumer_offsets
// partition as a transactional batch of the producer.
func (b *Broker) AppendTxnOffsets(env *sim.Env, ref int64, tp protocol.TP, records []protocol.Record, pid int64, epoch int16, timeoutMs int64) (int64, protocol.Error) {
	return b.replicas.appendTxnAsCoordinator(env, ref, tp, records, pid, epoch, timeoutMs)
}

// The transaction coordinator's Host (with IsLeader and Leader above).

// LeaderEpoch is a partition's leader epoch as the metadata cache has it.
func (b *Broker) LeaderEpoch(tp protocol.TP) int32 { return b.replicas.meta[tp].LeaderEpoch }

// AppendTxnLog appends transaction-log records to a __transaction_state partition, with
// acks=all as TransactionStateManager writes (TransactionLog.EnforcedRequiredAcks).
func (b *Broker) AppendTxnLog(env *sim.Env, ref int64, tp protocol.TP, records []protocol.Record, timeoutMs int64) (int64, protocol.Error) {
	return b.replicas.appendAsCoordinator(env, ref, tp, records, timeoutMs)
}

// NewProducerID hands out a producer id from the broker's block.
func (b *Broker) NewProducerID(env *sim.Env) (int64, bool) { return b.producerIDs.generate(env, b) }

// OffsetsPartition is the __consumer_offsets partition a group lives on, by this broker's
// offsets.topic.num.partitions.
func (b *Broker) OffsetsPartition(groupID string) protocol.TP {
	return b.groups.OffsetsPartition(groupID)
}
