package clients

import (
	"fmt"
	"maps"
	"slices"

	"deliverylab/core/kafka/protocol"
	"deliverylab/core/sim"
)

// consumerMembership is the consumer's membership role under group.protocol=consumer
// (KIP-848, Kafka 4): AsyncKafkaConsumer's ConsumerMembershipManager, with the
// heartbeat manager (consumer_membership_heartbeat.go), the reconciliation
// (consumer_membership_reconcile.go) and the commit manager
// (consumer_membership_commit.go). It does what consumerCoordinator does for the classic
// protocol — find the coordinator, be a member, commit — with one request,
// ConsumerGroupHeartbeat: the coordinator assigns, and a partition moves only after its
// owner gave it up, while the partitions a member keeps are read all along.
type consumerMembership struct {
	cfg     *ConsumerConfig // the client's, shared
	md      *metadata       // the client's, shared: the bootstrap brokers and topics
	ids     *requestIDs     // the client's, shared with the fetcher
	fetcher *fetcher        // the client's fetcher

	group    string
	clientID string // client.id: the application's name
	member   string // the member id of this incarnation (a UUID in Kafka)
	starts   int    // how many times the client started: each start is a new member

	state  memberState
	broker string // the group's coordinator, "" while it is looked for
	epoch  int32  // the member epoch the coordinator gave, 0 while joining
	// target is the assignment the coordinator last gave; current is what the member
	// owns as far as the coordinator is told (its last acknowledged reconciliation), and
	// reconciled whether it has reconciled any since it joined: the first target after a
	// join is reconciled even when it is empty (LocalAssignment.NONE equals no target).
	target, current []protocol.TP
	reconciled      bool
	findSeq         int64 // the FindCoordinator in flight, for its timeout
	findFailures    int   // lookups and coordinators lost in a row, for the backoff
	hb              heartbeatState
	rec             reconciliation
	offsets         offsetLookup
	commits         map[int64]pendingCommit // commit request id -> what it commits
	parked          []pendingCommit         // commits waiting for the coordinator to be found
	lastAutoMs      int64
	gaveUp          bool // auto.offset.reset=none found no offset, or a fatal error
}

// memberState is where the member stands, as Kafka's MemberState names the states the
// playground goes through (UNSUBSCRIBED before Start; FENCED and PREPARE_LEAVING pass
// within one step; STALE needs max.poll.interval.ms, which no scene exceeds).
type memberState uint8

// The member states.
const (
	memberUnsubscribed  memberState = iota
	memberJoining                   // a heartbeat with epoch 0 is due or out
	memberReconciling               // the target differs from what the member owns
	memberAcknowledging             // reconciled: the next heartbeat tells the coordinator
	memberStable                    // owns its target
	memberLeaving                   // the leave heartbeat is out
	memberFatal                     // an error the member cannot recover from
)

func (s memberState) String() string {
	return [...]string{"UNSUBSCRIBED", "JOINING", "RECONCILING", "ACKNOWLEDGING", "STABLE", "LEAVING", "FATAL"}[s]
}

// reset forgets what the process held in memory (the application crashed).
func (m *consumerMembership) reset() {
	m.state = memberUnsubscribed
	m.broker = ""
	m.epoch = 0
	m.target, m.current, m.reconciled = nil, nil, false
	m.hb = heartbeatState{}
	m.rec = reconciliation{}
	m.offsets = offsetLookup{}
	m.commits = map[int64]pendingCommit{}
	m.parked = nil
	m.gaveUp = false
}

// clone copies the role; the shared pointers are the caller's to set.
func (m *consumerMembership) clone() *consumerMembership {
	n := *m
	n.target, n.current = slices.Clone(m.target), slices.Clone(m.current)
	n.hb = m.hb.clone()
	n.rec = m.rec.clone()
	n.offsets = m.offsets.clone()
	n.commits = maps.Clone(m.commits)
	n.parked = slices.Clone(m.parked)
	return &n
}

