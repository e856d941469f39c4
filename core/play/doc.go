// Package play is an interactive session around a scene run: play, pause, step, seek and
// inject faults, and a snapshot (State) for the front end to draw. It is pure Go, so the
// browser's behaviour is tested natively and under WebAssembly.
//
// Rewind is a re-run: SeekTo rebuilds the world from the scene and replays the faults the
// user injected, each at the exact event count where it was injected, so the replayed
// run is the same run, byte for byte.
package play
