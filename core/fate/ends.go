package fate

// Why a run ended without settling, and what it still waited for: the run's end note
// on the page and in the CLI (scene.Run.EndWhy), in every language.
const (
	EndedFrozen Code = "ended-frozen" // {ms} {events} {loop}
	EndedEvents Code = "ended-events" // {events}
	EndedTime   Code = "ended-time"   // {ms}

	WaitsForLeader       Code = "waits-leader"         // {node} {partition}
	WaitsForCoordinator  Code = "waits-coordinator"    // {node} {group}
	WaitsToJoin          Code = "waits-join"           // {node} {group}
	WaitsToRead          Code = "waits-read"           // {node} {partition} {position} {hw}
	WaitsToReadCommitted Code = "waits-read-committed" // {node} {partition} {position} {lso}
	WaitsToProcess       Code = "waits-process"        // {node}
	WaitsForCommit       Code = "waits-commit"         // {node}
	WaitsForSink         Code = "waits-sink"           // {node} {sink}
	WaitsForAcks         Code = "waits-acks"           // {node}
	WaitsForMetadata     Code = "waits-metadata"       // {node} {partition}
	WaitsForFollower     Code = "waits-follower"       // {node} {partition} {follower}
	WaitsForHW           Code = "waits-hw"             // {node} {partition}
	WaitsForRebalance    Code = "waits-rebalance"      // {node} {group}
	WaitsForMarkers      Code = "waits-markers"        // {node} {txn}
	WaitsForTxnOffsets   Code = "waits-txn-offsets"    // {node} {group}
	WaitsForFence        Code = "waits-fence"          // {broker}
	WaitsToRegister      Code = "waits-register"       // {broker}
	WaitsForNode         Code = "waits-node"           // {node}: a node that says no more
	WaitsForWire         Code = "waits-wire"           // {count}
	WaitsForScript       Code = "waits-script"         //
	WaitsForResume       Code = "waits-resume"         // {node} {count}: a paused node that nothing resumes
	WaitsForCheckpoint   Code = "waits-checkpoint"     // {node} {checkpoint}: a Flink checkpoint under way
	WaitsForRestart      Code = "waits-restart"        // {node}: a failed Flink task waiting to be deployed again

	// The punctuation of a sentence that lists reasons (the end note; play's notices):
	// each language has its own.
	ListColon Code = "list-colon" // before the list
	ListSep   Code = "list-sep"   // between its items
)
