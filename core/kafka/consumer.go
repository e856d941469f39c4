package kafka

import "deliverylab/core/sim"

// Consumer is the consumer client (KafkaConsumer with the classic group protocol): it
// finds its coordinator, joins the group, fetches committed offsets (or applies
// auto.offset.reset), fetches records below the HW from partition leaders, returns them
// from Poll, commits positions, auto-commits inside Poll (R18) and heartbeats.
type Consumer struct {
	cfg    ConsumerConfig
	group  string
	member string
	md     metadataClient

	State       string // finding | joining | syncing | offsets | stable
	coordinator string
	generation  int32
	assigned    []TP
	positions   map[TP]int64 // next offset Poll returns
	fetching    map[TP]int64 // request id of the fetch in flight, per partition
	buffer      map[TP][]Record
	failures    map[TP]int   // fetch failures in a row, for the retry backoff
	retryAt     map[TP]int64 // no fetch of the partition before this time
	groupSeq    int64        // the group request in flight (find, join, sync, offset fetch)
	rejoinDue   bool         // the group is rebalancing: rejoin at the next Poll
	returned    []string     // identities Poll returned since the last commit
	reqSeq      int64
	lastAutoMs  int64
	commits     map[int64][]string // commit request id -> identities it covers
}

// Polled is a record returned by Poll, with its partition.
type Polled struct {
	TP TP
	Record
}

// ConsumerEvent tells the application what happened inside the client.
type ConsumerEvent struct {
	Kind string // records | committed | commit-failed | assigned
	Msgs []string
	Err  string
}

type consumerTimer struct {
	What string
	ID   int64
	TP   TP
}

func (consumerTimer) Kind() string       { return "timer" }
func (t consumerTimer) Describe() string { return "timer consumer " + t.What + " " + t.TP.String() }

// NewConsumer makes a consumer client for one group member.
func NewConsumer(cfg ConsumerConfig, group, member string, bootstrap, topics []string) *Consumer {
	c := &Consumer{cfg: cfg, group: group, member: member, md: metadataClient{Bootstrap: bootstrap, Topics: topics}}
	c.Reset()
	return c
}

// Reset forgets everything held in memory (the application crashed).
func (c *Consumer) Reset() {
	c.md.reset()
	c.State = "finding"
	c.coordinator = ""
	c.generation = 0
	c.assigned = nil
	c.positions = map[TP]int64{}
	c.fetching = map[TP]int64{}
	c.buffer = map[TP][]Record{}
	c.commits = map[int64][]string{}
	c.failures = map[TP]int{}
	c.retryAt = map[TP]int64{}
	c.returned = nil
	c.rejoinDue = false
}

// Clone copies the client.
func (c *Consumer) Clone() *Consumer {
	n := *c
	n.md = c.md.clone()
	n.assigned = append([]TP(nil), c.assigned...)
	n.positions = copyMap(c.positions)
	n.fetching = copyMap(c.fetching)
	n.buffer = make(map[TP][]Record, len(c.buffer))
	for k, v := range c.buffer {
		n.buffer[k] = append([]Record(nil), v...)
	}
	n.failures = copyMap(c.failures)
	n.retryAt = copyMap(c.retryAt)
	n.returned = append([]string(nil), c.returned...)
	n.commits = make(map[int64][]string, len(c.commits))
	for k, v := range c.commits {
		n.commits[k] = append([]string(nil), v...)
	}
	return &n
}

