package play

import (
	"deliverylab/core/scene"
	"deliverylab/core/sim"
)

// Export is the run so far as one document, for the page's Save run (JSON): what was run
// (the scene file as loaded, the settings changed, the seed, the share link that opens the
// same run), where it stands, the outcome as `deliverylab run --json` reports it, every
// trace line and every observation (the protocol points the ledger judged).
type Export struct {
	Scene        string            `json:"scene"`
	Source       SourceFile        `json:"source"`
	Link         string            `json:"link"`
	NowMs        int64             `json:"nowMs"`
	Report       scene.Report      `json:"report"`
	Trace        []string          `json:"trace"`
	Observations []sim.Observation `json:"observations"`
}

// Export gathers the run so far. The session's own run keeps only the trace's tail, so the
// run is replayed with the whole trace kept (as Diagram replays it with every message).
func (s *Session) Export() Export {
	r := s.replayed(func(w *sim.World) {
		w.Trace().Tail = 0
		w.Trace().Keep = true
	})
	return Export{Scene: s.sc.Name, Source: s.SourceFile(), Link: s.Link(), NowMs: r.World.NowMs(), Report: r.Judge(),
		Trace: r.World.Trace().Texts(true), Observations: r.World.Observations().Slice()}
}
