package clients

import (
	"fmt"
	"maps"
	"slices"

	"deliverylab/core/kafka/protocol"
	"deliverylab/core/sim"
)

// consumerCoordinator is the consumer's membership role, Kafka's ConsumerCoordinator
// with its AbstractCoordinator: it finds the group coordinator, joins the group
// (JoinGroup, SyncGroup), heartbeats, fetches the committed offsets of its assignment
// (consumer_committed.go), commits offsets (consumer_commit.go) and finds the
// coordinator again when it moves (consumer_rediscover.go). What it learns of the
// assignment it tells the fetcher (subscriptionState); the fetcher tells it nothing but
// the positions to commit.
type consumerCoordinator struct {
	cfg     *ConsumerConfig   // the client's, shared
	md      *metadata         // the client's, shared: the bootstrap brokers and topics
	ids     *requestIDs       // the client's, shared with the fetcher
	fetcher subscriptionState // the client's fetcher

	group    string
	clientID string // client.id: the application's name
	member   string // the member id of this incarnation
	starts   int    // how many times the client started: each start is a new member

	state      ConsumerState
	broker     string // the group's coordinator, once found
	generation int32
	groupSeq   int64 // the group request in flight (find, join, sync, offset fetch)
	rejoinDue  bool  // the group is rebalancing: rejoin at the next Poll
	lastAutoMs int64
	commits    map[int64]pendingCommit // commit request id -> what it commits
	// resume: the coordinator was lost while the member was stable; once it is found, on
	// the same broker or another, the member goes on with its generation and assignment,
	// and parked commits are sent again (ConsumerCoordinator.markCoordinatorUnknown keeps
	// both). hbDue: a heartbeat fell due meanwhile; it goes out as soon as the coordinator
	// is found (AbstractCoordinator.HeartbeatThread: shouldHeartbeat once it is known).
	resume, hbDue bool
	parked        []pendingCommit
	// listener: the application hears of each assignment before offsets are looked up
	// (ListenForAssignment); seeking: it has not yet said where to start.
	listener, seeking bool
}

// subscriptionState is what the coordinator tells and asks of the partitions it was
// assigned and the positions in them, which the fetcher holds (Kafka's
// ConsumerCoordinator works on SubscriptionState the same way).
type subscriptionState interface {
	assign(tps []protocol.TP)
	revoke()
	setFetchable(ok bool)
	fetchAll(env *sim.Env)
	owned() []protocol.TP
	positioned() bool
	missing() []protocol.TP
	seek(offsets map[protocol.TP]int64) []protocol.TP
	initPositions(env *sim.Env, committed []protocol.TPOffset) []ConsumerEvent
	consumed() ([]protocol.TPOffset, []string)
}

// The coordinator's timers for finding and joining the group.
type (
	consumerHeartbeat struct{}            // heartbeat.interval.ms
	findRetry         struct{}            // look for the coordinator again
	groupTimeout      struct{ Seq int64 } // a group request got no answer
)

func (consumerHeartbeat) Kind() string     { return "Heartbeat" }
func (findRetry) Kind() string             { return "Find" }
func (groupTimeout) Kind() string          { return "GroupTimeout" }
func (consumerHeartbeat) Describe() string { return consumerHeartbeatLine }
func (findRetry) Describe() string         { return findRetryLine }
func (groupTimeout) Describe() string      { return groupTimeoutLine }

// The timers' lines in the trace, from their Kinds (sim.TimerLine).
var (
	consumerHeartbeatLine = sim.TimerLine("consumer", consumerHeartbeat{})
	findRetryLine         = sim.TimerLine("consumer", findRetry{})
	groupTimeoutLine      = sim.TimerLine("consumer", groupTimeout{})
)

// maxPollIntervalMs is max.poll.interval.ms's default: the consumer's rebalance timeout.
const maxPollIntervalMs = 300000

