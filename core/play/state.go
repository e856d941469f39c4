package play

import (
	"deliverylab/core/check"
	"deliverylab/core/fate"
	"deliverylab/core/show"
)

// Text is a caption or title in both of the playground's languages.
type Text struct {
	En string `json:"en"`
	Zh string `json:"zh"`
}

// SceneInfo describes one shipped scene for the scene picker.
type SceneInfo struct {
	Name    string `json:"name"` // file name without .yaml, the argument of Load
	Title   Text   `json:"title"`
	Summary Text   `json:"summary"`
}

// State is everything the front end draws, read once per change. It is plain data
// (JSON-tagged) so the JS bridge can hand it to the page and tests as it is.
type State struct {
	Scene   string `json:"scene"`
	Title   Text   `json:"title"`
	Summary Text   `json:"summary"`
	// Kafka is the Kafka release the run follows ("3.9", "4.x"), and ReleaseNote, when
	// the scene was switched to a release its captions and expect do not describe, says
	// so (empty otherwise).
	Kafka       string      `json:"kafka"`
	ReleaseNote Text        `json:"releaseNote"`
	NowMs       int64       `json:"nowMs"`
	Playing     bool        `json:"playing"`
	Ended       bool        `json:"ended"`    // the run settled or reached stop.ms / the time limit
	EndNote     string      `json:"endNote"`  // why it ended ("settled", "stop.ms", "time limit", "event limit", "frozen clock")
	EndWhy      Text        `json:"endWhy"`   // a run that did not settle: why it stopped, what it waited for
	Version     uint64      `json:"version"`  // changes whenever anything visible changes
	Nodes       []NodeState `json:"nodes"`    // in layout order: producers, brokers, consumers, sinks
	InFlight    []Flight    `json:"inFlight"` // messages on the wire, oldest first
	Quiet       bool        `json:"quiet"`    // only background traffic is on the wire (see FastForward)
	CutLinks    []Link      `json:"cutLinks"` // directed links that drop everything
	Captions    []Caption   `json:"captions"` // narration reached so far, oldest first
	Quiz        []QuizItem  `json:"quiz"`     // the scene's questions, answered once the run has ended
	Ledger      Ledger      `json:"ledger"`
	Faults      []string    `json:"faults"` // faults injected by the user, in their scene syntax
	// FaultList: every recorded user fault, said in words (faults.go); ArmedList: the
	// armed ones still waiting for their protocol point.
	FaultList []FaultEntry `json:"faultList"`
	ArmedList []ArmedEntry `json:"armedList"`
	// SceneFaults: the scene's own scripted faults (scene_faults.go), in the file's order.
	SceneFaults []SceneFaultEntry `json:"sceneFaults"`
	// FaultsFromMs is when the user's first fault happened (-1: none): captions after it
	// follow the scene's script, which the user's faults may have changed.
	FaultsFromMs int64    `json:"faultsFromMs"`
	Trace        []string `json:"trace"`  // the last trace lines, oldest first
	Errors       []string `json:"errors"` // invariant violations (reported, never panicked)

	EventsRun   int64    `json:"eventsRun"` // events the world has run: the step-back position
	CanStepBack bool     `json:"canStepBack"`
	Timeline    Timeline `json:"timeline"`
	Branch      *Branch  `json:"branch"`
	// WaitingCaption is the narration index of a caption with pause: true that stopped
	// the run until Continue, or -1.
	WaitingCaption int       `json:"waitingCaption"`
	Settings       []Setting `json:"settings"`
	Source         Source    `json:"source"`
	Seed           int64     `json:"seed"` // the run's root seed (the scene's, or the one set)
}

// Source says where the scene came from: a shipped scene's name, or the file name of
// the user's own.
type Source struct {
	Kind string `json:"kind"` // shipped | own
	Name string `json:"name"`
}

