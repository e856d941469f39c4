package clients

import (
	"fmt"
	"maps"
	"slices"

	"deliverylab/core/kafka/protocol"
	"deliverylab/core/sim"
)

// ConsumerState is where a consumer stands in joining its group.
type ConsumerState uint8

// The consumer states, in the order a member goes through them.
const (
	Finding         ConsumerState = iota // looking for the group coordinator
	Joining                              // JoinGroup sent
	Syncing                              // SyncGroup sent
	FetchingOffsets                      // OffsetFetch (and ListOffsets) for its partitions
	Stable                               // assigned, positioned, fetching
	GaveUp                               // auto.offset.reset=none found no offset
)

func (s ConsumerState) String() string {
	return [...]string{"finding", "joining", "syncing", "offsets", "stable", "failed"}[s]
}

// Consumer is the consumer client (KafkaConsumer with the classic group protocol): it
// finds its coordinator, joins the group, fetches committed offsets (or applies
// auto.offset.reset), fetches records below the HW from partition leaders, returns them
// from Poll, commits positions, auto-commits inside Poll (R18) and heartbeats.
type Consumer struct {
	cfg      ConsumerConfig
	group    string
	clientID string // client.id: the application's name
	member   string // the member id of this incarnation
	starts   int    // how many times the client started: each start is a new member
	md       metadata

	State       ConsumerState
	coordinator string
	generation  int32
	assigned    []protocol.TP
	positions   map[protocol.TP]int64  // next offset Poll returns
	fetching    map[protocol.TP]int64  // request id of the fetch in flight, per partition
	fetchedFrom map[protocol.TP]string // the broker that fetch went to
	buffer      map[protocol.TP][]fetched
	// KIP-320: the leader epoch of the record before each position, once Poll has
	// returned one, and the leader epoch the position was last checked against.
	offsetEpochs map[protocol.TP]int32
	checkedAt    map[protocol.TP]int32
	failures     map[protocol.TP]int   // fetch failures in a row, for the retry backoff
	retryAt      map[protocol.TP]int64 // no fetch of the partition before this time
	resetSeq     map[protocol.TP]int64 // bumps per ListOffsets request, so one retry chain runs
	groupSeq     int64                 // the group request in flight (find, join, sync, offset fetch)
	rejoinDue    bool                  // the group is rebalancing: rejoin at the next Poll
	returned     []string              // identities Poll returned since the last commit
	reqSeq       int64
	lastAutoMs   int64
	commits      map[int64]pendingCommit // commit request id -> what it commits
	// resume: the coordinator was lost while the member was stable; if it is found on the
	// same broker, the member goes on with its generation and assignment, and parked
	// commits are sent again (ConsumerCoordinator.markCoordinatorUnknown keeps both).
	resume bool
	parked []pendingCommit
	// listener: the application hears of each assignment before offsets are looked up
	// (ListenForAssignment); seeking: it has not yet said where to start.
	listener, seeking bool
	// the transactional records a read_committed consumer returned, for the invariant
	// (consumer_txn.go), and how many of them it has checked; kept across a crash
	txnReads   []txnRead
	txnChecked int
}

// Polled is a record returned by Poll, with its partition and application data.
type Polled struct {
	TP     protocol.TP
	Offset int64
	protocol.Data
}

// ConsumerEventKind is what a consumer tells its application.
type ConsumerEventKind uint8

// The events.
const (
	RecordsReady       ConsumerEventKind = iota // Poll has records
	AssignedNow                                 // the member has its partitions and positions
	PartitionsAssigned                          // the member has its partitions; the application may seek (ListenForAssignment)
	Rebalancing                                 // the group rebalances: poll to rejoin
	Committed                                   // an offset commit succeeded
	CommitFailed                                // an offset commit failed
	Stopped                                     // the client gave up (auto.offset.reset=none)
)

// ConsumerEvent tells the application what happened inside the client.
type ConsumerEvent struct {
	Kind ConsumerEventKind
	Msgs []string
	Err  protocol.Error
}

// The consumer's timers.
type (
	consumerHeartbeat struct{}                       // heartbeat.interval.ms
	findRetry         struct{}                       // look for the coordinator again
	groupTimeout      struct{ Seq int64 }            // a group request got no answer
	commitTimeout     struct{ ReqID int64 }          // request.timeout.ms of a commit
	commitRetry       struct{ Commit pendingCommit } // commitSync sends a timed-out commit again
	fetchRetry        struct{}                       // the fetch backoff is over
	fetchTimeout      struct {
		TP    protocol.TP
		ReqID int64
	} // a fetch got no answer
	offsetFetchRetry struct{ Seq int64 } // ask for unstable committed offsets again
	resetRetry       struct {            // ask for the latest offset again
		TP  protocol.TP
		Seq int64
	}
)

