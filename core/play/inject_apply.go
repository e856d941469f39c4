package play

import "deliverylab/core/sim"

// applyTo makes the fault happen in w (the replay and the live injection share it).
func (inj injected) applyTo(w *sim.World) { w.Inject(inj.Fault) }
