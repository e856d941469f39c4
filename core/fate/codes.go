package fate

// The reason codes. A fate's reason is one or more of them, in this order: what the
// message is, then why.
const (
	// delivered and duplicated
	OneEffect     Code = "one-effect"     // {output}
	ManyEffects   Code = "many-effects"   // {count} {output}
	AppendedTwice Code = "appended-twice" // {count} {places}: why it was duplicated
	// ReplayedByJob: {node} {count}: a Flink job's sink wrote it again after a restore.
	ReplayedByJob Code = "replayed-by-job"
	// FoldedTwice: {count}: a Flink aggregate's last total of its key holds it more than
	// once: the restored checkpoint's keyed state had it while its source's offset there
	// was before it (AT_LEAST_ONCE: barriers not aligned).
	FoldedTwice Code = "folded-twice"
	// WrittenByJobs: {nodes}: the sinks of two Flink jobs each wrote it: the later job
	// started without the earlier one's checkpoint and read it again.
	WrittenByJobs Code = "written-by-jobs"
	// ReadAborted: {output} {count}: its reader polled it from a transaction the writer
	// aborted (read_uncommitted), and again from the one that committed.
	ReadAborted Code = "read-aborted"
	PolledTwice Code = "polled-twice" // {count}
	// ProcessedAgain: a Streams application processed the input again after it lost its
	// uncommitted work. {count} {node}
	ProcessedAgain Code = "processed-again"
	FailedTold     Code = "failed-told"     // {err} {ms}
	FailedUntold   Code = "failed-untold"   //
	NotYetIn       Code = "not-yet-in"      // {output}: unavailable, followed by where it is held
	HeldOffline    Code = "held-offline"    // {partition} {broker}
	HeldAboveHW    Code = "held-above-hw"   // {partition} {broker}
	HeldForReader  Code = "held-for-reader" // {partition} {broker}
	HeldUnread     Code = "held-unread"     // {partition} {broker}: below the HW, at or past the committed offset
	HeldPast       Code = "held-past"       // {partition} {broker}: lost, below the committed offset, never polled
	AckedAtOffset  Code = "acked-offset"    // {ms} {offset} {partition}: lost, how it was acknowledged
	AckedNoWait    Code = "acked-acks0"     // {ms}
	AckedAt        Code = "acked"           // {ms}
	Truncated      Code = "truncated"       // {node} {ms}: lost, why
	CrashedBefore  Code = "crashed-before"  // {polled} {committed}
	NeverProcessed Code = "never-processed" // {polled}
	Gone           Code = "gone"            // {output}
	// OnlyAborted: {places}: it reached the output's topics only inside transactions
	// that aborted, which a read_committed reader skips.
	OnlyAborted   Code = "only-aborted"
	Overwritten   Code = "overwritten"     // {by} {output}: an upsert with the same key replaced its row
	KeyTaken      Code = "key-taken"       // {by} {output}: a unique key refused it, {by} holds the key
	InProgress    Code = "in-progress"     // a fate not decided yet: not acknowledged
	InProgressAck Code = "in-progress-ack" // {output}: acknowledged, no effect yet

	// What each of Jepsen's anomalies (check.AllAnomalies) means, for the page's ledger.
	MeansDuplicate        Code = "anomaly-duplicate"
	MeansLostWrite        Code = "anomaly-lost-write"
	MeansNonmonotonicSend Code = "anomaly-nonmonotonic-send"
	MeansNonmonotonicPoll Code = "anomaly-nonmonotonic-poll"
	MeansPollSkip         Code = "anomaly-poll-skip"
	MeansAbortedRead      Code = "anomaly-aborted-read"
)