// start begins a new member and looks for the coordinator; the first heartbeat joins
// (AbstractMembershipManager.onSubscriptionUpdated, then transitionToJoining).
func (m *consumerMembership) start(env *sim.Env) {
	m.starts++
	m.member = fmt.Sprintf("%s-%d", m.clientID, m.starts)
	m.lastAutoMs = env.Now()
	m.transitionToJoining()
	m.findCoordinator(env)
}

// transitionToJoining: epoch 0, nothing targeted, the next heartbeat a full one, at once.
func (m *consumerMembership) transitionToJoining() {
	m.state = memberJoining
	m.epoch = protocol.JoinGroupEpoch
	m.target = nil
	m.hb.full = true
	m.fetcher.setFetchable(true)
}

// phase is where the member stands, in the states the application and the settle
// checks know: looking for the coordinator, joining, reconciling (what it keeps is read
// meanwhile), looking up where to start in partitions it got, or stable.
func (m *consumerMembership) phase() ConsumerState {
	switch {
	case m.gaveUp:
		return GaveUp
	case m.broker == "":
		return Finding
	case m.reconciled && (m.state == memberReconciling || m.state == memberAcknowledging):
		return Reconciling
	case m.state != memberStable:
		return Joining
	case !m.fetcher.positioned():
		return FetchingOffsets
	}
	return Stable
}

// groupMetadata is the member's group, member id and epoch: KafkaConsumer.groupMetadata's
// generationId is the member epoch under this protocol (AsyncKafkaConsumer.
// updateGroupMetadata).
func (m *consumerMembership) groupMetadata() GroupMetadata {
	return GroupMetadata{Group: m.group, Member: m.member, Generation: m.epoch}
}

// giveUp ends the member's part in the group (auto.offset.reset=none found no offset).
func (m *consumerMembership) giveUp() {
	m.gaveUp = true
	m.fetcher.setFetchable(false)
}

// findCoordinator asks a bootstrap broker for the group's coordinator
// (CoordinatorRequestManager); the heartbeat goes out once it is known.
func (m *consumerMembership) findCoordinator(env *sim.Env) {
	m.broker = ""
	m.findSeq++
	env.Send(m.md.bootstrapBroker(), protocol.FindCoordinatorRequest{Group: m.group})
	env.After(m.cfg.RequestTimeoutMs, groupTimeout{Seq: m.findSeq})
}

// coordinatorLost marks the coordinator unknown (a disconnect, NOT_COORDINATOR, a
// request that timed out): the member keeps its epoch and its partitions and goes on
// once it has found the coordinator again, with a full heartbeat
// (CoordinatorRequestManager.markCoordinatorUnknown; AbstractHeartbeatRequestManager.
// onFailure, onErrorResponse).
func (m *consumerMembership) coordinatorLost(env *sim.Env) {
	if m.broker == "" {
		return
	}
	m.md.Next++
	m.broker = ""
	m.hb.lost()
	m.offsets.lost()
	m.findLater(env)
}

// findLater looks for the coordinator again after the exponential retry backoff
// (CoordinatorRequestManager's RequestState: retry.backoff.ms doubled per failure up to
// retry.backoff.max.ms), so that a coordinator that is down, and that FindCoordinator
// still names until the controller fences it, is not asked every 100 ms.
func (m *consumerMembership) findLater(env *sim.Env) {
	m.findFailures++
	env.After(backoffMs(env, m.cfg.RetryBackoffMs, m.cfg.RetryBackoffMaxMs, m.findFailures), findRetry{})
}

func (m *consumerMembership) onFindCoordinator(env *sim.Env, r protocol.FindCoordinatorResponse) []ConsumerEvent {
	if m.broker != "" || m.state == memberUnsubscribed {
		return nil // an earlier lookup's answer: the coordinator is known already
	}
	m.findSeq++ // answered: its timeout no longer applies
	if r.Err != "" {
		m.md.Next++
		m.findLater(env)
		return nil
	}
	m.broker = r.Coordinator
	m.heartbeatNow(env)
	parked := m.parked
	m.parked = nil
	for _, pc := range parked {
		m.sendCommit(env, pc)
	}
	m.maybeLookUpOffsets(env)
	return nil
}

