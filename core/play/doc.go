// Package play is an interactive session around a scene run: play, pause, step, step
// back, seek and inject faults, change the scene's key settings, share the run as a link,
// and a snapshot (State) for the front end to draw. It is pure Go, so the browser's
// behaviour is tested natively and under WebAssembly.
//
// Rewind is a re-run: SeekTo and StepBack rebuild the world from the scene and replay
// the faults the user injected, each at the exact event count where it was injected, so
// the replayed run is the same run, byte for byte. The faults after the new time are
// kept and happen again when time passes them; a fault injected before them starts a new
// branch and discards them. A run with a changed setting or seed replays them by time.
package play
