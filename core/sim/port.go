package sim

import "strings"

// A port is one client inside a node: a Kafka Streams thread is one process with a
// consumer and a producer, each with its own connections, and the brokers answer each
// on its own. A message from a port carries the address "node/port"; the kernel
// delivers the answer to the node with that Env.Port set, so the node can hand it to the
// client it belongs to. Faults, links and latencies are the node's: a cut between a
// node and a broker cuts every port of it.

// portSep separates a node's name from a port in an address. Scene names never hold it.
const portSep = "/"

// Address is the address of a node's port ("" is the node itself).
func Address(node, port string) string {
	if port == "" {
		return node
	}
	return node + portSep + port
}

// NodeOf is the node an address belongs to.
func NodeOf(addr string) string {
	if i := strings.Index(addr, portSep); i >= 0 {
		return addr[:i]
	}
	return addr
}

// PortOf is an address's port, "" for the node itself.
func PortOf(addr string) string {
	if i := strings.Index(addr, portSep); i >= 0 {
		return addr[i+len(portSep):]
	}
	return ""
}

// Port is an Env for one of the node's ports: what it sends comes from that port, its
// timers fire with the port set, and the answers to it arrive with the port set.
func (e *Env) Port(port string) *Env {
	c := *e
	c.port, c.portID = port, unknownPort
	return &c
}

// PortName is the port the event being handled is for ("" for the node itself).
func (e *Env) PortName() string { return e.port }

// Address is the address the handling node's messages come from.
func (e *Env) Address() string { return Address(e.s.name, e.port) }
