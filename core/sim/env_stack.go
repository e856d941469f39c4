package sim

// envStack keeps the Envs of the handlers running now, innermost last, for reuse: every
// event hands its node an Env, and a new one each time was a sixth of what a run
// allocated. Handlers nest (a handler's observation triggers a fault that restarts a
// node, whose Start runs inside it), so each depth has its own Env. A node must not
// keep its Env past the call it was given for, which it never needs: what it sends
// later it sends from a later event's Env.
type envStack struct {
	envs  []*Env
	depth int
}

// enter gives the Env for a handler of node s (at port, whose id in World.ports is
// portID, or unknownPort) that starts now.
func (w *World) enter(s *nodeSlot, port string, portID int32) *Env {
	st := &w.envs
	if st.depth == len(st.envs) {
		st.envs = append(st.envs, new(Env))
	}
	env := st.envs[st.depth]
	st.depth++
	*env = Env{w: w, s: s, port: port, portID: portID, incarnation: s.incarnation}
	return env
}

// leave ends the handler that enter began: its node's state is wiped again if a fault
// it triggered crashed it (settleCrash), and its Env is free for the next.
func (w *World) leave(s *nodeSlot, env *Env) {
	w.settleCrash(s, env)
	w.envs.depth--
}
