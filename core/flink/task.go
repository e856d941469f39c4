package flink

import (
	"maps"
	"slices"
	"strconv"

	"deliverylab/core/kafka/clients"
	"deliverylab/core/kafka/protocol"
	"deliverylab/core/sim"
)

// task is one task of the job: a source subtask, an operator subtask with its sink, or
// (chained) all three. It runs one thing at a time, as a task's mailbox thread does:
// while its sink flushes at a barrier it is blocked, and what comes for it meanwhile
// waits in order.
type task struct {
	Source, Op int // the subtask indexes it runs (-1: none)
	Attempt    int
	Running    bool

	consumer *clients.Consumer // a source's split reader
	sink     sinkWriter        // an operator task's sink

	// Inputs: an operator task fed by a keyBy shuffle has one input channel per source
	// subtask. Aligning is the checkpoint whose barriers it is collecting.
	Inputs   []input
	Aligning int64

	// Paused: the task's thread is stopped (pause: JOB/part); what comes for it waits in
	// Held, as while Blocked, and it goes on at the resume (pause.go).
	Paused  bool
	Blocked bool // the sink flushes (or begins its next transaction) at a barrier, or initializes
	// Initializing: an EXACTLY_ONCE sink's writer is not initialized yet; the task is not
	// running for the coordinator, which cannot trigger a checkpoint meanwhile.
	Initializing bool
	// Totals: a count or sum subtask's keyed state (restored from the latest completed
	// checkpoint when the task is deployed).
	Totals  map[string]Total
	Barrier int64               // that barrier's checkpoint
	Snap    map[string]Snapshot // the task's snapshots of it, sent once the sink is done
	Held    []item              // what came while blocked, in order
}

// input is one input channel: Seen says its barrier of the checkpoint being aligned
// arrived, and under EXACTLY_ONCE what came after it is Held until the others' have.
type input struct {
	Seen bool
	Held []item
}

// item is one thing a task handles: a record from a channel, a barrier, a trigger of
// the coordinator's, or a poll of its source.
type item struct {
	Rec     *protocol.Data
	From    int   // the source subtask a record or barrier came from
	Barrier int64 // a barrier's checkpoint
	Trigger int64 // a trigger's checkpoint
	Poll    bool
	// Emit: a record its source polled and has yet to hand on (chained, to its operator;
	// else down the keyBy channel).
	Emit *clients.Polled
	// InHand: the task was paused at this record's point (emitted, processed), which was
	// seen: at the resume it goes on from there.
	InHand bool
	Notify int64 // notifyCheckpointComplete of this checkpoint, which came while paused
}

func (t *task) clone() *task {
	c := *t
	if t.consumer != nil {
		c.consumer = t.consumer.Clone()
	}
	c.sink = t.sink.clone()
	c.Inputs = make([]input, len(t.Inputs))
	for i, in := range t.Inputs {
		c.Inputs[i] = input{Seen: in.Seen, Held: slices.Clone(in.Held)}
	}
	c.Snap = maps.Clone(t.Snap)
	c.Totals = maps.Clone(t.Totals)
	c.Held = slices.Clone(t.Held)
	return &c
}

// stop cancels the task attempt: its clients are closed (what they had not sent is
// gone; what is on the wire still arrives where it was going) and it holds nothing.
func (t *task) stop() {
	t.Running, t.Blocked, t.Paused, t.Barrier, t.Snap, t.Held, t.Aligning, t.Initializing = false, false, false, 0, nil, nil, 0, false
	t.Totals = nil
	if t.consumer != nil {
		t.consumer.Reset()
	}
	t.sink.stop()
	for i := range t.Inputs {
		t.Inputs[i] = input{}
	}
}

// startTask deploys a task attempt: a source's consumer is assigned its partitions
// (KafkaSourceEnumerator.getSplitOwner) at the latest completed checkpoint's offsets, or
// where the starting offsets say; a sink's producer starts.
func (j *Job) startTask(env *sim.Env, ti, attempt int) {
	t := j.tasks[ti]
	t.stop()
	t.Attempt, t.Running = attempt, true
	if t.Op >= 0 && j.spec.Operator.Aggregates() {
		t.Totals = map[string]Total{}
		if j.latest != nil {
			maps.Copy(t.Totals, j.latest.Parts[j.spec.OperatorName(t.Op)].Totals)
		}
	}
	j.checkRestored(ti)
	if t.Op >= 0 {
		j.startSink(env, ti)
	}
	if t.Source < 0 {
		return
	}
	part := SourceName(t.Source)
	t.consumer = j.newConsumer(j.name + "-" + part)
	if j.spec.Source.GroupID != "" {
		t.consumer.UseGroup(j.spec.Source.GroupID)
	}
	ce := env.Port(attemptPort(part, attempt))
	t.consumer.Start(ce)
	start := map[protocol.TP]int64{}
	for _, tp := range j.partitions {
		if splitOwner(tp.Topic, tp.Partition, j.spec.Source.Parallelism) == t.Source {
			start[tp] = -1
		}
	}
	if j.latest == nil && j.spec.Source.Committed {
		// a job without a checkpoint starts where its group's offsets are
		j.consumerEvents(env, ti, t.consumer.AssignCommitted(ce, protocol.SortedTPs(start)))
		return
	}
	if j.latest != nil {
		for _, o := range j.latest.Parts[part].Offsets {
			if _, mine := start[o.TP]; mine {
				start[o.TP] = o.Offset
			}
		}
	}
	j.consumerEvents(env, ti, t.consumer.Assign(ce, start))
}

