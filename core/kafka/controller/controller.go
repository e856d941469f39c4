// Package controller is the KRaft controller quorum, drawn as one node that survives
// broker crashes: broker registration and sessions (ClusterControlManager,
// BrokerHeartbeatManager), fencing, leader election and ISR changes
// (ReplicationControlManager). Everything it holds is durable: it stands for a
// replicated quorum.
package controller

import (
	"fmt"
	"maps"
	"slices"

	"deliverylab/core/fate"
	"deliverylab/core/kafka/protocol"
	"deliverylab/core/show"
	"deliverylab/core/sim"
)

// Config is what the controller reads of the cluster's configuration.
type Config struct {
	BrokerSessionTimeoutMs    int64 // broker.session.timeout.ms
	BrokerHeartbeatIntervalMs int64 // broker.heartbeat.interval.ms: the session check runs at half of it
	UncleanLeaderElection     bool  // unclean.leader.election.enable
	MinInsyncReplicas         int   // min.insync.replicas: the ELR is kept while an ISR is smaller
	// EligibleLeaderReplicas is the feature eligible.leader.replicas.version 1 (KIP-966),
	// on in a new Kafka 4.1+ cluster: an ISR smaller than min.insync.replicas keeps the
	// replicas it lost as eligible leaders, and a fenced broker leaves even as the ISR's
	// last member.
	EligibleLeaderReplicas bool
}

// Controller fences brokers whose heartbeats stop (R20b), elects leaders from the ISR
// (R6) and applies ISR changes.
type Controller struct {
	cfg        Config
	brokers    []string
	partitions map[protocol.TP]*protocol.PartitionState
	sessions   map[string]*brokerSession
	// metadataOffset is the end of the metadata log, counted in partition changes (the
	// records of broker registrations and fencing are left out: brokers act on
	// partition states only).
	metadataOffset int64
	changedAt      map[protocol.TP]int64 // the metadata offset of each partition's last change
	// nextProducerID is the first producer id not yet handed to a broker (the
	// ProducerIdsRecord of the metadata log).
	nextProducerID int64
}

// brokerSession is a broker's registration and its session (BrokerHeartbeatManager).
type brokerSession struct {
	Incarnation     int64
	LastHeartbeatMs int64
	Fenced          bool
	RegisteredAt    int64 // the metadata log's end when it registered
}

// sessionCheck is the controller's one timer: look for expired broker sessions.
type sessionCheck struct{}

func (sessionCheck) Kind() string     { return "SessionCheck" }
func (sessionCheck) Describe() string { return sessionCheckLine }

// The timers' lines in the trace, from their Kinds (sim.TimerLine).
var (
	sessionCheckLine = sim.TimerLine("", sessionCheck{})
)

// New makes the controller with the initial partition assignment.
func New(cfg Config, brokers []string, partitions []protocol.PartitionState) *Controller {
	c := &Controller{cfg: cfg, brokers: brokers, partitions: map[protocol.TP]*protocol.PartitionState{},
		sessions: map[string]*brokerSession{}, changedAt: map[protocol.TP]int64{}}
	for _, p := range partitions {
		pc := p.Clone()
		c.partitions[p.TP] = &pc
	}
	for _, b := range brokers {
		// Brokers start fenced until they register, as in KRaft.
		c.sessions[b] = &brokerSession{Fenced: true}
	}
	return c
}

// Name implements sim.Node.
func (c *Controller) Name() string { return protocol.ControllerName }

// Start arms the session check.
func (c *Controller) Start(env *sim.Env) { env.After(c.checkEveryMs(), sessionCheck{}) }

func (c *Controller) checkEveryMs() int64 { return max(c.cfg.BrokerHeartbeatIntervalMs/2, 1) }

// Crash is a no-op: the controller is a quorum (its state is durable).
func (c *Controller) Crash() {}

