// Package sim is the deterministic kernel of Delivery Lab: virtual time, one event
// queue, seeded random streams, a simulated network with faults, and a trace.
//
// The contract, for the protocol packages built on it:
//  1. A Node is a state machine. It reacts to Start, Receive (a delivered message) and
//     Fire (a timer) through an Env, and never reads the wall clock or spawns goroutines.
//  2. Everything a node holds is plain data: Clone must copy it deeply enough that the
//     copy and the original never share anything mutable, so a World can be branched.
//  3. Crash drops the node's volatile state (in-flight requests, timers, buffers) and
//     keeps the durable state (logs, committed rows). Timers set before a crash never fire.
//  4. Payloads are immutable values once sent; the kernel shares them between copies.
//  5. Nodes report protocol points with Env.Observe. Observations are traced, kept for
//     the checker, and matched against triggered faults, which run at once: a node that
//     is crashed by its own observation sends nothing after it.
//  6. A node may Disarm a timer it knows has nothing left to do (a timeout of a request
//     that was answered): it still comes due as an event, so nothing a run counts or
//     traces changes, but it no longer holds its payload or reaches Fire.
package sim
