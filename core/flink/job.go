package flink

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"deliverylab/core/kafka/clients"
	"deliverylab/core/kafka/protocol"
	"deliverylab/core/sim"
)

// Job is one Flink job: a sim.Node whose parts are its job manager and subtasks.
type Job struct {
	name        string
	spec        JobSpec
	partitions  []protocol.TP // the source topic's
	newConsumer func(clientID string) *clients.Consumer
	newProducer func(clientID, transactionalID string) *clients.Producer

	// Durable: checkpoint storage keeps the latest completed checkpoint
	// (state.checkpoints.num-retained 1), and survives the process.
	latest *Checkpoint
	// latestPrint is the latest checkpoint as it was when it completed (restore_check.go);
	// problems, what a restore found wrong (kept: a problem is reported until the end).
	latestPrint string
	problems    []string

	// Volatile: the running job.
	tasks    []*task
	regions  [][]int // task indexes per pipelined region
	counter  int64   // the checkpoint id counter
	pending  *pendingCheckpoint
	aborted  int64 // the last checkpoint aborted, until the next one is triggered (shown, never used)
	queued   bool  // a periodic trigger came while a checkpoint was pending
	attempts int   // deployments so far: each task attempt's ports are its own
	down     []int // regions failed and waiting for their restart
}

// NewJob makes a job; newConsumer makes a source subtask's consumer (assigned, no
// group) and newProducer a sink subtask's producer (transactionalID "" unless
// EXACTLY_ONCE).
func NewJob(name string, spec JobSpec, partitions []protocol.TP, newConsumer func(clientID string) *clients.Consumer,
	newProducer func(clientID, transactionalID string) *clients.Producer) *Job {
	j := &Job{name: name, spec: spec, partitions: partitions, newConsumer: newConsumer, newProducer: newProducer}
	j.layout()
	return j
}

// Name implements sim.Node.
func (j *Job) Name() string { return j.name }

// Spec is the job's settings.
func (j *Job) Spec() JobSpec { return j.spec }

// Latest is the latest completed checkpoint, nil if none.
func (j *Job) Latest() *Checkpoint { return j.latest }

// layout builds the tasks and the pipelined regions: chained, task i runs source i, its
// operator and its sink, and is a region of its own (forward edges only); with a keyBy,
// the sources are tasks, each operator with its sink is a task, and the all-to-all
// shuffle makes them one region (RestartPipelinedRegionFailoverStrategy).
func (j *Job) layout() {
	j.tasks, j.regions = nil, nil
	s := j.spec
	if s.Chained() {
		for i := range s.Parallelism {
			j.tasks = append(j.tasks, &task{Source: i, Op: i})
			j.regions = append(j.regions, []int{i})
		}
		return
	}
	var all []int
	for i := range s.Source.Parallelism {
		j.tasks = append(j.tasks, &task{Source: i, Op: -1})
		all = append(all, len(j.tasks)-1)
	}
	for i := range s.Parallelism {
		j.tasks = append(j.tasks, &task{Source: -1, Op: i, Inputs: make([]input, s.Source.Parallelism)})
		all = append(all, len(j.tasks)-1)
	}
	j.regions = [][]int{all}
}

// Start boots the process (again after a crash): every region is deployed from the
// latest completed checkpoint, and the checkpoint ids go on from it (a job restored
// from a retained checkpoint counts on from its id).
func (j *Job) Start(env *sim.Env) {
	j.layout()
	j.pending, j.queued, j.down, j.aborted = nil, false, nil, 0
	j.counter = 0
	if j.latest != nil {
		j.counter = j.latest.ID
	}
	for r := range j.regions {
		j.deploy(env, r)
	}
	// The first checkpoint comes after a random delay up to one interval, then one comes
	// every interval (CheckpointCoordinator.startCheckpointScheduler, getRandomInitDelay:
	// from the minimum pause between checkpoints, 0, to the interval; ScheduledTrigger).
	env.Port(JobManager).After(env.Rand().Intn(j.spec.Checkpointing.IntervalMs+1), checkpointTick{})
}

// Crash loses the running job; checkpoint storage stays.
func (j *Job) Crash() {
	for _, t := range j.tasks {
		t.stop()
	}
	j.pending, j.queued, j.down = nil, false, nil
}

// Clone implements sim.Node.
func (j *Job) Clone() sim.Node {
	c := *j
	if j.latest != nil {
		l := j.latest.clone()
		c.latest = &l
	}
	c.tasks = make([]*task, len(j.tasks))
	for i, t := range j.tasks {
		c.tasks[i] = t.clone()
	}
	c.regions = make([][]int, len(j.regions))
	for i, r := range j.regions {
		c.regions[i] = slices.Clone(r)
	}
	c.pending = j.pending.clone()
	c.down = slices.Clone(j.down)
	c.problems = slices.Clone(j.problems)
	return &c
}