// Clone implements sim.Node.
func (c *Controller) Clone() sim.Node {
	cc := *c
	cc.brokers = slices.Clone(c.brokers)
	cc.partitions = make(map[protocol.TP]*protocol.PartitionState, len(c.partitions))
	for k, p := range c.partitions {
		pc := p.Clone()
		cc.partitions[k] = &pc
	}
	cc.changedAt = maps.Clone(c.changedAt)
	cc.sessions = make(map[string]*brokerSession, len(c.sessions))
	for k, s := range c.sessions {
		sc := *s
		cc.sessions[k] = &sc
	}
	return &cc
}

// Partition returns the controller's state of a partition. Its slices are the
// controller's own: a reader looks and lets go (the settle check asks at every instant,
// and a copy each time was a tenth of the explorer's allocations); Clone it to keep it.
func (c *Controller) Partition(tp protocol.TP) (protocol.PartitionState, bool) {
	p, ok := c.partitions[tp]
	if !ok {
		return protocol.PartitionState{}, false
	}
	return *p, true
}

// Fenced reports whether the controller has fenced a broker.
func (c *Controller) Fenced(broker string) bool {
	s := c.sessions[broker]
	return s == nil || s.Fenced
}

// TPs lists every partition, sorted.
func (c *Controller) TPs() []protocol.TP {
	return protocol.SortedTPs(c.partitions)
}

// Receive handles registrations, heartbeats and ISR changes.
func (c *Controller) Receive(env *sim.Env, m sim.Message) {
	switch p := m.Payload.(type) {
	case protocol.BrokerRegistration:
		c.onRegistration(env, m.From, p)
	case protocol.BrokerHeartbeat:
		c.onHeartbeat(env, m.From, p)
	case protocol.AlterPartition:
		c.onAlterPartition(env, m.From, p)
	case protocol.AllocateProducerIdsRequest:
		c.onAllocateProducerIds(env, m.From, p)
	}
}

// Fire fences brokers whose session ran out.
func (c *Controller) Fire(env *sim.Env, _ sim.Payload) {
	for _, b := range c.brokers {
		s := c.sessions[b]
		if !s.Fenced && env.Now()-s.LastHeartbeatMs > c.cfg.BrokerSessionTimeoutMs {
			c.fence(env, b, fmt.Sprintf("no heartbeat for %dms", c.cfg.BrokerSessionTimeoutMs))
		}
	}
	env.After(c.checkEveryMs(), sessionCheck{})
}

// onRegistration accepts a (re)started broker, fenced, and sends it the metadata log; it
// is unfenced by the heartbeat that shows it has read its registration. While the
// broker's previous session is still valid — it restarted within
// broker.session.timeout.ms of its last heartbeat — the registration is refused, and the
// broker tries again until that session has expired and fenced it
// (ClusterControlManager.registerBroker, BrokerHeartbeatManager.hasValidSession).
func (c *Controller) onRegistration(env *sim.Env, from string, p protocol.BrokerRegistration) {
	s := c.sessions[p.Broker]
	if s == nil {
		return
	}
	if s.Incarnation != p.Incarnation && c.hasValidSession(env, s) {
		env.Note("refuses the registration of " + p.Broker + ": its previous session has not expired")
		env.Send(from, protocol.BrokerRegistrationResponse{Err: protocol.ErrDuplicateBrokerRegistration})
		return
	}
	if s.Incarnation != 0 && s.Incarnation != p.Incarnation && c.cfg.EligibleLeaderReplicas {
		c.uncleanShutdown(env, p.Broker)
	}
	if s.Incarnation != p.Incarnation || s.Fenced {
		s.Incarnation = p.Incarnation
		s.Fenced = true
		s.RegisteredAt = c.metadataOffset
	} // else the registration was resent after it was accepted: it changes nothing
	s.LastHeartbeatMs = env.Now()
	c.send(env, from, 0, c.all())
	env.Send(from, protocol.BrokerRegistrationResponse{})
}

func (c *Controller) hasValidSession(env *sim.Env, s *brokerSession) bool {
	return !s.Fenced && env.Now()-s.LastHeartbeatMs <= c.cfg.BrokerSessionTimeoutMs
}

