package clients

import (
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
	// Reconciling: a KIP-848 member moving to a new assignment, reading the partitions
	// it keeps meanwhile (consumer_membership_reconcile.go).
	Reconciling
)

func (s ConsumerState) String() string {
	return [...]string{"finding", "joining", "syncing", "offsets", "stable", "failed", "reconciling"}[s]
}

// Consumer is the consumer client (KafkaConsumer with the classic group protocol): it
// finds its coordinator, joins the group, fetches committed offsets (or applies
// auto.offset.reset), fetches records below the HW from partition leaders, returns them
// from Poll, commits positions, auto-commits inside Poll (R18) and heartbeats.
//
// As KafkaConsumer does, it composes two roles and routes each response and timer to the
// one that owns it (consumer_route.go): the coordinator (consumerCoordinator,
// consumer_coordinator.go) keeps the member in its group and commits, and the fetcher
// (fetcher, consumer_fetcher.go) holds the assignment's positions and reads records. The
// coordinator tells the fetcher the assignment and the committed offsets, and whether the
// member is stable; the fetcher reports the positions consumed, for a commit. The
// metadata, the configuration and the request ids are the client's, shared by both.
type Consumer struct {
	cfg      ConsumerConfig
	group    string
	clientID string // client.id: the application's name
	md       metadata
	ids      requestIDs
	// manual: no group; the application assigns the partitions (consumer_assign.go).
	manual bool
	// store: an assigned consumer's group, where it keeps offsets (consumer_store.go).
	store *offsetStore

	coord consumerCoordinator
	// member: the membership role instead of coord under group.protocol=consumer
	// (KIP-848, consumer_membership.go), nil under the classic protocol.
	member *consumerMembership
	fetch  fetcher
}

// requestIDs numbers the client's requests that carry an id, as NetworkClient's
// correlation ids do: one sequence for both roles, so the ids follow the order in which
// the requests were sent.
type requestIDs struct{ last int64 }