// current reports whether a task attempt still runs (a triggered fault may have failed it).
func (j *Job) current(ti, attempt int) bool {
	t := j.tasks[ti]
	return t.Running && t.Attempt == attempt
}

// taskReceive routes a message to the task's part it came to.
func (j *Job) taskReceive(env *sim.Env, ti int, part, rest string, m sim.Message) {
	t := j.tasks[ti]
	switch {
	case t.Source >= 0 && part == SourceName(t.Source):
		if tr, ok := m.Payload.(TriggerCheckpoint); ok {
			j.offer(env, ti, item{Trigger: tr.Checkpoint})
			return
		}
		if n, ok := m.Payload.(NotifyCheckpointComplete); ok {
			j.offerNotify(env, ti, n.Checkpoint)
			return
		}
		j.consumerEvents(env, ti, t.consumer.Receive(env, m))
	case t.Op >= 0 && part == j.spec.OperatorName(t.Op):
		switch p := m.Payload.(type) {
		case StreamRecord:
			d := p.Data
			j.offer(env, ti, item{Rec: &d, From: p.From})
		case Barrier:
			j.offer(env, ti, item{Barrier: p.Checkpoint, From: p.From})
		}
	case t.Op >= 0 && part == SinkName(t.Op):
		if n, ok := m.Payload.(NotifyCheckpointComplete); ok {
			j.offerNotify(env, ti, n.Checkpoint)
			return
		}
		switch {
		case t.sink.db != nil:
			j.dbReceive(env, ti, m)
		case t.sink.xa != nil:
			j.xaReceive(env, ti, m)
		default:
			j.sinkDone(env, ti, rest, j.sinkReceive(env, t, rest, m))
		}
	}
}

// taskFire runs a task's client timer.
func (j *Job) taskFire(env *sim.Env, ti int, part, rest string, tm sim.Payload) {
	t := j.tasks[ti]
	switch {
	case t.Source >= 0 && part == SourceName(t.Source):
		j.consumerEvents(env, ti, t.consumer.Fire(env, tm))
	case t.Op >= 0 && part == SinkName(t.Op):
		switch {
		case t.sink.db != nil:
			j.dbFire(env, ti, tm)
		case t.sink.xa != nil:
			j.xaFire(env, ti, tm)
		default:
			j.sinkDone(env, ti, rest, j.sinkFire(env, t, rest, tm))
		}
	}
}

// consumerEvents: records fetched (or the assignment positioned) make the source poll.
func (j *Job) consumerEvents(env *sim.Env, ti int, evs []clients.ConsumerEvent) {
	for _, e := range evs {
		if e.Kind == clients.RecordsReady || e.Kind == clients.AssignedNow {
			j.offer(env, ti, item{Poll: true})
			return
		}
	}
}

// offer hands the task an item, or holds it while the task is blocked.
func (j *Job) offer(env *sim.Env, ti int, it item) {
	t := j.tasks[ti]
	if !t.Running {
		return
	}
	if t.Blocked || t.Paused {
		if it.Poll && slices.ContainsFunc(t.Held, func(h item) bool { return h.Poll }) {
			return // one poll waiting is enough
		}
		t.Held = append(t.Held, it)
		return
	}
	j.handle(env, ti, it)
}

