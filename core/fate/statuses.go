package fate

// The status codes: the short line a node's box shows (show.Node.Status), as a reason
// of one or more parts rendered from the same tables as the fates, so a status is said
// once per language and the canvas never translates Latin text word by word. Numbers,
// ids and Kafka's own names (Stable, PreparingRebalance, exactly_once_v2) are
// arguments and stay as Kafka spells them; the words around them are templates.
const (
	StatusSent       Code = "status-sent"        // {sent} {count} {acked}: a producer's counts
	StatusIdentity   Code = "status-identity"    // {id}: " · pid 0 e1 orders-0:3", an idempotent producer's identity
	StatusTxn        Code = "status-txn"         // {count}: " · txn 3 ", the transactions begun, then a txn word
	StatusPID        Code = "status-pid"         // {id}: " pid 0 e1", a transactional producer's id and epoch
	StatusState      Code = "status-state"       // {state}: Kafka's name of a state, as it is
	StatusMember     Code = "status-member"      // {state}: "Stable ", a consumer's group state, then a phase word
	StatusGuarantee  Code = "status-guarantee"   // {guarantee}: "exactly_once_v2 · ", a Streams application's
	StatusStreamsTxn Code = "status-streams-txn" // ", txn ", then a txn word

	// The applications' own words for what they are doing.
	StatusIdle       Code = "status-idle"
	StatusProcessing Code = "status-processing"
	StatusCommitting Code = "status-committing"
	StatusStarting   Code = "status-starting"
	StatusRunning    Code = "status-running"
	StatusFlushing   Code = "status-flushing"

	// A transaction manager's state (TransactionManager.State) in a word that fits a box.
	StatusTxnInit      Code = "status-txn-init"
	StatusTxnReady     Code = "status-txn-ready"
	StatusTxnOpen      Code = "status-txn-open"
	StatusTxnAborting  Code = "status-txn-aborting"
	StatusTxnAbortable Code = "status-txn-abortable"
	StatusTxnFatal     Code = "status-txn-fatal"
	StatusTxnFenced    Code = "status-txn-fenced"

	StatusRows       Code = "status-rows"        // {rows}: a sink's row count
	StatusRewrites   Code = "status-rewrites"    // {count}: an upsert sink's rewritten rows
	StatusRefused    Code = "status-refused"     // {count}: a unique-key sink's refused inserts
	StatusOffsets    Code = "status-offsets"     // {offsets}: a transactional sink's stored offsets, "orders-0@3 orders-1@2"
	StatusXaPrepared Code = "status-xa-prepared" // {count}: a transactional sink's prepared XA branches
	StatusTotal      Code = "status-total"       // {total}: a counting sink's sum
	StatusPartitions Code = "status-partitions"  // {count}: a broker's partition replicas
	StatusQuorum     Code = "status-quorum"      // the controller
	// A Flink job: its latest completed checkpoint, the one under way (or the last one
	// aborted, until the next is triggered), a region restarting.
	StatusJob               Code = "status-job"                // {checkpoint}: "checkpoint 3 completed"
	StatusJobNone           Code = "status-job-none"           // no checkpoint completed yet
	StatusCheckpoint        Code = "status-checkpoint"         // {checkpoint} {acked} {tasks}: " · 4 pending 1/2", tasks acknowledged
	StatusCheckpointAborted Code = "status-checkpoint-aborted" // {checkpoint}: " · 4 aborted"
	StatusRestarting        Code = "status-restarting"         // " · restarting"

	// What the session says of a node instead of its own line (play.NodeState).
	StatusStartsAt Code = "status-starts-at" // {ms}: start.ms ahead
	StatusHeldDown Code = "status-held-down" // not started: a scripted fault holds it down
	StatusDown     Code = "status-down"
	StatusPaused   Code = "status-paused" // {count}: the events it holds
)

// Statuses lists the status codes: what the canvas's font must be able to draw.
var Statuses = []Code{
	StatusSent, StatusIdentity, StatusTxn, StatusPID, StatusState, StatusMember, StatusGuarantee, StatusStreamsTxn,
	StatusIdle, StatusProcessing, StatusCommitting, StatusStarting, StatusRunning, StatusFlushing,
	StatusTxnInit, StatusTxnReady, StatusTxnOpen, StatusTxnAborting, StatusTxnAbortable, StatusTxnFatal, StatusTxnFenced,
	StatusRows, StatusRewrites, StatusRefused, StatusOffsets, StatusXaPrepared, StatusTotal, StatusPartitions, StatusQuorum,
	StatusJob, StatusJobNone, StatusCheckpoint, StatusCheckpointAborted, StatusRestarting,
	StatusStartsAt, StatusHeldDown, StatusDown, StatusPaused,
}