func (r *requestIDs) next() int64 {
	r.last++
	return r.last
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

// NewConsumer makes a consumer client of a group; clientID names it (client.id).
func NewConsumer(cfg ConsumerConfig, group, clientID string, bootstrap, topics []string) *Consumer {
	c := &Consumer{cfg: cfg, group: group, clientID: clientID, md: metadata{Bootstrap: bootstrap, Topics: topics, BackoffMs: cfg.RetryBackoffMs}}
	c.coord = consumerCoordinator{group: group, clientID: clientID}
	if cfg.GroupProtocol == ConsumerProtocol {
		c.member = &consumerMembership{group: group, clientID: clientID}
	}
	c.wire()
	c.Reset()
	return c
}

// wire points both roles at what the client shares with them.
func (c *Consumer) wire() {
	c.coord.cfg, c.coord.md, c.coord.ids, c.coord.fetcher = &c.cfg, &c.md, &c.ids, &c.fetch
	c.fetch.cfg, c.fetch.md, c.fetch.ids = &c.cfg, &c.md, &c.ids
	if c.member != nil {
		c.member.cfg, c.member.md, c.member.ids, c.member.fetcher = &c.cfg, &c.md, &c.ids, &c.fetch
	}
}

// Reset forgets everything held in memory (the application crashed).
func (c *Consumer) Reset() {
	c.md.reset()
	c.coord.reset()
	if c.member != nil {
		c.member.reset()
	}
	c.fetch.reset()
	if c.store != nil {
		c.store = &offsetStore{group: c.store.group}
	}
}

// Clone copies the client.
func (c *Consumer) Clone() *Consumer {
	n := &Consumer{cfg: c.cfg, group: c.group, clientID: c.clientID, md: c.md.clone(), ids: c.ids, manual: c.manual,
		store: c.store.clone(), coord: c.coord.clone(), fetch: c.fetch.clone()}
	if c.member != nil {
		n.member = c.member.clone()
	}
	n.wire()
	return n
}

// Start begins finding the coordinator. A consumer that starts (or starts again after a
// crash) is a new member of its group, with a member id of its own: without a
// group.instance.id, Kafka gives every new KafkaConsumer a new member id (clientId-UUID,
// GroupMetadata.generateMemberId), so a restarted application does not take its old
// member's place; the old member stays in the group until its session times out.
func (c *Consumer) Start(env *sim.Env) {
	c.md.refresh(env, c.cfg.RequestTimeoutMs)
	switch {
	case c.manual:
		// it waits for Assign
	case c.member != nil:
		c.member.start(env)
	default:
		c.coord.start(env)
	}
}

// Poll returns up to max.poll.records buffered records and moves the position past
// them. With enable.auto.commit it first commits the positions of records returned by
// earlier polls, once auto.commit.interval.ms has passed (R18).
//
// Under group.protocol=consumer, Poll is also where a reconciliation runs (consumer_
// membership_reconcile.go): records of the partitions the member keeps are returned all
// along, none of those it gives up.
func (c *Consumer) Poll(env *sim.Env) []Polled {
	switch {
	case c.member != nil:
		c.member.poll(env)
	case !c.manual && c.coord.poll(env):
		return nil // it rejoins the group
	}
	out := c.fetch.collect()
	c.fetch.fetchAll(env)
	return out
}

// Commit sends the current positions to the coordinator: they cover every record Poll
// has returned, whose identities the commit carries for the ledger. It returns false
// when the member has nothing to commit.
func (c *Consumer) Commit(env *sim.Env) bool {
	if c.member != nil {
		return c.member.commit(env)
	}
	return c.coord.commit(env)
}

// Consumed is what a transactional application sends with sendOffsetsToTransaction: the
// position in each assigned partition (the offset after the last record it returned),
// and the identities returned since the last time (for the ledger). It takes them: the
// next call returns only what was returned after this one.
func (c *Consumer) Consumed() ([]protocol.TPOffset, []string) { return c.fetch.consumed() }

// State is where the member stands in its group.
func (c *Consumer) State() ConsumerState {
	if c.member != nil {
		return c.member.phase()
	}
	return c.coord.phase()
}

// Assigned lists the partitions the member owns.
func (c *Consumer) Assigned() []protocol.TP { return slices.Clone(c.fetch.owned()) }

// Position is the next offset Poll will return for a partition (-1 if unknown).
func (c *Consumer) Position(tp protocol.TP) int64 { return c.fetch.position(tp) }

// Positions is the position in each partition the consumer owns and knows where to read:
// what the canvas marks on the leader's log.
func (c *Consumer) Positions() []protocol.TPOffset { return c.fetch.knownPositions() }

// Buffered counts records fetched but not yet returned by Poll.
func (c *Consumer) Buffered() int { return c.fetch.buffered() }

// PendingCommits counts commits sent and not yet answered.
func (c *Consumer) PendingCommits() int {
	if c.member != nil {
		return c.member.pendingCommits()
	}
	return c.coord.pendingCommits()
}

// AutoCommitIntervalMs is auto.commit.interval.ms.
func (c *Consumer) AutoCommitIntervalMs() int64 { return c.cfg.AutoCommitIntervalMs }

// MemberID is the member id of this incarnation of the client.
func (c *Consumer) MemberID() string { return c.GroupMetadata().Member }

// Group is the group id.
func (c *Consumer) Group() string { return c.group }

// GroupMetadata is the consumer's group metadata for sendOffsetsToTransaction
// (KafkaConsumer.groupMetadata): its group, member id and generation.
func (c *Consumer) GroupMetadata() GroupMetadata {
	if c.member != nil {
		return c.member.groupMetadata()
	}
	return c.coord.groupMetadata()
}

// Generation is the group generation of the member's current assignment.
func (c *Consumer) Generation() int32 { return c.GroupMetadata().Generation }

// ListenForAssignment makes the client hand each new assignment to its application
// before it looks up any committed offset (consumer_listener.go).
func (c *Consumer) ListenForAssignment() { c.coord.listen() }

// SeekAssigned positions the member at the offsets its application read for the
// assignment of a generation (KafkaConsumer.seek); the partitions it has none for get
// the group's committed offset, or auto.offset.reset. A seek for an assignment the
// member no longer has (it rebalanced meanwhile) does nothing: the new assignment asks
// again.
func (c *Consumer) SeekAssigned(env *sim.Env, generation int32, offsets map[protocol.TP]int64) []ConsumerEvent {
	return c.coord.seekAssigned(env, generation, offsets)
}

// Seeking reports whether the member waits for its application's seeks.
func (c *Consumer) Seeking() bool { return c.coord.awaitingSeek() }

// Invariants lists what is wrong with what the consumer returned: a read_committed
// consumer returned a record of an aborted transaction (G1a, aborted read), as some
// broker's aborted-transaction index says. Each record is checked once.
func (c *Consumer) Invariants(v sim.View) []string { return c.fetch.abortedReads(v, c.clientID) }