// reset forgets what the process held in memory (the application crashed); the member
// id, the start count and the listener are the application's and stay.
func (g *consumerCoordinator) reset() {
	g.state = Finding
	g.broker = ""
	g.generation = 0
	g.commits = map[int64]pendingCommit{}
	g.rejoinDue = false
	g.resume, g.parked, g.hbDue = false, nil, false
	g.seeking = false
}

// clone copies the coordinator; the shared pointers are the caller's to set.
func (g *consumerCoordinator) clone() consumerCoordinator {
	n := *g
	n.commits = maps.Clone(g.commits)
	n.parked = slices.Clone(g.parked)
	return n
}

// setState moves the member to s and tells the fetcher whether it may fetch: only a
// stable member reads from its positions.
func (g *consumerCoordinator) setState(s ConsumerState) {
	g.state = s
	g.fetcher.setFetchable(s == Stable)
}

// phase is where the member stands in its group.
func (g *consumerCoordinator) phase() ConsumerState { return g.state }

// groupMetadata is the member's group, member id and generation.
func (g *consumerCoordinator) groupMetadata() GroupMetadata {
	return GroupMetadata{Group: g.group, Member: g.member, Generation: g.generation}
}

// giveUp ends the member's part in the group: the fetcher found no offset to start from
// (auto.offset.reset=none).
func (g *consumerCoordinator) giveUp() { g.setState(GaveUp) }

// start begins a new member (see Consumer.Start) and looks for the coordinator.
func (g *consumerCoordinator) start(env *sim.Env) {
	g.starts++
	g.member = fmt.Sprintf("%s-%d", g.clientID, g.starts)
	g.lastAutoMs = env.Now()
	g.findCoordinator(env)
	env.After(g.cfg.HeartbeatIntervalMs, consumerHeartbeat{})
}

func (g *consumerCoordinator) findCoordinator(env *sim.Env) {
	g.setState(Finding)
	g.groupRequest(env, g.md.bootstrapBroker(), protocol.FindCoordinatorRequest{Group: g.group}, g.cfg.RequestTimeoutMs)
}

// rejoin drops the assignment and joins again (after a rebalance or a fencing error).
func (g *consumerCoordinator) rejoin(env *sim.Env) {
	g.fetcher.revoke()
	g.seeking = false
	g.setState(Joining)
	// The client gives a JoinGroup the rebalance timeout plus 5 s: the coordinator may
	// rightly hold it that long.
	g.groupRequest(env, g.broker, protocol.JoinGroupRequest{Group: g.group, Member: g.member, ClientID: g.clientID, Topics: g.md.Topics,
		SessionTimeoutMs: g.cfg.SessionTimeoutMs, RebalanceTimeoutMs: maxPollIntervalMs}, maxPollIntervalMs+5000)
}

func (g *consumerCoordinator) findLater(env *sim.Env) { env.After(g.cfg.RetryBackoffMs, findRetry{}) }

// groupRequest sends one step of finding and joining the group, with a timeout that
// starts over if neither it nor its answer arrives.
func (g *consumerCoordinator) groupRequest(env *sim.Env, to string, p sim.Payload, timeoutMs int64) {
	g.groupSeq++
	env.Send(to, p)
	env.After(timeoutMs, groupTimeout{Seq: g.groupSeq})
}

// poll is the coordinator's part of Poll (ConsumerCoordinator.poll): a member whose group
// rebalances rejoins, and with enable.auto.commit the positions are committed once
// auto.commit.interval.ms has passed (R18). It reports whether the member rejoined, in
// which case Poll returns nothing.
func (g *consumerCoordinator) poll(env *sim.Env) bool {
	if g.rejoinDue {
		// onJoinPrepare: with auto-commit, commit what was consumed before giving the
		// partitions up, so their next owner does not read it again (R18).
		g.rejoinDue = false
		if g.cfg.EnableAutoCommit {
			g.commit(env)
		}
		g.rejoin(env)
		return true
	}
	if g.cfg.EnableAutoCommit && env.Now()-g.lastAutoMs >= g.cfg.AutoCommitIntervalMs {
		g.lastAutoMs = env.Now()
		g.commit(env)
	}
	return false
}