// handle runs one item on the task.
func (j *Job) handle(env *sim.Env, ti int, it item) {
	t := j.tasks[ti]
	switch {
	case it.Poll:
		j.pollSource(env, ti)
	case it.Trigger != 0:
		j.sourceBarrier(env, ti, it.Trigger)
	case it.Notify != 0:
		j.notified(env, ti, it.Notify)
	case it.Emit != nil:
		if it.InHand {
			j.handOn(env, ti, *it.Emit)
		} else {
			j.emit(env, ti, *it.Emit)
		}
	case it.Rec != nil && it.InHand:
		j.operate(env, ti, *it.Rec)
	case it.Rec != nil:
		if in := &t.Inputs[it.From]; in.Seen && j.spec.Checkpointing.Mode == ExactlyOnce {
			in.Held = append(in.Held, it) // the input is blocked until the barrier is aligned
			return
		}
		j.process(env, ti, *it.Rec)
	case it.Barrier != 0:
		j.inputBarrier(env, ti, it.From, it.Barrier)
	}
}

// pollSource polls the source's consumer and emits what it returned, until it returns
// nothing (or the task blocks or fails meanwhile).
func (j *Job) pollSource(env *sim.Env, ti int) {
	t := j.tasks[ti]
	attempt := t.Attempt
	ce := env.Port(attemptPort(SourceName(t.Source), attempt))
	for j.current(ti, attempt) && !t.Blocked && !t.Paused {
		recs := t.consumer.Poll(ce)
		if len(recs) == 0 {
			return
		}
		for i, r := range recs {
			if !j.current(ti, attempt) {
				return
			}
			if t.Blocked || t.Paused {
				// its chained sink waits for the database, or the task was paused at
				// the point of the record before: the rest of the poll waits in order,
				// and the next poll after it
				for _, rest := range recs[i:] {
					t.Held = append(t.Held, item{Emit: &rest})
				}
				t.Held = append(t.Held, item{Poll: true})
				return
			}
			j.emit(env, ti, r)
		}
	}
}

// emit is the source's point for one record, then its handing on: a fault at the point
// acts before the record leaves (a crash loses it with the task; a pause keeps it in
// hand, and it leaves first at the resume).
func (j *Job) emit(env *sim.Env, ti int, r clients.Polled) {
	t := j.tasks[ti]
	attempt := t.Attempt
	src := SourceName(t.Source)
	env.Port(attemptPort(src, attempt)).Observe(sim.Observation{Node: j.node(src), Event: Emitted, Msgs: msgsOf(r.Msg),
		Partition: r.TP.String(), Offset: r.Offset})
	switch {
	case !j.current(ti, attempt):
	case t.Paused:
		t.Held = append([]item{{Emit: &r, InHand: true}}, t.Held...)
	default:
		j.handOn(env, ti, r)
	}
}

// handOn passes a record the source emitted to its chained operator, or down the keyBy
// channel to the operator subtask that owns its key.
func (j *Job) handOn(env *sim.Env, ti int, r clients.Polled) {
	t := j.tasks[ti]
	if t.Op >= 0 {
		j.process(env, ti, r.Data)
		return
	}
	to := j.opTask(keyOwner(r.Key, j.spec.Parallelism))
	env.Port(attemptPort(SourceName(t.Source), t.Attempt)).Send(j.address(to, j.spec.OperatorName(to.Op)),
		StreamRecord{From: t.Source, Data: r.Data})
}

// opTask is the task running operator subtask i.
func (j *Job) opTask(i int) *task {
	for _, t := range j.tasks {
		if t.Op == i {
			return t
		}
	}
	return nil
}

// process runs a record through the operator into the sink: map passes it unchanged; a
// count or sum folds it into its key's total and writes the new total, its lineage with
// it. The point comes first: a task failing there has not folded the record.
func (j *Job) process(env *sim.Env, ti int, d protocol.Data) {
	t := j.tasks[ti]
	attempt := t.Attempt
	op := j.spec.OperatorName(t.Op)
	oe := env.Port(attemptPort(op, attempt))
	oe.Observe(sim.Observation{Node: j.node(op), Event: Processed, Msgs: msgsOf(d.Msg), Value: d.Value})
	switch {
	case !j.current(ti, attempt):
	case t.Paused: // paused at the point: the record is in hand, the first thing at the resume
		t.Held = append([]item{{Rec: &d, InHand: true}}, t.Held...)
	default:
		j.operate(env, ti, d)
	}
}

// operate is the operator's work on a record past its point, and the sink's write.
func (j *Job) operate(env *sim.Env, ti int, d protocol.Data) {
	if j.spec.Operator.Aggregates() {
		d = j.fold(j.tasks[ti], d)
	}
	j.sinkWrite(env, ti, d)
}

