package play

import (
	"deliverylab/core/kafka"
	"deliverylab/core/sim"
)

// quiet reports whether everything on the wire is background traffic: heartbeats,
// metadata, finding a coordinator, opening connections and long polls that carry no
// records. Time may pass quickly then without the viewer missing anything.
func quiet(w *sim.World) bool { return !w.AnyInFlight(worthWatching) }

func worthWatching(m sim.Message) bool {
	switch p := m.Payload.(type) {
	case kafka.BrokerHeartbeat, kafka.BrokerHeartbeatResponse, kafka.HeartbeatRequest, kafka.HeartbeatResponse,
		kafka.MetadataRequest, kafka.MetadataResponse, kafka.ApiVersionsRequest, kafka.ApiVersionsResponse,
		kafka.FindCoordinatorRequest, kafka.FindCoordinatorResponse, kafka.FetchRequest:
		return false
	case kafka.FetchResponse:
		return len(p.Records) > 0 || p.Diverging || p.Err != ""
	case sim.Refused:
		return worthWatching(sim.Message{Payload: p.Orig})
	}
	return true
}
