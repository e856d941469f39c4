package clients

import (
	"deliverylab/core/kafka/protocol"
	"deliverylab/core/sim"
)

// reconnectBackoffMs is reconnect.backoff.max.ms's default.
const reconnectBackoffMs = 1000

// firstReconnectBackoffMs is reconnect.backoff.ms's default: the wait before reconnecting
// after a working connection was closed (ClusterConnectionStates backs off from this,
// doubling per failed attempt up to reconnect.backoff.max.ms).
const firstReconnectBackoffMs = 50

// connections is the state of a client's connection to each broker, as NetworkClient
// keeps it: nothing but ApiVersions goes to a broker until the connection is ready, and
// after a broken connection the client waits reconnect.backoff.max.ms before trying
// again.
type connections map[string]conn

type conn struct {
	Ready      bool
	Connecting bool
	SinceMs    int64 // when its ApiVersions went out
	RetryAtMs  int64
}

// ready reports whether the connection to a broker is ready, starting to open it (an
// ApiVersions round trip) when it is not and the reconnect backoff has passed. An
// ApiVersions unanswered for request.timeout.ms (lost on a cut link) closes the
// connection, as every in-flight request's timeout does (NetworkClient.handleTimedOutRequests),
// and the client connects again after the reconnect backoff. (The check runs at the
// sender's next drain, a send or a retry, so that a connection answered in time adds
// nothing to a run.)
func (cs connections) ready(env *sim.Env, broker string, timeoutMs int64) bool {
	c := cs[broker]
	if c.Ready {
		return true
	}
	if c.Connecting && env.Now() >= c.SinceMs+timeoutMs {
		cs.close(env, broker, firstReconnectBackoffMs)
		return false
	}
	if c.Connecting || env.Now() < c.RetryAtMs {
		return false
	}
	cs[broker] = conn{Connecting: true, SinceMs: env.Now()}
	env.Send(broker, protocol.ApiVersionsRequest{})
	return false
}

// opened marks the connection to a broker ready (its ApiVersions was answered).
func (cs connections) opened(broker string) { cs[broker] = conn{Ready: true} }

// broken marks the connection to a broker broken; the client tries again after the
// reconnect backoff.
func (cs connections) broken(env *sim.Env, broker string) { cs.close(env, broker, reconnectBackoffMs) }

// close closes the connection to a broker; the client may open it again after backoffMs.
func (cs connections) close(env *sim.Env, broker string, backoffMs int64) {
	cs[broker] = conn{RetryAtMs: env.Now() + backoffMs}
	env.After(backoffMs, drainTick{})
}
