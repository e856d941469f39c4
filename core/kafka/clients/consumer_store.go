package clients

import (
	"slices"

	"deliverylab/core/kafka/protocol"
	"deliverylab/core/sim"
)

// A consumer without group management that still keeps offsets in a group
// (KafkaConsumer.assign with a group.id): Flink's KafkaSource commits each completed
// checkpoint's offsets so (KafkaSourceReader.notifyCheckpointComplete, commitAsync) for
// monitoring, and starts a new job from them when asked to
// (OffsetsInitializer.committedOffsets). It looks the group's coordinator up, reads with
// OffsetFetch, and commits with generation -1 and no member id, which the group
// coordinator takes for a group without members (GroupCoordinator.handleCommitOffsets);
// it never joins. A commit is fire-and-forget, as commitAsync's callback only logs: one
// that fails is not sent again, the next checkpoint's commit covers it.

// offsetStore is that part of an assigned consumer.
type offsetStore struct {
	group  string
	broker string // the group's coordinator, "" until found
	// finding: a FindCoordinator is out; what waits for its answer: the latest commit
	// asked for, and the partitions whose committed offsets the application wants.
	finding bool
	commit  []protocol.TPOffset
	fetch   []protocol.TP
	seq     int64 // numbers the lookups and reads, for their timeouts
	sent    bool  // a commit is out, unanswered
}

// storeTimeout: a lookup, commit or read got no answer in request.timeout.ms.
type storeTimeout struct{ Seq int64 }

func (storeTimeout) Kind() string     { return "StoreTimeout" }
func (storeTimeout) Describe() string { return storeTimeoutLine }

var storeTimeoutLine = sim.TimerLine("consumer", storeTimeout{})

// UseGroup gives an assigned consumer a group to keep offsets in (group.id).
func (c *Consumer) UseGroup(group string) {
	c.group = group
	c.store = &offsetStore{group: group}
}

// CommitAssigned commits offsets to the consumer's group as a consumer without group
// management does (commitAsync): nothing waits for the answer.
func (c *Consumer) CommitAssigned(env *sim.Env, offsets []protocol.TPOffset) {
	s := c.store
	if s == nil || len(offsets) == 0 {
		return
	}
	if s.broker == "" {
		s.commit = slices.Clone(offsets)
		s.find(env, c)
		return
	}
	env.Send(s.broker, protocol.OffsetCommitRequest{ReqID: c.ids.next(), Group: s.group, Member: "", Generation: -1, Offsets: offsets})
	s.sent = true
	s.seq++
	env.After(c.cfg.RequestTimeoutMs, storeTimeout{Seq: s.seq})
}

// AssignCommitted assigns the partitions at the offsets committed to the consumer's
// group: it reads them first, and a partition with none starts where auto.offset.reset
// says. It reports AssignedNow as Assign does, once every partition has a position.
func (c *Consumer) AssignCommitted(env *sim.Env, tps []protocol.TP) []ConsumerEvent {
	s := c.store
	s.fetch = slices.Clone(tps)
	if s.broker == "" {
		s.find(env, c)
		return nil
	}
	s.read(env, c)
	return nil
}

func (s *offsetStore) find(env *sim.Env, c *Consumer) {
	if s.finding {
		return
	}
	s.finding = true
	env.Send(c.md.bootstrapBroker(), protocol.FindCoordinatorRequest{Group: s.group})
	s.seq++
	env.After(c.cfg.RequestTimeoutMs, storeTimeout{Seq: s.seq})
}

func (s *offsetStore) read(env *sim.Env, c *Consumer) {
	env.Send(s.broker, protocol.OffsetFetchRequest{Group: s.group, TPs: slices.Clone(s.fetch)})
	s.seq++
	env.After(c.cfg.RequestTimeoutMs, storeTimeout{Seq: s.seq})
}

// receive handles the group coordinator's answers.
func (s *offsetStore) receive(env *sim.Env, c *Consumer, p sim.Payload) []ConsumerEvent {
	switch r := p.(type) {
	case protocol.FindCoordinatorResponse:
		s.seq++ // answered: its timeout no longer applies
		s.finding = false
		if r.Err != "" {
			c.md.Next++
			s.retry(env, c)
			return nil
		}
		s.broker = r.Coordinator
		if s.commit != nil {
			offs := s.commit
			s.commit = nil
			c.CommitAssigned(env, offs)
		}
		if s.fetch != nil {
			s.read(env, c)
		}
	case protocol.OffsetCommitResponse:
		s.seq++
		s.sent = false
		s.onError(r.Err)
	case protocol.OffsetFetchResponse:
		s.seq++
		if r.Err != "" {
			s.onError(r.Err)
			s.retry(env, c)
			return nil
		}
		return s.assign(env, c, r)
	}
	return nil
}

// assign starts the partitions read at their committed offsets.
func (s *offsetStore) assign(env *sim.Env, c *Consumer, r protocol.OffsetFetchResponse) []ConsumerEvent {
	if s.fetch == nil {
		return nil
	}
	start := map[protocol.TP]int64{}
	for _, tp := range s.fetch {
		start[tp] = -1
	}
	for _, o := range r.Offsets {
		if _, ok := start[o.TP]; ok && o.Offset >= 0 {
			start[o.TP] = o.Offset
		}
	}
	s.fetch = nil
	return c.Assign(env, start)
}

// onError forgets a coordinator that is not one any more; the next request looks again.
func (s *offsetStore) onError(err protocol.Error) {
	switch err {
	case protocol.ErrNotCoordinator, protocol.ErrCoordinatorNotAvailable, protocol.ErrNetworkException, protocol.ErrRequestTimedOut:
		s.broker = ""
	}
}

// waiting reports whether a read, or a commit whose coordinator is not known yet, waits.
func (s *offsetStore) waiting() bool { return s.fetch != nil || s.commit != nil }

// retry tries again after retry.backoff.ms what still waits.
func (s *offsetStore) retry(env *sim.Env, c *Consumer) {
	if s.waiting() {
		env.After(c.cfg.RetryBackoffMs, storeTimeout{Seq: -1})
	}
}

// fire handles a timeout, or the retry of what waits: without a coordinator it is
// looked up again; with one, the read is sent again.
func (s *offsetStore) fire(env *sim.Env, c *Consumer, t storeTimeout) []ConsumerEvent {
	switch {
	case t.Seq == s.seq:
		// no answer in time: the coordinator is looked up again for what waits (a sent
		// commit is not: commitAsync only logs the failure)
		s.finding, s.broker, s.sent = false, "", false
		fallthrough
	case t.Seq == -1 && s.broker == "":
		if s.waiting() {
			s.find(env, c)
		}
	case t.Seq == -1 && s.fetch != nil:
		s.read(env, c)
	}
	return nil
}

// onGone: the coordinator's connection broke, or a request to it could not be sent.
func (s *offsetStore) onGone(env *sim.Env, c *Consumer, peer string) {
	if peer != "" && peer != s.broker {
		return
	}
	s.finding, s.broker, s.sent = false, "", false
	s.seq++
	s.retry(env, c)
}

// Storing reports whether an assigned consumer's group still has to answer it: a
// lookup, a commit or a read is out, or waits for the coordinator.
func (c *Consumer) Storing() bool {
	s := c.store
	return s != nil && (s.finding || s.sent || s.commit != nil || s.fetch != nil)
}

func (s *offsetStore) clone() *offsetStore {
	if s == nil {
		return nil
	}
	n := *s
	n.commit, n.fetch = slices.Clone(s.commit), slices.Clone(s.fetch)
	return &n
}