// receive handles the answers of the group coordinator.
func (g *consumerCoordinator) receive(env *sim.Env, p sim.Payload) []ConsumerEvent {
	switch r := p.(type) {
	case protocol.FindCoordinatorResponse:
		g.groupSeq++ // answered: its timeout no longer applies
		return g.onFindCoordinator(env, r)
	case protocol.JoinGroupResponse:
		g.groupSeq++
		g.onJoin(env, r)
	case protocol.SyncGroupResponse:
		g.groupSeq++
		return g.onSync(env, r)
	case protocol.OffsetFetchResponse:
		g.groupSeq++
		return g.onOffsetFetch(env, r)
	case protocol.HeartbeatResponse:
		g.onGroupError(env, r.Err)
		if g.rejoinDue {
			return []ConsumerEvent{{Kind: Rebalancing}}
		}
	case protocol.OffsetCommitResponse:
		return g.onCommit(env, r)
	}
	return nil
}

func (g *consumerCoordinator) onFindCoordinator(env *sim.Env, r protocol.FindCoordinatorResponse) []ConsumerEvent {
	if g.state != Finding {
		return nil // the answer of an earlier lookup: the coordinator is known already
	}
	if r.Err != "" {
		g.md.Next++
		g.findLater(env)
		return nil
	}
	if g.resumeWith(env, r.Coordinator) {
		return nil
	}
	g.broker = r.Coordinator
	failed := g.failParked(protocol.ErrIllegalGeneration)
	g.rejoin(env)
	return failed
}

func (g *consumerCoordinator) onJoin(env *sim.Env, r protocol.JoinGroupResponse) {
	if g.state != Joining {
		return
	}
	if r.Err != "" {
		g.onGroupError(env, r.Err) // NOT_COORDINATOR: find it again, then join
		return
	}
	g.generation = r.Generation
	g.setState(Syncing)
	g.groupRequest(env, g.broker, protocol.SyncGroupRequest{Group: g.group, Member: g.member, Generation: r.Generation}, g.cfg.RequestTimeoutMs)
}

func (g *consumerCoordinator) onSync(env *sim.Env, r protocol.SyncGroupResponse) []ConsumerEvent {
	if g.state != Syncing {
		return nil
	}
	if r.Err != "" {
		g.onGroupError(env, r.Err)
		return nil
	}
	assigned := slices.Clone(r.Assigned)
	protocol.SortTPs(assigned)
	g.fetcher.assign(assigned)
	env.Observe(sim.Observation{Event: protocol.Assigned, Group: g.group, Generation: r.Generation, Assigned: names(assigned)})
	if len(assigned) == 0 {
		g.setState(Stable)
		return []ConsumerEvent{{Kind: AssignedNow}}
	}
	if g.awaitSeek() {
		return []ConsumerEvent{{Kind: PartitionsAssigned}}
	}
	g.setState(FetchingOffsets)
	g.fetchOffsets(env, assigned)
	return nil
}

// onGroupError reacts to an error from the coordinator: rejoin after a rebalance or a
// fencing error, look for the coordinator again when it moved.
func (g *consumerCoordinator) onGroupError(env *sim.Env, err protocol.Error) {
	switch err {
	case "":
	case protocol.ErrRebalanceInProgress, protocol.ErrIllegalGeneration, protocol.ErrUnknownMemberID:
		switch g.state {
		case Joining:
		case Stable:
			// As in the classic protocol, the member rejoins inside its next poll, once
			// the application has finished with what earlier polls returned.
			g.rejoinDue = true
		default:
			g.rejoin(env)
		}
	case protocol.ErrNotCoordinator, protocol.ErrCoordinatorNotAvailable:
		if g.state != Finding {
			g.resume = g.state == Stable
			g.setState(Finding)
			g.findLater(env)
		}
	}
}

