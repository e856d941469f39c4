// Package view turns a play.State into geometry: where each node, partition log and
// in-flight message sits on the canvas, what a click at a point hits, and which colour
// each thing is drawn in.
//
// It is pure Go on purpose: no ebiten and no syscall/js, so every rule about the picture
// is tested natively with hand-made states. The wasm package only paints what this
// package computes.
//
// Contract:
//  1. All coordinates are CSS pixels of the canvas, origin top-left. The caller scales
//     them by the device pixel ratio when painting.
//  2. Compute is a pure function of the nodes and the canvas size; callers recompute it
//     when either changes and may keep it otherwise.
//  3. Message positions depend on the virtual time only (SentMs, ArriveMs and the time
//     being drawn), never on the wall clock, so a paused picture does not move.
package view
