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

	"deliverylab/core/kafka/protocol"
	"deliverylab/core/show"
	"deliverylab/core/sim"
)

// Config is what the controller reads of the cluster's configuration.
type Config struct {
	BrokerSessionTimeoutMs    int64 // broker.session.timeout.ms
	BrokerHeartbeatIntervalMs int64 // broker.heartbeat.interval.ms: the session check runs at half of it
	UncleanLeaderElection     bool  // unclean.leader.election.enable
}

// Controller fences brokers whose heartbeats stop (R20b), elects leaders from the ISR
// (R6) and applies ISR changes.
type Controller struct {
	cfg        Config
	brokers    []string
	partitions map[protocol.TP]*protocol.PartitionState
	sessions   map[string]*brokerSession
}

type brokerSession struct {
	Incarnation     int64
	LastHeartbeatMs int64
	Fenced          bool
}

// sessionCheck is the controller's one timer: look for expired broker sessions.
type sessionCheck struct{}

func (sessionCheck) Kind() string     { return "SessionCheck" }
func (sessionCheck) Describe() string { return "timer session-check" }

// New makes the controller with the initial partition assignment.
func New(cfg Config, brokers []string, partitions []protocol.PartitionState) *Controller {
	c := &Controller{cfg: cfg, brokers: brokers, partitions: map[protocol.TP]*protocol.PartitionState{},
		sessions: map[string]*brokerSession{}}
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
	cc.sessions = make(map[string]*brokerSession, len(c.sessions))
	for k, s := range c.sessions {
		sc := *s
		cc.sessions[k] = &sc
	}
	return &cc
}

// Partition returns the controller's state of a partition.
func (c *Controller) Partition(tp protocol.TP) (protocol.PartitionState, bool) {
	p, ok := c.partitions[tp]
	if !ok {
		return protocol.PartitionState{}, false
	}
	return p.Clone(), true
}

// Fenced reports whether the controller has fenced a broker.
func (c *Controller) Fenced(broker string) bool {
	s := c.sessions[broker]
	return s == nil || s.Fenced
}

// TPs lists every partition, sorted.
func (c *Controller) TPs() []protocol.TP {
	return slices.SortedFunc(maps.Keys(c.partitions), protocol.CompareTP)
}

