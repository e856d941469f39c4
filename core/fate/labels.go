package fate

// The codes of the labels the page shows beside a scene's key settings
// (scene.Settings), so that their Chinese is in the core's one table too.
const (
	SettingOfNode    Code = "setting-of-node"    // {node} {name}: "p1 acks"
	SettingOfCluster Code = "setting-of-cluster" // {name}: "min.insync.replicas"
	// OtherRelease is said of a scene switched to a Kafka release its captions and
	// expectation do not describe (the kafka.version toggle): {holds} the releases they
	// describe, {runs} the one it now follows.
	OtherRelease Code = "other-release"
)