func copyMap[K comparable, V any](m map[K]V) map[K]V {
	out := make(map[K]V, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// Assigned lists the partitions the member owns.
func (c *Consumer) Assigned() []TP { return append([]TP(nil), c.assigned...) }

// Position is the next offset Poll will return for a partition (-1 if unknown).
func (c *Consumer) Position(tp TP) int64 {
	if p, ok := c.positions[tp]; ok {
		return p
	}
	return -1
}

// Buffered counts records fetched but not yet returned by Poll.
func (c *Consumer) Buffered() int {
	n := 0
	for _, b := range c.buffer {
		n += len(b)
	}
	return n
}

// Stable reports whether the member has its assignment and positions.
func (c *Consumer) Stable() bool { return c.State == "stable" }

// Start begins finding the coordinator.
func (c *Consumer) Start(env *sim.Env) {
	c.lastAutoMs = env.Now()
	c.md.refresh(env, c.cfg.RequestTimeoutMs)
	c.findCoordinator(env)
	env.After(c.cfg.HeartbeatIntervalMs, consumerTimer{What: "heartbeat"})
}

func (c *Consumer) anyBroker() string {
	if len(c.md.Bootstrap) == 0 {
		return ""
	}
	return c.md.Bootstrap[c.md.Next%len(c.md.Bootstrap)]
}

func (c *Consumer) findCoordinator(env *sim.Env) {
	c.State = "finding"
	c.groupRequest(env, c.anyBroker(), FindCoordinatorRequest{Group: c.group}, c.cfg.RequestTimeoutMs)
}

// rejoin drops the assignment and joins again (after a rebalance or a fencing error).
func (c *Consumer) rejoin(env *sim.Env) {
	c.assigned = nil
	c.positions = map[TP]int64{}
	c.fetching = map[TP]int64{}
	c.buffer = map[TP][]Record{}
	c.State = "joining"
	// The client gives a JoinGroup the rebalance timeout plus 5 s: the coordinator may
	// rightly hold it that long.
	c.groupRequest(env, c.coordinator, JoinGroupRequest{Group: c.group, Member: c.member, Topics: c.md.Topics, SessionTimeoutMs: c.cfg.SessionTimeoutMs},
		rebalanceTimeoutMs+5000)
}

func (c *Consumer) retryLater(env *sim.Env, what string) {
	env.After(c.cfg.RetryBackoffMs, consumerTimer{What: what})
}

// Poll returns up to max.poll.records buffered records and moves the position past
// them. With enable.auto.commit it first commits the positions of records returned by
// earlier polls, once auto.commit.interval.ms has passed (R18).
func (c *Consumer) Poll(env *sim.Env) []Polled {
	if c.rejoinDue {
		// onJoinPrepare: with auto-commit, commit what was consumed before giving the
		// partitions up, so their next owner does not read it again (R18).
		c.rejoinDue = false
		if c.cfg.EnableAutoCommit {
			c.Commit(env)
		}
		c.rejoin(env)
		return nil
	}
	if c.cfg.EnableAutoCommit && env.Now()-c.lastAutoMs >= c.cfg.AutoCommitIntervalMs {
		c.lastAutoMs = env.Now()
		c.Commit(env)
	}
	var out []Polled
	for _, tp := range c.assigned {
		for len(c.buffer[tp]) > 0 && len(out) < c.cfg.MaxPollRecords {
			r := c.buffer[tp][0]
			c.buffer[tp] = c.buffer[tp][1:]
			out = append(out, Polled{TP: tp, Record: r})
			if r.Msg != "" {
				c.returned = append(c.returned, r.Msg)
			}
			c.positions[tp] = r.Offset + 1
		}
	}
	c.fetchAll(env)
	return out
}

// Commit sends the current positions to the coordinator: they cover every record Poll
// has returned, whose identities the commit carries for the ledger. It returns false
// when the member has nothing to commit.
func (c *Consumer) Commit(env *sim.Env) bool {
	if c.State != "stable" || len(c.assigned) == 0 {
		return false
	}
	msgs := c.returned
	c.returned = nil
	var offs []TPOffset
	for _, tp := range c.assigned {
		offs = append(offs, TPOffset{TP: tp, Offset: c.positions[tp]})
	}
	c.reqSeq++
	c.commits[c.reqSeq] = msgs
	env.Send(c.coordinator, OffsetCommitRequest{ReqID: c.reqSeq, Group: c.group, Member: c.member, Generation: c.generation, Offsets: offs, Msgs: msgs})
	env.After(c.cfg.RequestTimeoutMs, consumerTimer{What: "commit-timeout", ID: c.reqSeq})
	return true
}

// fetchAll sends a fetch for every owned partition with nothing buffered or in flight.
func (c *Consumer) fetchAll(env *sim.Env) {
	if c.State != "stable" {
		return
	}
	for _, tp := range c.assigned {
		if len(c.buffer[tp]) > 0 {
			continue
		}
		if _, busy := c.fetching[tp]; busy {
			continue
		}
		if env.Now() < c.retryAt[tp] {
			continue // backing off after a failed fetch
		}
		leader := c.md.leader(tp)
		if leader == "" {
			c.md.refresh(env, c.cfg.RequestTimeoutMs)
			continue
		}
		c.reqSeq++
		c.fetching[tp] = c.reqSeq
		env.Send(leader, FetchRequest{ReqID: c.reqSeq, TP: tp, FetchOffset: c.positions[tp], LastFetchedEpoch: -1, MaxWaitMs: c.cfg.FetchMaxWaitMs})
		env.After(c.cfg.FetchMaxWaitMs+c.cfg.RequestTimeoutMs, consumerTimer{What: "fetch-timeout", ID: c.reqSeq, TP: tp})
	}
}

// Receive handles a response and reports what the application should know.
func (c *Consumer) Receive(env *sim.Env, m sim.Message) []ConsumerEvent {
	switch r := m.Payload.(type) {
	case MetadataResponse:
		if !c.md.onResponse(r) {
			env.After(c.cfg.RetryBackoffMs, metadataTimer{Seq: -1})
		}
		c.fetchAll(env)
	case FindCoordinatorResponse:
		c.groupSeq++ // answered: its timeout no longer applies
		if r.Err != "" {
			c.md.Next++
			c.retryLater(env, "find")
			return nil
		}
		c.coordinator = r.Coordinator
		c.rejoin(env)
	case JoinGroupResponse:
		c.groupSeq++ // answered: its timeout no longer applies
		if c.State != "joining" {
			return nil
		}
		if r.Err != "" {
			c.retryLater(env, "find")
			return nil
		}
		c.generation = r.Generation
		c.State = "syncing"
		c.groupRequest(env, c.coordinator, SyncGroupRequest{Group: c.group, Member: c.member, Generation: r.Generation}, c.cfg.RequestTimeoutMs)
	case SyncGroupResponse:
		c.groupSeq++ // answered: its timeout no longer applies
		return c.onSync(env, r)
	case OffsetFetchResponse:
		c.groupSeq++ // answered: its timeout no longer applies
		return c.onOffsetFetch(env, r)
	case ListOffsetsResponse:
		if r.Err != "" {
			c.md.forget(r.TP)
			env.After(c.cfg.RetryBackoffMs, consumerTimer{What: "reset", TP: r.TP})
			return nil
		}
		c.positions[r.TP] = r.Offset
		c.maybeStable(env)
	case FetchResponse:
		return c.onFetch(env, r)
	case HeartbeatResponse:
		c.onHeartbeatError(env, r.Err)
		if c.rejoinDue {
			return []ConsumerEvent{{Kind: "rebalance"}}
		}
	case OffsetCommitResponse:
		msgs := c.commits[r.ReqID]
		delete(c.commits, r.ReqID)
		if r.Err != "" {
			env.Observe(sim.Observation{Event: "error", Detail: r.Err, Msgs: msgs})
			c.onHeartbeatError(env, r.Err)
			return []ConsumerEvent{{Kind: "commit-failed", Err: r.Err, Msgs: msgs}}
		}
		return []ConsumerEvent{{Kind: "committed", Msgs: msgs}}
	case sim.Refused:
		return c.onRefused(env, r)
	}
	return nil
}

func (c *Consumer) onSync(env *sim.Env, r SyncGroupResponse) []ConsumerEvent {
	if c.State != "syncing" {
		return nil
	}
	if r.Err != "" {
		c.onHeartbeatError(env, r.Err)
		return nil
	}
	c.assigned = append([]TP(nil), r.Assigned...)
	sortTPs(c.assigned)
	env.Observe(sim.Observation{Event: "assigned", Detail: c.group + " gen=" + itoa32(r.Generation) + " [" + tpsText(c.assigned) + "]"})
	if len(c.assigned) == 0 {
		c.State = "stable"
		return []ConsumerEvent{{Kind: "assigned"}}
	}
	c.State = "offsets"
	c.groupRequest(env, c.coordinator, OffsetFetchRequest{Group: c.group, TPs: c.assigned}, c.cfg.RequestTimeoutMs)
	return nil
}

func (c *Consumer) onOffsetFetch(env *sim.Env, r OffsetFetchResponse) []ConsumerEvent {
	if c.State != "offsets" {
		return nil
	}
	if r.Err != "" {
		c.onHeartbeatError(env, r.Err)
		return nil
	}
	for _, o := range r.Offsets {
		switch {
		case o.Offset >= 0:
			c.positions[o.TP] = o.Offset
		case c.cfg.AutoOffsetReset == "earliest":
			c.positions[o.TP] = 0
		case c.cfg.AutoOffsetReset == "none":
			return c.noOffset(env, o.TP)
		default:
			c.resetLatest(env, o.TP)
		}
	}
	return c.maybeStable(env)
}

// resetLatest asks the leader for the end of what consumers may read (the HW).
func (c *Consumer) resetLatest(env *sim.Env, tp TP) {
	delete(c.positions, tp)
	if leader := c.md.leader(tp); leader != "" {
		env.Send(leader, ListOffsetsRequest{TP: tp})
		return
	}
	c.md.refresh(env, c.cfg.RequestTimeoutMs)
	env.After(c.cfg.RetryBackoffMs, consumerTimer{What: "reset", TP: tp})
}

func (c *Consumer) maybeStable(env *sim.Env) []ConsumerEvent {
	if c.State != "offsets" {
		return nil
	}
	for _, tp := range c.assigned {
		if _, ok := c.positions[tp]; !ok {
			return nil
		}
	}
	c.State = "stable"
	c.fetchAll(env)
	return []ConsumerEvent{{Kind: "assigned"}}
}

func (c *Consumer) onFetch(env *sim.Env, r FetchResponse) []ConsumerEvent {
	if id, ok := c.fetching[r.TP]; !ok || id != r.ReqID {
		return nil
	}
	delete(c.fetching, r.TP)
	switch r.Err {
	case "":
	case ErrOffsetOutOfRange:
		env.Observe(sim.Observation{Event: "error", Detail: r.Err, Partition: r.TP.String()})
		if c.cfg.AutoOffsetReset == "none" {
			return c.noOffset(env, r.TP)
		}
		if c.cfg.AutoOffsetReset == "earliest" {
			c.positions[r.TP] = 0
		} else {
			c.resetLatest(env, r.TP)
			return nil
		}
		c.fetchAll(env)
		return nil
	default:
		env.Observe(sim.Observation{Event: "error", Detail: r.Err, Partition: r.TP.String()})
		c.fetchFailed(env, r.TP)
		return nil
	}
	c.failures[r.TP] = 0
	var fresh []Record
	for _, rec := range r.Records {
		if rec.Offset >= c.positions[r.TP] {
			fresh = append(fresh, rec)
		}
	}
	if len(fresh) == 0 {
		c.fetchAll(env)
		return nil
	}
	c.buffer[r.TP] = append(c.buffer[r.TP], fresh...)
	return []ConsumerEvent{{Kind: "records"}}
}

func (c *Consumer) onHeartbeatError(env *sim.Env, err string) {
	switch err {
	case "":
	case ErrRebalanceInProgress, ErrIllegalGeneration, ErrUnknownMemberID:
		switch c.State {
		case "joining":
		case "stable":
			// As in the classic protocol, the member rejoins inside its next poll, once
			// the application has finished with what earlier polls returned.
			c.rejoinDue = true
		default:
			c.rejoin(env)
		}
	case ErrNotCoordinator, ErrCoordinatorNotAvailable:
		if c.State != "finding" {
			c.State = "finding"
			c.retryLater(env, "find")
		}
	}
}

func (c *Consumer) onRefused(env *sim.Env, r sim.Refused) []ConsumerEvent {
	switch o := r.Orig.(type) {
	case MetadataRequest:
		c.md.onRefused(env, c.cfg.RetryBackoffMs)
	case FetchRequest:
		if id, ok := c.fetching[o.TP]; ok && id == o.ReqID {
			delete(c.fetching, o.TP)
			env.Observe(sim.Observation{Event: "error", Detail: ErrNetworkException, Partition: o.TP.String()})
			c.fetchFailed(env, o.TP)
		}
	case OffsetCommitRequest:
		msgs := c.commits[o.ReqID]
		delete(c.commits, o.ReqID)
		env.Observe(sim.Observation{Event: "error", Detail: ErrNetworkException, Msgs: msgs})
		c.State = "finding"
		c.retryLater(env, "find")
		return []ConsumerEvent{{Kind: "commit-failed", Err: ErrNetworkException, Msgs: msgs}}
	case FindCoordinatorRequest, JoinGroupRequest, SyncGroupRequest, OffsetFetchRequest, HeartbeatRequest:
		if c.State != "finding" || isFind(o) {
			c.md.Next++
			c.State = "finding"
			c.retryLater(env, "find")
		}
	case ListOffsetsRequest:
		c.md.forget(o.TP)
		env.After(c.cfg.RetryBackoffMs, consumerTimer{What: "reset", TP: o.TP})
	}
	return nil
}

func isFind(p sim.Payload) bool {
	_, ok := p.(FindCoordinatorRequest)
	return ok
}

// Fire handles the client's timers.
func (c *Consumer) Fire(env *sim.Env, t sim.Payload) []ConsumerEvent {
	switch ct := t.(type) {
	case metadataTimer:
		c.md.onTimer(env, ct, c.cfg.RequestTimeoutMs)
		c.fetchAll(env)
	case consumerTimer:
		switch ct.What {
		case "heartbeat":
			if c.State == "stable" || c.State == "offsets" || c.State == "syncing" {
				env.Send(c.coordinator, HeartbeatRequest{Group: c.group, Member: c.member, Generation: c.generation})
			}
			env.After(c.cfg.HeartbeatIntervalMs, ct)
		case "find":
			if c.State == "finding" {
				c.findCoordinator(env)
			}
		case "group-timeout":
			if ct.ID == c.groupSeq && c.State != "stable" {
				// The request or its answer was lost (a cut link): start over.
				env.Observe(sim.Observation{Event: "error", Detail: ErrRequestTimedOut})
				c.State = "finding"
				c.findCoordinator(env)
			}
		case "commit-timeout":
			if msgs, ok := c.commits[ct.ID]; ok {
				delete(c.commits, ct.ID)
				env.Observe(sim.Observation{Event: "error", Detail: ErrRequestTimedOut, Msgs: msgs})
				return []ConsumerEvent{{Kind: "commit-failed", Err: ErrRequestTimedOut, Msgs: msgs}}
			}
		case "fetch":
			c.fetchAll(env)
		case "fetch-timeout":
			if id, ok := c.fetching[ct.TP]; ok && id == ct.ID {
				delete(c.fetching, ct.TP)
				c.md.forget(ct.TP)
				c.fetchAll(env)
			}
		case "reset":
			if c.State == "offsets" {
				if _, ok := c.positions[ct.TP]; !ok {
					c.resetLatest(env, ct.TP)
				}
			}
		}
	}
	return nil
}

// PendingCommits counts commits sent and not yet answered.
func (c *Consumer) PendingCommits() int { return len(c.commits) }

// AutoCommitIntervalMs is auto.commit.interval.ms.
func (c *Consumer) AutoCommitIntervalMs() int64 { return c.cfg.AutoCommitIntervalMs }

// fetchFailed forgets the partition's leader and fetches again after a growing backoff.
func (c *Consumer) fetchFailed(env *sim.Env, tp TP) {
	c.failures[tp]++
	c.md.forget(tp)
	wait := backoffMs(env, c.cfg.RetryBackoffMs, c.cfg.RetryBackoffMaxMs, c.failures[tp])
	c.retryAt[tp] = env.Now() + wait
	env.After(wait, consumerTimer{What: "fetch"})
}

// groupRequest sends one step of finding and joining the group, with a timeout that
// starts over if neither it nor its answer arrives.
func (c *Consumer) groupRequest(env *sim.Env, to string, p sim.Payload, timeoutMs int64) {
	c.groupSeq++
	env.Send(to, p)
	env.After(timeoutMs, consumerTimer{What: "group-timeout", ID: c.groupSeq})
}

// noOffset is auto.offset.reset=none with no valid position: poll throws
// NoOffsetForPartitionException and the application stops consuming.
func (c *Consumer) noOffset(env *sim.Env, tp TP) []ConsumerEvent {
	env.Observe(sim.Observation{Event: "error", Detail: ErrNoOffsetForPartition, Partition: tp.String()})
	c.State = "failed"
	c.assigned = nil
	c.buffer = map[TP][]Record{}
	return []ConsumerEvent{{Kind: "failed", Err: ErrNoOffsetForPartition}}
}

// Failed reports whether the client gave up (auto.offset.reset=none with no offset).
func (c *Consumer) Failed() bool { return c.State == "failed" }