func (consumerHeartbeat) Kind() string     { return "ConsumerHeartbeat" }
func (findRetry) Kind() string             { return "FindRetry" }
func (groupTimeout) Kind() string          { return "GroupTimeout" }
func (commitTimeout) Kind() string         { return "CommitTimeout" }
func (fetchRetry) Kind() string            { return "FetchRetry" }
func (fetchTimeout) Kind() string          { return "FetchTimeout" }
func (resetRetry) Kind() string            { return "ResetRetry" }
func (offsetFetchRetry) Kind() string      { return "OffsetFetchRetry" }
func (offsetFetchRetry) Describe() string  { return "timer consumer offset-fetch" }
func (consumerHeartbeat) Describe() string { return "timer consumer heartbeat" }
func (findRetry) Describe() string         { return "timer consumer find" }
func (groupTimeout) Describe() string      { return "timer consumer group-timeout" }
func (commitTimeout) Describe() string     { return "timer consumer commit-timeout" }
func (commitRetry) Kind() string           { return "CommitRetry" }
func (commitRetry) Describe() string       { return "timer consumer commit-retry" }
func (fetchRetry) Describe() string        { return "timer consumer fetch" }
func (t fetchTimeout) Describe() string    { return "timer consumer fetch-timeout " + t.TP.String() }
func (t resetRetry) Describe() string      { return "timer consumer reset " + t.TP.String() }

// maxPollIntervalMs is max.poll.interval.ms's default: the consumer's rebalance timeout.
const maxPollIntervalMs = 300000

// NewConsumer makes a consumer client of a group; clientID names it (client.id).
func NewConsumer(cfg ConsumerConfig, group, clientID string, bootstrap, topics []string) *Consumer {
	c := &Consumer{cfg: cfg, group: group, clientID: clientID, md: metadata{Bootstrap: bootstrap, Topics: topics, BackoffMs: cfg.RetryBackoffMs}}
	c.Reset()
	return c
}

// Reset forgets everything held in memory (the application crashed).
func (c *Consumer) Reset() {
	c.md.reset()
	c.State = Finding
	c.coordinator = ""
	c.generation = 0
	c.assigned = nil
	c.positions = map[protocol.TP]int64{}
	c.fetching = map[protocol.TP]int64{}
	c.fetchedFrom = map[protocol.TP]string{}
	c.buffer = map[protocol.TP][]fetched{}
	c.offsetEpochs = map[protocol.TP]int32{}
	c.checkedAt = map[protocol.TP]int32{}
	c.commits = map[int64]pendingCommit{}
	c.failures = map[protocol.TP]int{}
	c.retryAt = map[protocol.TP]int64{}
	c.resetSeq = map[protocol.TP]int64{}
	c.returned = nil
	c.rejoinDue = false
	c.resume, c.parked = false, nil
	c.seeking = false
}

// Clone copies the client.
func (c *Consumer) Clone() *Consumer {
	n := *c
	n.md = c.md.clone()
	n.assigned = slices.Clone(c.assigned)
	n.positions = maps.Clone(c.positions)
	n.offsetEpochs = maps.Clone(c.offsetEpochs)
	n.checkedAt = maps.Clone(c.checkedAt)
	n.fetching = maps.Clone(c.fetching)
	n.fetchedFrom = maps.Clone(c.fetchedFrom)
	n.buffer = make(map[protocol.TP][]fetched, len(c.buffer))
	for k, v := range c.buffer {
		n.buffer[k] = slices.Clone(v) // appended to in place
	}
	n.failures = maps.Clone(c.failures)
	n.retryAt = maps.Clone(c.retryAt)
	n.resetSeq = maps.Clone(c.resetSeq)
	n.returned = slices.Clone(c.returned)
	n.commits = maps.Clone(c.commits)
	n.parked = slices.Clone(c.parked)
	n.txnReads = slices.Clone(c.txnReads)
	return &n
}

// Assigned lists the partitions the member owns.
func (c *Consumer) Assigned() []protocol.TP { return slices.Clone(c.assigned) }