// port is the address part of a task attempt's client or channel end: "map-0#3".
func attemptPort(part string, attempt int) string { return part + "#" + strconv.Itoa(attempt) }

// parsePort splits "map-0#3" into the part and the attempt, and "sink-0#3.5" (a sink's
// producer of the transaction for checkpoint 5) into the part, the attempt and the rest.
func parsePort(port string) (part string, attempt int, rest string) {
	part, n, ok := strings.Cut(port, "#")
	if !ok {
		return port, 0, ""
	}
	n, rest, _ = strings.Cut(n, ".")
	attempt, _ = strconv.Atoi(n)
	return part, attempt, rest
}

// taskOf finds the task running a part, and its index.
func (j *Job) taskOf(part string) (*task, int) {
	for i, t := range j.tasks {
		if slices.Contains(j.parts(t), part) {
			return t, i
		}
	}
	return nil, -1
}

// parts lists a task's parts: its source, its operator and sink.
func (j *Job) parts(t *task) []string {
	var out []string
	if t.Source >= 0 {
		out = append(out, SourceName(t.Source))
	}
	if t.Op >= 0 {
		out = append(out, j.spec.OperatorName(t.Op), SinkName(t.Op))
	}
	return out
}

// regionOf is the region a task belongs to.
func (j *Job) regionOf(ti int) int {
	for r, tis := range j.regions {
		if slices.Contains(tis, ti) {
			return r
		}
	}
	return 0
}

// Receive hands a message to the part it came to: the job manager, a task's client, or
// a task's channel end. What came for an attempt that is gone is dropped, as a failed
// task's connections and channels are.
func (j *Job) Receive(env *sim.Env, m sim.Message) {
	if env.PortName() == JobManager {
		j.coordinatorReceive(env, m)
		return
	}
	if ti, part, rest, ok := j.attemptOf(env.PortName()); ok {
		j.taskReceive(env, ti, part, rest, m)
	}
}

// Fire runs the job manager's timers and the clients' own.
func (j *Job) Fire(env *sim.Env, tm sim.Payload) {
	if env.PortName() == JobManager {
		j.coordinatorFire(env, tm)
		return
	}
	if ti, part, rest, ok := j.attemptOf(env.PortName()); ok {
		j.taskFire(env, ti, part, rest, tm)
	}
}

// attemptOf finds the running task a port belongs to: ok is false for a port of an
// attempt that is gone.
func (j *Job) attemptOf(port string) (ti int, part, rest string, ok bool) {
	part, attempt, rest := parsePort(port)
	t, ti := j.taskOf(part)
	if t == nil || !t.Running || t.Attempt != attempt {
		return -1, "", "", false
	}
	return ti, part, rest, true
}

// FailPart implements sim.PartFailer: a subtask crashed, a task failure.
func (j *Job) FailPart(env *sim.Env, part string) {
	if part == JobManager {
		return // the job manager is the process: crash the job itself
	}
	if _, ti := j.taskOf(part); ti >= 0 {
		j.failTask(env, ti, part, "crashed")
	}
}

// failTask fails a task's region over: its tasks are cancelled, the pending checkpoint
// is aborted, and after restart.delay.ms the region is deployed again from the latest
// completed checkpoint (fixed-delay restart strategy).
func (j *Job) failTask(env *sim.Env, ti int, part, why string) {
	t := j.tasks[ti]
	if !t.Running {
		return
	}
	jm := env.Port(JobManager)
	jm.Observe(sim.Observation{Node: j.name + "/" + part, Event: TaskFailed, Err: why})
	r := j.regionOf(ti)
	for _, i := range j.regions[r] {
		j.tasks[i].stop()
	}
	if j.pending != nil {
		j.abort(jm, "a task failed")
	}
	j.down = append(j.down, r)
	jm.After(j.spec.RestartDelayMs, restartDue{Region: r})
}

// deploy starts a region's tasks from the latest completed checkpoint.
func (j *Job) deploy(env *sim.Env, r int) {
	var from int64
	if j.latest != nil {
		from = j.latest.ID
	}
	env.Port(JobManager).Observe(sim.Observation{Node: j.name + "/" + JobManager, Event: Restored, Checkpoint: from})
	for _, ti := range j.regions[r] {
		j.attempts++
		j.startTask(env, ti, j.attempts)
	}
}

// node is a part's full name, as the scene names it.
func (j *Job) node(part string) string { return j.name + "/" + part }

func (j *Job) String() string { return fmt.Sprintf("job %s", j.name) }