// fold adds a record to its key's total (1 for count, its value for sum) and returns
// the record the operator emits: the same key and identity, the new total, the lineage.
func (j *Job) fold(t *task, d protocol.Data) protocol.Data {
	add := int64(1)
	if j.spec.Operator == Sum {
		add, _ = strconv.ParseInt(d.Value, 10, 64) // the scene parser makes sure of whole numbers
	}
	tot := t.Totals[d.Key]
	tot.Value += add
	if tot.Folds != "" {
		tot.Folds += ","
	}
	tot.Folds += d.Msg
	t.Totals[d.Key] = tot
	return protocol.Data{Msg: d.Msg, Key: d.Key, Value: strconv.FormatInt(tot.Value, 10), Folds: tot.Folds}
}

// opSnapshot is an operator subtask's part of a checkpoint: a count's or sum's keyed
// state (a map keeps none).
func (j *Job) opSnapshot(t *task, snap map[string]Snapshot) map[string]Snapshot {
	if j.spec.Operator.Aggregates() {
		snap[j.spec.OperatorName(t.Op)] = Snapshot{Totals: maps.Clone(t.Totals)}
	}
	return snap
}

// sourceBarrier: the source subtask takes its snapshot (the next offset of each of its
// partitions) and sends barrier n on; chained, the barrier goes through its operator to
// its sink at once, else down every channel, and the source task acknowledges.
func (j *Job) sourceBarrier(env *sim.Env, ti int, n int64) {
	t := j.tasks[ti]
	part := SourceName(t.Source)
	snap := map[string]Snapshot{part: {Offsets: t.consumer.Positions()}}
	if t.Op >= 0 {
		j.sinkBarrier(env, ti, n, j.opSnapshot(t, snap))
		return
	}
	se := env.Port(attemptPort(part, t.Attempt))
	for i := range j.spec.Parallelism {
		to := j.opTask(i)
		se.Send(j.address(to, j.spec.OperatorName(i)), Barrier{From: t.Source, Checkpoint: n})
	}
	j.acknowledge(env, ti, part, n, snap)
}

// inputBarrier takes barrier n on one input. Under EXACTLY_ONCE the input is blocked
// until every input has delivered it (SingleCheckpointBarrierHandler, aligned); under
// AT_LEAST_ONCE the barriers are only counted and records go on
// (CheckpointBarrierTracker). When the last one arrives the task snapshots, and the
// blocked inputs are let go.
func (j *Job) inputBarrier(env *sim.Env, ti, from int, n int64) {
	t := j.tasks[ti]
	switch {
	case n < t.Aligning:
		return // a barrier of a checkpoint already given up
	case n > t.Aligning:
		released := j.releaseInputs(t)
		t.Aligning = n
		defer j.replay(env, ti, released)
	}
	t.Inputs[from].Seen = true
	for _, in := range t.Inputs {
		if !in.Seen {
			return
		}
	}
	t.Aligning = 0
	released := j.releaseInputs(t)
	j.sinkBarrier(env, ti, n, j.opSnapshot(t, map[string]Snapshot{}))
	j.replay(env, ti, released)
}

// releaseInputs unblocks every input, returning what they held, input by input.
func (j *Job) releaseInputs(t *task) []item {
	var out []item
	for i := range t.Inputs {
		out = append(out, t.Inputs[i].Held...)
		t.Inputs[i] = input{}
	}
	return out
}

// replay handles released items in order; a task blocked meanwhile holds them ahead of
// what came while it was blocked.
func (j *Job) replay(env *sim.Env, ti int, items []item) {
	t := j.tasks[ti]
	attempt := t.Attempt
	for k, it := range items {
		if !j.current(ti, attempt) {
			return
		}
		if t.Blocked || t.Paused {
			t.holdAhead(slices.Clone(items[k:]))
			return
		}
		j.handle(env, ti, it)
	}
}

// acknowledge sends the task's snapshots of checkpoint n to the coordinator.
func (j *Job) acknowledge(env *sim.Env, ti int, part string, n int64, snap map[string]Snapshot) {
	t := j.tasks[ti]
	env.Port(attemptPort(part, t.Attempt)).Send(j.node(JobManager),
		AcknowledgeCheckpoint{Checkpoint: n, Part: part, Snapshots: snap})
}

// unblockInit ends the sink's initialization: the task handles what waited.
func (j *Job) unblockInit(env *sim.Env, ti int) {
	t := j.tasks[ti]
	t.Blocked = false
	held := t.Held
	t.Held = nil
	j.replay(env, ti, held)
}

// unblock ends a barrier's flush: the task acknowledges, then handles what waited.
func (j *Job) unblock(env *sim.Env, ti int) {
	t := j.tasks[ti]
	n, snap := t.Barrier, t.Snap
	t.Blocked, t.Barrier, t.Snap = false, 0, nil
	j.acknowledge(env, ti, SinkName(t.Op), n, snap)
	held := t.Held
	t.Held = nil
	j.replay(env, ti, held)
}