// onHeartbeat keeps a session alive. A broker behind the metadata log is sent it (KRaft
// brokers fetch the log, fenced or not, so one that was cut off learns the leaders
// elected meanwhile and follows them), and a fenced broker that has read its own
// registration is unfenced (BrokerHeartbeatManager.calculateNextBrokerState: FENCED to
// UNFENCED once its metadata offset reaches its registration record).
func (c *Controller) onHeartbeat(env *sim.Env, from string, hb protocol.BrokerHeartbeat) {
	s := c.sessions[hb.Broker]
	if s == nil || s.Incarnation != hb.Incarnation {
		env.Send(from, protocol.BrokerHeartbeatResponse{Fenced: true})
		return
	}
	s.LastHeartbeatMs = env.Now()
	if s.Fenced && hb.MetadataOffset >= s.RegisteredAt {
		c.unfence(env, hb.Broker)
	}
	if hb.MetadataOffset < c.metadataOffset {
		c.send(env, from, hb.MetadataOffset, c.since(hb.MetadataOffset))
	}
	env.Send(from, protocol.BrokerHeartbeatResponse{Fenced: s.Fenced})
}

// unfence lets a broker lead again: the partitions left without a leader that it hosts
// elect it, if it may be elected (handleBrokerUnfenced).
func (c *Controller) unfence(env *sim.Env, broker string) {
	c.sessions[broker].Fenced = false
	c.metadataOffset++
	env.Note("unfences " + broker)
	var changed []protocol.TP
	for _, tp := range c.TPs() {
		st := c.partitions[tp]
		if st.Leader == "" && slices.Contains(st.Replicas, broker) &&
			c.change(env, st, partitionChange{isr: st.ISR, acceptable: c.active, sayOffline: true}) {
			changed = append(changed, tp)
		}
	}
	c.publish(env, changed, broker)
}

// fence removes a broker from leadership and from ISRs (never emptying an ISR under
// Kafka 3.9, R20b), and elects new leaders (handleBrokerFenced).
func (c *Controller) fence(env *sim.Env, broker, why string) {
	c.sessions[broker].Fenced = true
	c.metadataOffset++ // its registration change, which every broker reads
	env.Note("fences " + broker + ": " + why)
	c.remove(env, broker, partitionChange{isr: nil, acceptable: c.active}, false)
}

// uncleanShutdown takes a broker that registers again after a crash out of every ISR
// and ELR (handleBrokerShutdown with ELR on: a broker killed without a clean shutdown
// may have lost what it acknowledged, and its registration says so). Every simulated
// crash is unclean.
func (c *Controller) uncleanShutdown(env *sim.Env, broker string) {
	env.Note("reads an unclean shutdown in " + broker + "'s registration")
	acceptable := func(r string) bool { return r != broker && c.active(r) }
	c.remove(env, broker, partitionChange{acceptable: acceptable, uncleanShutdown: broker}, true)
}

// remove runs ch, with broker taken out of the target ISR, on each partition whose ISR
// (or, with fromELR, whose ELR) holds broker, and publishes the changes.
func (c *Controller) remove(env *sim.Env, broker string, ch partitionChange, fromELR bool) {
	var changed []protocol.TP
	for _, tp := range c.TPs() {
		st := c.partitions[tp]
		if !slices.Contains(st.ISR, broker) && !(fromELR && slices.Contains(st.ELR, broker)) {
			continue
		}
		ch.isr = without(st.ISR, broker)
		if c.change(env, st, ch) {
			changed = append(changed, tp)
		}
	}
	c.publish(env, changed, "")
}

// active is whether a broker may lead: registered and unfenced.
func (c *Controller) active(b string) bool { return !c.Fenced(b) }