// NodeState is one node as drawn.
type NodeState struct {
	Name       string         `json:"name"`
	Kind       string         `json:"kind"` // controller | broker | producer | consumer | sink
	Up         bool           `json:"up"`
	Paused     bool           `json:"paused"`     // up but stopped (a pause fault): what it receives waits
	Waiting    bool           `json:"waiting"`    // not started yet (start.ms ahead): not a failure
	Status     fate.Reason    `json:"status"`     // the status line as codes: the canvas says it in its language
	Detail     string         `json:"detail"`     // the status line in English (Status.Text(fate.En)), for tests and tools
	Blocked    bool           `json:"blocked"`    // producers: send() waits for buffer memory
	Fenced     bool           `json:"fenced"`     // brokers: up, but fenced by the controller
	Partitions []ReplicaState `json:"partitions"` // brokers only
	Txns       []show.Txn     `json:"txns"`       // brokers: the transactional ids this one coordinates
	Rows       []string       `json:"rows"`       // sinks: message identities of the rows, in order
	Refused    []string       `json:"refused"`    // unique-key sinks: the inserts refused as duplicates
	// Parts: a Flink job's subtasks (sources, operators, sinks), each running or failed,
	// blocked, aligning; the job manager is the job itself.
	Parts []show.Part `json:"parts,omitempty"`
}

// ReplicaState is one replica of one partition on one broker, as the broker shows it.
type ReplicaState = show.Log

// RecordView is one log cell: an application record, an offset commit or a transaction
// marker.
type RecordView = show.Cell

// Flight is one message on the wire.
type Flight struct {
	ID   int64  `json:"id"`
	From string `json:"from"`
	To   string `json:"to"`
	Kind string `json:"kind"` // Produce, ProduceResponse, Fetch, ...
	// Family is the part of the protocol it belongs to (sim.Family): produce, fetch,
	// offsets, group, transaction, metadata, control, sink; "unknown" if it does not say.
	Family string `json:"family"`
	Label  string `json:"label"` // short Latin text for the canvas
	// Bounced: an answer to a request the receiver had already handled (a duplicate
	// batch), drawn as a duplicate bouncing back.
	Bounced bool `json:"bounced,omitempty"`
	// FromPart, ToPart: the part of a Flink job an end belongs to ("map-1",
	// "jobmanager"; the task attempt "#2" left out), "" for a node itself.
	FromPart string `json:"fromPart,omitempty"`
	ToPart   string `json:"toPart,omitempty"`
	SentMs   int64  `json:"sentMs"`
	ArriveMs int64  `json:"arriveMs"`
}

// Link is a directed link.
type Link struct {
	From string `json:"from"`
	To   string `json:"to"`
}

// Caption is one narration step that the run has reached.
type Caption struct {
	AtMs  int64    `json:"atMs"`
	En    string   `json:"en"`
	Zh    string   `json:"zh"`
	Index int      `json:"index"` // the narration index
	Nodes []string `json:"nodes"` // what it talks about (highlight, else when.node)
	Pause bool     `json:"pause"` // it stops the run until Continue
}

// Ledger is the checker's account of one output so far (final once Ended).
type Ledger struct {
	Output   string         `json:"output"`
	Verdict  string         `json:"verdict"`
	Counts   map[string]int `json:"counts"` // sent, acked, delivered, lost, duplicated, unavailable, failed
	Messages []MessageFate  `json:"messages"`
	// Anomalies are Jepsen's Kafka anomalies over the whole run, once it has ended (before
	// that, none: a later poll or acknowledgement can still make or explain one).
	Anomalies []AnomalyCount `json:"anomalies"`
	// Total: a counter output's total as the dashboard shows it, and the one it should
	// show (the page gives the expected one once the run has ended).
	Total *check.Total `json:"total,omitempty"`
}

// AnomalyCount is one of Jepsen's anomalies (check.AllAnomalies, Jepsen's name in both
// languages, like Kafka's names), how many times the run showed it, and what it means.
type AnomalyCount struct {
	Name    check.Anomaly `json:"name"`
	Count   int           `json:"count"`
	Meaning Text          `json:"meaning"`
}

// MessageFate is one application message and what happened to it.
type MessageFate struct {
	ID     string   `json:"id"`
	Fate   string   `json:"fate"`   // delivered | duplicated | lost | unavailable | failed | pending
	Reason Text     `json:"reason"` // why, in both languages
	AtMs   int64    `json:"atMs"`   // when its fate was decided (-1: unknown)
	Path   []string `json:"path"`   // the nodes it visited, in order
	// Txn: the transactions its records were written in, in the order of the logs of
	// the partitions' leaders (an aborted copy, then the committed one); empty for a
	// message written outside transactions.
	Txn []show.RecordTxn `json:"txn,omitempty"`
}