// Position is the next offset Poll will return for a partition (-1 if unknown).
func (c *Consumer) Position(tp protocol.TP) int64 {
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

// PendingCommits counts commits sent and not yet answered.
func (c *Consumer) PendingCommits() int { return len(c.commits) + len(c.parked) }

// AutoCommitIntervalMs is auto.commit.interval.ms.
func (c *Consumer) AutoCommitIntervalMs() int64 { return c.cfg.AutoCommitIntervalMs }

// MemberID is the member id of this incarnation of the client.
func (c *Consumer) MemberID() string { return c.member }

// Start begins finding the coordinator. A consumer that starts (or starts again after a
// crash) is a new member of its group, with a member id of its own: without a
// group.instance.id, Kafka gives every new KafkaConsumer a new member id (clientId-UUID,
// GroupMetadata.generateMemberId), so a restarted application does not take its old
// member's place; the old member stays in the group until its session times out.
func (c *Consumer) Start(env *sim.Env) {
	c.starts++
	c.member = fmt.Sprintf("%s-%d", c.clientID, c.starts)
	c.lastAutoMs = env.Now()
	c.md.refresh(env, c.cfg.RequestTimeoutMs)
	c.findCoordinator(env)
	env.After(c.cfg.HeartbeatIntervalMs, consumerHeartbeat{})
}

func (c *Consumer) findCoordinator(env *sim.Env) {
	c.State = Finding
	c.groupRequest(env, c.md.bootstrapBroker(), protocol.FindCoordinatorRequest{Group: c.group}, c.cfg.RequestTimeoutMs)
}

// rejoin drops the assignment and joins again (after a rebalance or a fencing error).
func (c *Consumer) rejoin(env *sim.Env) {
	c.assigned = nil
	c.positions = map[protocol.TP]int64{}
	c.fetching = map[protocol.TP]int64{}
	c.fetchedFrom = map[protocol.TP]string{}
	c.buffer = map[protocol.TP][]fetched{}
	c.offsetEpochs = map[protocol.TP]int32{}
	c.seeking = false
	c.State = Joining
	// The client gives a JoinGroup the rebalance timeout plus 5 s: the coordinator may
	// rightly hold it that long.
	c.groupRequest(env, c.coordinator, protocol.JoinGroupRequest{Group: c.group, Member: c.member, ClientID: c.clientID, Topics: c.md.Topics,
		SessionTimeoutMs: c.cfg.SessionTimeoutMs, RebalanceTimeoutMs: maxPollIntervalMs}, maxPollIntervalMs+5000)
}

func (c *Consumer) findLater(env *sim.Env) { env.After(c.cfg.RetryBackoffMs, findRetry{}) }

// groupRequest sends one step of finding and joining the group, with a timeout that
// starts over if neither it nor its answer arrives.
func (c *Consumer) groupRequest(env *sim.Env, to string, p sim.Payload, timeoutMs int64) {
	c.groupSeq++
	env.Send(to, p)
	env.After(timeoutMs, groupTimeout{Seq: c.groupSeq})
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
		for len(c.buffer[tp]) > 0 && (c.buffer[tp][0].Skip || len(out) < c.cfg.MaxPollRecords) {
			r := c.buffer[tp][0]
			c.buffer[tp] = c.buffer[tp][1:]
			c.positions[tp] = r.Offset + 1
			c.offsetEpochs[tp] = r.Epoch
			if r.Skip {
				continue
			}
			d, _ := r.Data()
			out = append(out, Polled{TP: tp, Offset: r.Offset, Data: d})
			if d.Msg != "" {
				c.returned = append(c.returned, d.Msg)
			}
			if r.PID >= 0 && c.cfg.Isolation == protocol.ReadCommitted {
				c.txnReads = append(c.txnReads, txnRead{TP: tp, PID: r.PID, Offset: r.Offset, Msg: d.Msg})
			}
		}
	}
	c.fetchAll(env)
	return out
}

// Commit sends the current positions to the coordinator: they cover every record Poll
// has returned, whose identities the commit carries for the ledger. It returns false
// when the member has nothing to commit.
func (c *Consumer) Commit(env *sim.Env) bool {
	if c.State != Stable || len(c.assigned) == 0 {
		return false
	}
	offs, msgs := c.Consumed()
	c.sendCommit(env, pendingCommit{Msgs: msgs, Offsets: offs, SinceMs: env.Now()})
	return true
}

// pendingCommit is an offset commit sent and not yet answered.
type pendingCommit struct {
	Msgs    []string // the identities it covers, for the ledger
	Offsets []protocol.TPOffset
	SinceMs int64 // when the application called commit
}

// defaultAPITimeoutMs is default.api.timeout.ms (Kafka's default): how long commitSync
// goes on retrying a commit that got no answer before it throws TimeoutException.
const defaultAPITimeoutMs = 60000

func (c *Consumer) sendCommit(env *sim.Env, pc pendingCommit) {
	c.reqSeq++
	c.commits[c.reqSeq] = pc
	env.Send(c.coordinator, protocol.OffsetCommitRequest{ReqID: c.reqSeq, Group: c.group, Member: c.member,
		Generation: c.generation, Offsets: pc.Offsets, Msgs: pc.Msgs})
	env.After(c.cfg.RequestTimeoutMs, commitTimeout{ReqID: c.reqSeq})
}