// onDisconnected: a broker the consumer had a connection to crashed and its end reset it
// (NetworkClient.processDisconnection). If it was the coordinator, the commits in flight
// to it fail and a join or sync waiting there starts over by finding the coordinator
// (ConsumerCoordinator.markCoordinatorUnknown).
func (g *consumerCoordinator) onDisconnected(env *sim.Env, peer string) []ConsumerEvent {
	if peer != g.broker {
		return nil
	}
	var out []ConsumerEvent
	for _, id := range slices.Sorted(maps.Keys(g.commits)) {
		pc := g.commits[id]
		delete(g.commits, id)
		env.Observe(sim.Observation{Event: protocol.ClientError, Err: protocol.ErrNetworkException.String(), Msgs: pc.Msgs})
		// A DisconnectException is retriable: a stable member's commitSync parks the
		// commit and sends it again to the coordinator it finds, which knows the member
		// (ConsumerCoordinator.commitOffsetsSync, markCoordinatorUnknown).
		if evs, ok := g.retryCommit(env, pc, protocol.ErrCoordinatorNotAvailable); ok {
			out = append(out, evs...)
			continue
		}
		out = append(out, ConsumerEvent{Kind: CommitFailed, Err: protocol.ErrNetworkException, Msgs: pc.Msgs})
	}
	if len(out) > 0 || g.state == Joining || g.state == Syncing || g.state == FetchingOffsets {
		g.setState(Finding)
		g.findLater(env)
	}
	return out
}

// onRefused: a group request could not be sent (no connection to its broker): look for
// the coordinator again, from the next bootstrap broker.
func (g *consumerCoordinator) onRefused(env *sim.Env, orig sim.Payload) []ConsumerEvent {
	switch o := orig.(type) {
	case protocol.OffsetCommitRequest:
		pc := g.commits[o.ReqID]
		msgs := pc.Msgs
		delete(g.commits, o.ReqID)
		env.Observe(sim.Observation{Event: protocol.ClientError, Err: protocol.ErrNetworkException.String(), Msgs: msgs})
		if evs, ok := g.retryCommit(env, pc, protocol.ErrCoordinatorNotAvailable); ok {
			return evs // retriable, as a disconnect is (onDisconnected)
		}
		g.setState(Finding)
		g.findLater(env)
		return []ConsumerEvent{{Kind: CommitFailed, Err: protocol.ErrNetworkException, Msgs: msgs}}
	case protocol.FindCoordinatorRequest:
		g.md.Next++
		g.setState(Finding)
		g.findLater(env)
	case protocol.JoinGroupRequest, protocol.SyncGroupRequest, protocol.OffsetFetchRequest, protocol.HeartbeatRequest:
		if g.state != Finding {
			g.md.Next++
			g.resume = g.resume || g.state == Stable // the generation is kept (markCoordinatorUnknown)
			g.setState(Finding)
			g.findLater(env)
		}
	}
	return nil
}

// fire handles the coordinator's timers.
func (g *consumerCoordinator) fire(env *sim.Env, t sim.Payload) []ConsumerEvent {
	switch t := t.(type) {
	case consumerHeartbeat:
		if g.state == Stable || g.state == FetchingOffsets || g.state == Syncing {
			env.Send(g.broker, protocol.HeartbeatRequest{Group: g.group, Member: g.member, Generation: g.generation})
		} else if g.state == Finding && g.resume {
			g.hbDue = true
		}
		env.After(g.cfg.HeartbeatIntervalMs, t)
	case findRetry:
		if g.state == Finding {
			g.findCoordinator(env)
		}
	case groupTimeout:
		if t.Seq == g.groupSeq && g.state != Stable {
			// The request or its answer was lost (a cut link): start over.
			env.Observe(sim.Observation{Event: protocol.ClientError, Err: protocol.ErrRequestTimedOut.String()})
			g.findCoordinator(env)
		}
	case commitTimeout:
		return g.onCommitTimeout(env, t)
	case commitRetry:
		return g.onCommitRetry(env, t)
	case offsetFetchRetry:
		if g.state == FetchingOffsets && t.Seq == g.groupSeq {
			g.fetchOffsets(env, g.fetcher.missing())
		}
	}
	return nil
}
