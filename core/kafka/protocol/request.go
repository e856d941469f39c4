package protocol

// request marks the payloads that expect an answer (sim.Request): when one reaches a
// crashed node the connection is refused at once.
type request struct{}

func (request) IsRequest() bool { return true }

// background marks the payloads that are background traffic (sim.Background).
type background struct{}

func (background) Background() bool { return true }