func (c *Controller) onAlterPartition(env *sim.Env, from string, p protocol.AlterPartition) {
	st := c.partitions[p.TP]
	if st == nil || st.Leader != p.Leader || st.LeaderEpoch != p.LeaderEpoch || st.PartitionEpoch != p.PartitionEpoch {
		env.Send(from, protocol.AlterPartitionResponse{TP: p.TP, Err: protocol.ErrInvalidUpdateVersion})
		return
	}
	// A fenced broker may not join an ISR (ReplicationControlManager, KIP-841); the
	// leader checks the same before it asks (Partition.isReplicaIsrEligible).
	isr := slices.Clone(p.NewISR)
	for _, r := range isr {
		if c.Fenced(r) && r != st.Leader && !slices.Contains(st.ISR, r) {
			env.Send(from, protocol.AlterPartitionResponse{TP: p.TP, Err: protocol.ErrIneligibleReplica})
			return
		}
	}
	// The ISR is kept in replica order.
	slices.SortStableFunc(isr, func(a, b string) int {
		return slices.Index(st.Replicas, a) - slices.Index(st.Replicas, b)
	})
	if !c.change(env, st, partitionChange{isr: isr, acceptable: c.active}) {
		st.PartitionEpoch++ // an answer is a new version of the partition, even one that changed nothing
	}
	env.Send(from, protocol.AlterPartitionResponse{TP: p.TP, State: st.Clone()})
	// The leader reads the change in the metadata log too, as every broker does.
	c.publish(env, []protocol.TP{p.TP}, "")
}

// since is the tail of the metadata log a broker has not read: the partitions changed
// after offset.
func (c *Controller) since(offset int64) []protocol.PartitionState {
	var out []protocol.PartitionState
	for _, tp := range c.TPs() {
		if c.changedAt[tp] > offset {
			out = append(out, c.partitions[tp].Clone())
		}
	}
	return out
}

func (c *Controller) all() []protocol.PartitionState {
	var out []protocol.PartitionState
	for _, tp := range c.TPs() {
		out = append(out, c.partitions[tp].Clone())
	}
	return out
}

// publish appends changed partitions to the metadata log and pushes the log's new
// records to every unfenced broker but skip (which catches up otherwise). Fenced brokers
// read them with their next heartbeat (onHeartbeat).
func (c *Controller) publish(env *sim.Env, tps []protocol.TP, skip string) {
	var states []protocol.PartitionState
	from := c.metadataOffset
	for _, tp := range tps {
		c.metadataOffset++
		c.changedAt[tp] = c.metadataOffset
		states = append(states, c.partitions[tp].Clone())
	}
	for _, b := range c.brokers {
		if b != skip && !c.Fenced(b) {
			c.send(env, b, from, states)
		}
	}
}

func (c *Controller) send(env *sim.Env, to string, from int64, states []protocol.PartitionState) {
	env.Send(to, protocol.MetadataUpdate{Partitions: states, Fenced: c.fenced(), Offset: c.metadataOffset, From: from})
}

func (c *Controller) fenced() []string {
	var out []string
	for _, b := range c.brokers {
		if c.Fenced(b) {
			out = append(out, b)
		}
	}
	return out
}

// Show implements show.Shower.
func (c *Controller) Show(sim.View) show.Node {
	return show.Node{Kind: show.Controller, Status: fate.Because(fate.StatusQuorum)}
}

// onAllocateProducerIds hands a registered broker the next block of producer ids, in
// order of asking, so that no id goes to two producers
// (ProducerIdControlManager.generateNextProducerId; a request from a past incarnation
// is refused, as a stale broker epoch is).
func (c *Controller) onAllocateProducerIds(env *sim.Env, from string, p protocol.AllocateProducerIdsRequest) {
	if s := c.sessions[p.Broker]; s == nil || s.Incarnation != p.Incarnation {
		env.Send(from, protocol.AllocateProducerIdsResponse{Err: protocol.ErrStaleBrokerEpoch})
		return
	}
	start := c.nextProducerID
	c.nextProducerID += protocol.ProducerIDBlockSize
	env.Send(from, protocol.AllocateProducerIdsResponse{Start: start, Len: protocol.ProducerIDBlockSize})
}