// Receive handles registrations, heartbeats and ISR changes.
func (c *Controller) Receive(env *sim.Env, m sim.Message) {
	switch p := m.Payload.(type) {
	case protocol.BrokerRegistration:
		c.onRegistration(env, p)
	case protocol.BrokerHeartbeat:
		s := c.sessions[p.Broker]
		if s == nil || s.Incarnation != p.Incarnation {
			env.Send(m.From, protocol.BrokerHeartbeatResponse{Fenced: true})
			return
		}
		s.LastHeartbeatMs = env.Now()
		env.Send(m.From, protocol.BrokerHeartbeatResponse{Fenced: s.Fenced})
	case protocol.AlterPartition:
		c.onAlterPartition(env, m.From, p)
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

// onRegistration unfences a (re)started broker. A broker that comes back with a new
// incarnation before its session expired is first fenced, so leadership moves off its
// lost in-memory state, as KRaft does for an unclean restart.
func (c *Controller) onRegistration(env *sim.Env, p protocol.BrokerRegistration) {
	s := c.sessions[p.Broker]
	if s == nil {
		return
	}
	if !s.Fenced && s.Incarnation != p.Incarnation {
		c.fence(env, p.Broker, "re-registered after a restart")
	}
	s.Incarnation = p.Incarnation
	s.LastHeartbeatMs = env.Now()
	s.Fenced = false
	env.Note("unfences " + p.Broker)
	var changed []protocol.TP
	for _, tp := range c.TPs() {
		st := c.partitions[tp]
		if st.Leader == "" && slices.Contains(st.Replicas, p.Broker) && c.elect(env, st) {
			changed = append(changed, tp)
		}
	}
	c.send(env, p.Broker, c.all())
	c.broadcast(env, changed, p.Broker)
}

// fence removes a broker from leadership and from ISRs, one at a time and never emptying
// an ISR (R20b), and elects new leaders.
func (c *Controller) fence(env *sim.Env, broker, why string) {
	c.sessions[broker].Fenced = true
	env.Note("fences " + broker + ": " + why)
	var changed []protocol.TP
	for _, tp := range c.TPs() {
		st := c.partitions[tp]
		touched := false
		if slices.Contains(st.ISR, broker) && len(st.ISR) > 1 {
			st.ISR = slices.DeleteFunc(slices.Clone(st.ISR), func(b string) bool { return b == broker })
			touched = true
		}
		if st.Leader == broker {
			st.Leader = ""
			c.elect(env, st)
			touched = true
		}
		if touched {
			st.PartitionEpoch++
			changed = append(changed, tp)
		}
	}
	c.broadcast(env, changed, "")
}

// elect picks a leader for an offline partition: the first live ISR member in replica
// order, or, with unclean.leader.election.enable, any live replica (R6). It reports
// whether a leader was found.
func (c *Controller) elect(env *sim.Env, st *protocol.PartitionState) bool {
	for _, r := range st.Replicas {
		if slices.Contains(st.ISR, r) && !c.Fenced(r) {
			c.setLeader(env, st, r, "clean")
			return true
		}
	}
	if c.cfg.UncleanLeaderElection {
		for _, r := range st.Replicas {
			if !c.Fenced(r) {
				st.ISR = []string{r}
				c.setLeader(env, st, r, "unclean")
				return true
			}
		}
	}
	env.Note(fmt.Sprintf("%s offline: no live in-sync replica (isr=%v)", st.TP, st.ISR))
	env.Observe(sim.Observation{Event: protocol.Offline, Partition: st.TP.String()})
	return false
}

func (c *Controller) setLeader(env *sim.Env, st *protocol.PartitionState, leader, how string) {
	st.Leader = leader
	st.LeaderEpoch++
	st.PartitionEpoch++
	env.Observe(sim.Observation{Event: protocol.Elected, Partition: st.TP.String(), Epoch: st.LeaderEpoch, Election: how})
	env.Note(fmt.Sprintf("elects %s leader of %s epoch=%d (%s)", leader, st.TP, st.LeaderEpoch, how))
}

func (c *Controller) onAlterPartition(env *sim.Env, from string, p protocol.AlterPartition) {
	st := c.partitions[p.TP]
	if st == nil || st.Leader != p.Leader || st.LeaderEpoch != p.LeaderEpoch || st.PartitionEpoch != p.PartitionEpoch {
		env.Send(from, protocol.AlterPartitionResponse{TP: p.TP, Err: protocol.ErrInvalidUpdateVersion})
		return
	}
	var isr []string
	for _, r := range p.NewISR {
		if !c.Fenced(r) || r == st.Leader {
			isr = append(isr, r)
		}
	}
	// The ISR is kept in replica order.
	slices.SortStableFunc(isr, func(a, b string) int {
		return slices.Index(st.Replicas, a) - slices.Index(st.Replicas, b)
	})
	st.ISR = isr
	st.PartitionEpoch++
	env.Send(from, protocol.AlterPartitionResponse{TP: p.TP, State: st.Clone()})
	c.broadcast(env, []protocol.TP{p.TP}, from)
}

func (c *Controller) all() []protocol.PartitionState {
	var out []protocol.PartitionState
	for _, tp := range c.TPs() {
		out = append(out, c.partitions[tp].Clone())
	}
	return out
}

// broadcast pushes changed partitions to every unfenced broker but skip.
func (c *Controller) broadcast(env *sim.Env, tps []protocol.TP, skip string) {
	if len(tps) == 0 {
		return
	}
	var states []protocol.PartitionState
	for _, tp := range tps {
		states = append(states, c.partitions[tp].Clone())
	}
	for _, b := range c.brokers {
		if b != skip && !c.Fenced(b) {
			c.send(env, b, states)
		}
	}
}

func (c *Controller) send(env *sim.Env, to string, states []protocol.PartitionState) {
	env.Send(to, protocol.MetadataUpdate{Partitions: states})
}

// Show implements show.Shower.
func (c *Controller) Show(sim.View) show.Node {
	return show.Node{Kind: show.Controller, Detail: "KRaft quorum"}
}
