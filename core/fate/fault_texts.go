package fate

// The codes of what the playground says about a fault the user adds (core/play): what
// it does, in the fault list, the timeline's marks and the fault menu, and the fault
// box's syntax help. They are here, not in play, so that every Chinese word of the core
// is in one table (reasons_zh.go) beside its English. Node names, links and syntax are
// arguments; a {message} or {fault} argument is a text of its own, filled in each
// language with that language's text.
const (
	FaultCrash       Code = "fault-crash"        // {node}
	FaultRestart     Code = "fault-restart"      // {node}
	FaultPause       Code = "fault-pause"        // {node}
	FaultResume      Code = "fault-resume"       // {node}
	FaultCut         Code = "fault-cut"          // {from} {to}: both ways
	FaultCutOneway   Code = "fault-cut-oneway"   // {from} {to}
	FaultHeal        Code = "fault-heal"         // {from} {to}: both ways
	FaultHealOneway  Code = "fault-heal-oneway"  // {from} {to}
	FaultHealAll     Code = "fault-heal-all"     //
	FaultPartition   Code = "fault-partition"    // {groups}: "[a b] | [c]"
	FaultFor         Code = "fault-for"          // {ms}: added after a fault that undoes itself
	FaultDrop        Code = "fault-drop"         // {message}
	FaultDelay       Code = "fault-delay"        // {message} {ms}
	FaultDuplicate   Code = "fault-duplicate"    // {message}
	FaultWhen        Code = "fault-when"         // {where} {fault}: an armed fault and its protocol point
	MessageJustSent  Code = "message-just-sent"  // the response an armed wire fault hits
	MessageAbout     Code = "message-about"      // {ids} {kind} {route}: "p1#3's ProduceResponse (broker-1 → p1)"
	MessageOnWire    Code = "message-on-wire"    // {kind} {id} {route}: a message about no application message
	MessageOffWire   Code = "message-off-wire"   // {id}: a message no longer on the wire
	MenuPause        Code = "menu-pause"         // {node}
	MenuCut          Code = "menu-cut"           // {from} {to}: both ways
	MenuCrashAppend  Code = "menu-crash-append"  // a broker's protocol points (play's pointFaults)
	MenuCrashRespond Code = "menu-crash-respond" //
	MenuCrashAcked   Code = "menu-crash-acked"   // a producer's
	MenuCrashPolled  Code = "menu-crash-polled"  // a consumer's
	MenuCrashCommit  Code = "menu-crash-commit"  //
	MenuCrashPoll    Code = "menu-crash-poll"    // a Streams application's
	MenuCrashProcess Code = "menu-crash-process" //
	MenuCrashWritten Code = "menu-crash-written" //
	MenuCrashStored  Code = "menu-crash-stored"  // a sink's
	// A Flink job's: the job at its next completed checkpoint, a subtask at the next
	// checkpoint's trigger (the checkpoint under way).
	MenuCrashJobCompleted  Code = "menu-crash-job-completed"
	MenuCrashTaskTriggered Code = "menu-crash-task-triggered"
	MenuCrashPreCommitted  Code = "menu-crash-pre-committed" // a sink subtask after its flush at the barrier
)

// The fault box's help (play.Session.FaultHelp): its first line, then what each example
// does; the examples themselves are syntax, the same in every language.
const (
	HelpIntro        Code = "help-intro"
	HelpCrash        Code = "help-crash"
	HelpCrashFor     Code = "help-crash-for"
	HelpRestart      Code = "help-restart"
	HelpPause        Code = "help-pause"
	HelpPauseFor     Code = "help-pause-for"
	HelpResume       Code = "help-resume"
	HelpCut          Code = "help-cut"
	HelpCutOneway    Code = "help-cut-oneway"
	HelpHeal         Code = "help-heal"
	HelpHealOneway   Code = "help-heal-oneway"
	HelpHealAll      Code = "help-heal-all"
	HelpPartition    Code = "help-partition"
	HelpDrop         Code = "help-drop"
	HelpDelay        Code = "help-delay"
	HelpDuplicate    Code = "help-duplicate"
	HelpWhenNode     Code = "help-when-node"
	HelpWhenResponse Code = "help-when-response"
	HelpWhenRequest  Code = "help-when-request"
	HelpCrashTask    Code = "help-crash-task" // a Flink subtask: a task failure
	HelpWhenJob      Code = "help-when-job"   // a Flink job at a checkpoint's completion
)
