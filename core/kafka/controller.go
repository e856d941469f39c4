package kafka

import (
	"fmt"
	"sort"

	"deliverylab/core/sim"
)

// Controller is the KRaft controller quorum, drawn as one node that survives broker
// crashes. It fences brokers whose heartbeats stop (R20b), elects leaders from the ISR
// (R6) and applies ISR changes. Everything it holds is durable: it stands for a
// replicated quorum.
type Controller struct {
	cfg        BrokerConfig
	brokers    []string
	partitions map[TP]*PartitionState
	sessions   map[string]*brokerSession
}

type brokerSession struct {
	Incarnation     int64
	LastHeartbeatMs int64
	Fenced          bool
}

type controllerTimer struct{}

func (controllerTimer) Kind() string     { return "timer" }
func (controllerTimer) Describe() string { return "timer session-check" }

// NewController makes the controller with the initial partition assignment.
func NewController(cfg BrokerConfig, brokers []string, partitions []PartitionState) *Controller {
	c := &Controller{cfg: cfg, brokers: brokers, partitions: map[TP]*PartitionState{}, sessions: map[string]*brokerSession{}}
	for _, p := range partitions {
		pc := p.clone()
		c.partitions[p.TP] = &pc
	}
	for _, b := range brokers {
		// Brokers start fenced until they register, as in KRaft.
		c.sessions[b] = &brokerSession{Fenced: true}
	}
	return c
}

// Name implements sim.Node.
func (c *Controller) Name() string { return ControllerName }

// Start arms the session check.
func (c *Controller) Start(env *sim.Env) {
	env.After(c.checkEveryMs(), controllerTimer{})
}

func (c *Controller) checkEveryMs() int64 {
	if every := c.cfg.BrokerHeartbeatIntervalMs / 2; every > 0 {
		return every
	}
	return 1
}

// Crash is a no-op: the controller is a quorum (its state is durable).
func (c *Controller) Crash() {}

// Clone implements sim.Node.
func (c *Controller) Clone() sim.Node {
	cc := *c
	cc.brokers = append([]string(nil), c.brokers...)
	cc.partitions = make(map[TP]*PartitionState, len(c.partitions))
	for k, p := range c.partitions {
		pc := p.clone()
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
func (c *Controller) Partition(tp TP) (PartitionState, bool) {
	p, ok := c.partitions[tp]
	if !ok {
		return PartitionState{}, false
	}
	return p.clone(), true
}

// Fenced reports whether the controller has fenced a broker.
func (c *Controller) Fenced(broker string) bool {
	s := c.sessions[broker]
	return s == nil || s.Fenced
}

func (c *Controller) tps() []TP {
	out := make([]TP, 0, len(c.partitions))
	for tp := range c.partitions {
		out = append(out, tp)
	}
	sortTPs(out)
	return out
}

// Receive handles registrations, heartbeats and ISR changes.
func (c *Controller) Receive(env *sim.Env, m sim.Message) {
	switch p := m.Payload.(type) {
	case BrokerRegistration:
		c.onRegistration(env, p)
	case BrokerHeartbeat:
		s := c.sessions[p.Broker]
		if s == nil || s.Incarnation != p.Incarnation {
			env.Send(m.From, BrokerHeartbeatResponse{Fenced: true})
			return
		}
		s.LastHeartbeatMs = env.Now()
		env.Send(m.From, BrokerHeartbeatResponse{Fenced: s.Fenced})
	case AlterPartition:
		c.onAlterPartition(env, m.From, p)
	}
}

// Fire fences brokers whose session ran out.
func (c *Controller) Fire(env *sim.Env, _ sim.Payload) {
	for _, b := range c.brokers {
		s := c.sessions[b]
		if !s.Fenced && env.Now()-s.LastHeartbeatMs > c.cfg.BrokerSessionTimeoutMs {
			c.fence(env, b, "no heartbeat for "+fmt.Sprint(c.cfg.BrokerSessionTimeoutMs)+"ms")
		}
	}
	env.After(c.checkEveryMs(), controllerTimer{})
}

// onRegistration unfences a (re)started broker. A broker that comes back with a new
// incarnation before its session expired is first fenced, so leadership moves off its
// lost in-memory state, as KRaft does for an unclean restart.
func (c *Controller) onRegistration(env *sim.Env, p BrokerRegistration) {
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
	var changed []TP
	for _, tp := range c.tps() {
		st := c.partitions[tp]
		if st.Leader == "" && contains(st.Replicas, p.Broker) && c.elect(env, st) {
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
	var changed []TP
	for _, tp := range c.tps() {
		st := c.partitions[tp]
		touched := false
		if contains(st.ISR, broker) && len(st.ISR) > 1 {
			st.ISR = remove(st.ISR, broker)
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
func (c *Controller) elect(env *sim.Env, st *PartitionState) bool {
	for _, r := range st.Replicas {
		if contains(st.ISR, r) && !c.Fenced(r) {
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
	env.Observe(sim.Observation{Event: "offline", Partition: st.TP.String()})
	return false
}

func (c *Controller) setLeader(env *sim.Env, st *PartitionState, leader, how string) {
	st.Leader = leader
	st.LeaderEpoch++
	st.PartitionEpoch++
	env.Observe(sim.Observation{Event: "elected", Partition: st.TP.String(), Detail: how, Msgs: nil, Offset: int64(st.LeaderEpoch)})
	env.Note(fmt.Sprintf("elects %s leader of %s epoch=%d (%s)", leader, st.TP, st.LeaderEpoch, how))
}

func (c *Controller) onAlterPartition(env *sim.Env, from string, p AlterPartition) {
	st := c.partitions[p.TP]
	if st == nil || st.Leader != p.Leader || st.LeaderEpoch != p.LeaderEpoch || st.PartitionEpoch != p.PartitionEpoch {
		env.Send(from, AlterPartitionResponse{TP: p.TP, Err: ErrInvalidUpdateVersion})
		return
	}
	var isr []string
	for _, r := range p.NewISR {
		if !c.Fenced(r) || r == st.Leader {
			isr = append(isr, r)
		}
	}
	sort.SliceStable(isr, func(i, j int) bool { return indexOf(st.Replicas, isr[i]) < indexOf(st.Replicas, isr[j]) })
	st.ISR = isr
	st.PartitionEpoch++
	env.Send(from, AlterPartitionResponse{TP: p.TP, State: st.clone()})
	c.broadcast(env, []TP{p.TP}, from)
}

func (c *Controller) all() []PartitionState {
	var out []PartitionState
	for _, tp := range c.tps() {
		out = append(out, c.partitions[tp].clone())
	}
	return out
}

// broadcast pushes changed partitions to every unfenced broker but skip.
func (c *Controller) broadcast(env *sim.Env, tps []TP, skip string) {
	if len(tps) == 0 {
		return
	}
	var states []PartitionState
	for _, tp := range tps {
		states = append(states, c.partitions[tp].clone())
	}
	for _, b := range c.brokers {
		if b != skip && !c.Fenced(b) {
			c.send(env, b, states)
		}
	}
}

func (c *Controller) send(env *sim.Env, to string, states []PartitionState) {
	env.Send(to, MetadataUpdate{Partitions: states})
}

func remove(xs []string, x string) []string {
	var out []string
	for _, v := range xs {
		if v != x {
			out = append(out, v)
		}
	}
	return out
}

func indexOf(xs []string, x string) int {
	for i, v := range xs {
		if v == x {
			return i
		}
	}
	return len(xs)
}

// TPs lists every partition, sorted.
func (c *Controller) TPs() []TP { return c.tps() }