// receive handles the answers of the group coordinator.
func (m *consumerMembership) receive(env *sim.Env, p sim.Payload) []ConsumerEvent {
	switch r := p.(type) {
	case protocol.FindCoordinatorResponse:
		return m.onFindCoordinator(env, r)
	case protocol.ConsumerGroupHeartbeatResponse:
		return m.onHeartbeat(env, r)
	case protocol.OffsetFetchResponse:
		return m.onOffsetFetch(env, r)
	case protocol.OffsetCommitResponse:
		return m.onCommit(env, r)
	}
	return nil
}

// onDisconnected: a broker the consumer had a connection to crashed and its end reset
// it. If it was the coordinator, what was in flight to it fails: the heartbeat and the
// offset lookup go out again once it is found, and commits are retried as commitSync
// retries a retriable error (NetworkClient.processDisconnection; a DisconnectException
// is retriable).
func (m *consumerMembership) onDisconnected(env *sim.Env, peer string) []ConsumerEvent {
	if peer != m.broker {
		return nil
	}
	var out []ConsumerEvent
	for _, id := range slices.Sorted(maps.Keys(m.commits)) {
		pc := m.commits[id]
		delete(m.commits, id)
		env.Observe(sim.Observation{Event: protocol.ClientError, Err: protocol.ErrNetworkException.String(), Msgs: pc.Msgs})
		out = append(out, m.retryCommit(env, id, pc, protocol.ErrNetworkException)...)
	}
	m.coordinatorLost(env)
	return out
}

// onRefused: a request could not be sent (no connection to its broker).
func (m *consumerMembership) onRefused(env *sim.Env, orig sim.Payload) []ConsumerEvent {
	switch o := orig.(type) {
	case protocol.FindCoordinatorRequest:
		if m.broker == "" {
			m.findSeq++
			m.md.Next++
			m.findLater(env)
		}
	case protocol.OffsetCommitRequest:
		pc, ok := m.commits[o.ReqID]
		if !ok {
			return nil
		}
		delete(m.commits, o.ReqID)
		env.Observe(sim.Observation{Event: protocol.ClientError, Err: protocol.ErrNetworkException.String(), Msgs: pc.Msgs})
		evs := m.retryCommit(env, o.ReqID, pc, protocol.ErrNetworkException)
		m.coordinatorLost(env)
		return evs
	case protocol.ConsumerGroupHeartbeatRequest, protocol.OffsetFetchRequest:
		m.coordinatorLost(env)
	}
	return nil
}

// fire handles the role's timers.
func (m *consumerMembership) fire(env *sim.Env, t sim.Payload) []ConsumerEvent {
	switch t := t.(type) {
	case memberHeartbeat:
		m.onHeartbeatTimer(env, t)
	case heartbeatTimeout:
		m.onHeartbeatTimeout(env, t)
	case findRetry:
		if m.broker == "" && m.state != memberUnsubscribed {
			m.findCoordinator(env)
		}
	case groupTimeout:
		if t.Seq == m.findSeq && m.broker == "" && m.state != memberUnsubscribed {
			env.Observe(sim.Observation{Event: protocol.ClientError, Err: protocol.ErrRequestTimedOut.String()})
			m.md.Next++
			m.findCoordinator(env)
		}
	case offsetFetchRetry:
		if t.Seq == m.offsets.seq {
			m.offsets.inFlight = false
			m.maybeLookUpOffsets(env)
		}
	case commitTimeout:
		return m.onCommitTimeout(env, t)
	}
	return nil
}

// leave sends the leave heartbeat (epoch -1) if the member is in a group, nobody waiting
// for its answer (AbstractMembershipManager.leaveGroup, the dynamic member's LEAVING).
func (m *consumerMembership) leave(env *sim.Env) {
	if m.broker != "" && m.epoch > 0 {
		m.state = memberLeaving
		env.Send(m.broker, protocol.ConsumerGroupHeartbeatRequest{Group: m.group, Member: m.member,
			Epoch: protocol.LeaveGroupEpoch, RebalanceTimeoutMs: -1})
	}
}

// names words partitions for an observation.
func names(tps []protocol.TP) []string {
	out := make([]string, len(tps))
	for i, tp := range tps {
		out[i] = tp.String()
	}
	return out
}
