package fate

// The codes of the playground's refusals (core/play's UserError) and notices: why a
// fault, a link, a setting or a move is refused, and what a changed run dropped. Like
// fault_texts.go, they are here so the core's Chinese has one home. Values the user
// typed or Go's errors ({err}) are arguments, as they are.
const (
	// A fault that would change nothing now (play's noEffect), or that does not parse.
	RefusedMalformed   Code = "refused-malformed"    // {err}
	RefusedUp          Code = "refused-up"           // {node}: restarting a node that is up
	RefusedNotStarted  Code = "refused-not-started"  // {node} {ms}: restarting a node that starts at {ms}
	RefusedDown        Code = "refused-down"         // {node}: crashing a node that is down
	RefusedPaused      Code = "refused-paused"       // {node}
	RefusedPauseDown   Code = "refused-pause-down"   // {node}
	RefusedNotPaused   Code = "refused-not-paused"   // {node}
	RefusedCut         Code = "refused-cut"          // {from} {to}: both ways already
	RefusedCutOneway   Code = "refused-cut-oneway"   // {from} {to}
	RefusedNotCut      Code = "refused-not-cut"      // {from} {to}: neither way
	RefusedNotCutOne   Code = "refused-not-cut-one"  // {from} {to}
	RefusedPartition   Code = "refused-partition"    // every link it cuts is cut
	RefusedNoCut       Code = "refused-no-cut"       // healing all with no link cut
	RefusedNotInFlight Code = "refused-not-inflight" // {id}
	// A twin's fault on a message this run has no copy of on the wire now.
	TwinNoCounterpart Code = "twin-no-counterpart" // {kind} {from} {to} {label}

	// Opening a scene or a share link, changing a setting, moving in time.
	NoScene        Code = "no-scene"        // {name}: quoted, as Go's %q does
	LinkDamaged    Code = "link-damaged"    //
	LinkNewer      Code = "link-newer"      // {version}
	LinkSettings   Code = "link-settings"   // {err}
	LinkFault      Code = "link-fault"      // {n} {err}: the n-th fault, from 1
	NoSetting      Code = "no-setting"      // {key}: quoted
	SettingChoices Code = "setting-choices" // {key} {choices} {value}: value quoted
	SettingRefused Code = "setting-refused" // {key} {value} {err}
	SeekNegative   Code = "seek-negative"   // {ms}
	StepBackStart  Code = "step-back-start" //
	Branched       Code = "branched"        // {count} {ms}: later faults discarded
	Unreplayed     Code = "unreplayed"      // {count} {faults}: {faults} is a list of UnreplayedOne
	UnreplayedOne  Code = "unreplayed-one"  // {fault} {ms} {id}
)
