package scene

import (
	"deliverylab/core/apps"
	"deliverylab/core/kafka"
	"deliverylab/core/sim"
)

// Run is one run of a scene.
type Run struct {
	Scene   *Scene
	World   *sim.World
	Ended   bool
	EndNote string // settled | stop.ms | time limit
}

// NewRun builds the scene's world.
func (s *Scene) NewRun() *Run { return &Run{Scene: s, World: s.Build()} }

// limitMs is when the run stops at the latest.
func (r *Run) limitMs() int64 {
	if r.Scene.StopMs > 0 {
		return r.Scene.StopMs
	}
	return MaxRunMs
}

// AdvanceTo runs events up to virtual time ms, stopping early when the run ends.
func (r *Run) AdvanceTo(ms int64) { r.AdvanceUntil(ms, nil) }

// AdvanceUntil is AdvanceTo that also stops right after an event that makes pause true;
// it reports whether it stopped there.
func (r *Run) AdvanceUntil(ms int64, pause func(*sim.World) bool) bool {
	if r.Ended {
		return false
	}
	limit := r.limitMs()
	paused := false
	r.World.RunUntil(min(ms, limit), func(w *sim.World) bool {
		// Settling is judged once all events of a millisecond have run: cheaper than
		// after every event, and a run never ends half way through an instant.
		if w.NextEventMs() != w.NowMs() && r.checkSettled() {
			return true
		}
		paused = pause != nil && pause(w)
		return paused
	})
	if !r.Ended && !paused && r.World.NowMs() >= limit {
		r.end(limitNote(r.Scene))
	}
	return paused
}

func limitNote(s *Scene) string {
	if s.StopMs > 0 {
		return "stop.ms"
	}
	return "time limit"
}

// Step runs one event; it returns false when the run has ended.
func (r *Run) Step() bool {
	if r.Ended {
		return false
	}
	next := r.World.NextEventMs()
	if next < 0 || next > r.limitMs() {
		r.AdvanceTo(r.limitMs())
		return false
	}
	r.World.Step()
	if r.World.NextEventMs() != r.World.NowMs() {
		r.checkSettled()
	}
	return !r.Ended
}

// ToEnd runs until the run settles or reaches its limit.
func (r *Run) ToEnd() { r.AdvanceTo(r.limitMs()) }

func (r *Run) end(note string) {
	r.Ended = true
	r.EndNote = note
}

func (r *Run) checkSettled() bool {
	if r.Scene.StopMs == 0 && r.Settled() {
		r.end("settled")
	}
	return r.Ended
}

// Settled reports whether nothing the scene cares about can still happen
// (SCENE-FORMAT.md, When a run ends): background traffic does not count.
func (r *Run) Settled() bool {
	w := r.World
	if w.PendingFaults() {
		return false
	}
	if w.AnyInFlight(isProduce) {
		return false // records on their way to a leader (acks=0 does not wait for them)
	}
	ctrl := r.controller()
	for _, b := range r.Scene.brokerNames() {
		if !r.up(b) && !ctrl.Fenced(b) {
			return false // the controller will still fence it and move its leaderships
		}
		if r.up(b) && ctrl.Fenced(b) && w.Reachable(b, kafka.ControllerName) {
			return false // a restarted broker is still registering
		}
	}
	for _, tp := range ctrl.TPs() {
		if !r.partitionSettled(ctrl, tp) {
			return false
		}
	}
	for _, p := range r.Scene.Producers {
		if n, up := w.Node(p.Name); up && !n.(*apps.Producer).Done() {
			return false
		}
	}
	for _, c := range r.Scene.Consumers {
		if !r.consumerSettled(c.Name) || r.takeoverPending(c) {
			return false
		}
	}
	return true
}

// takeoverPending reports whether the group of a consumer still has a rebalance ahead
// that a live member will take part in: a down member whose session has not timed out
// yet (R20), or a rebalance in progress.
func (r *Run) takeoverPending(c ConsumerSpec) bool {
	livePeer := false
	for _, o := range r.Scene.Consumers {
		if o.Group == c.Group && r.up(o.Name) {
			livePeer = true
		}
	}
	st, ok := r.controller().Partition(kafka.TP{Topic: kafka.OffsetsTopic})
	if !livePeer || !ok || st.Leader == "" || !r.up(st.Leader) {
		return false
	}
	n, _ := r.World.Node(st.Leader)
	members, rebalancing := n.(*kafka.Broker).Group(c.Group)
	return rebalancing || (!r.up(c.Name) && contains(members, c.Name))
}

func (r *Run) consumerSettled(name string) bool {
	n, up := r.World.Node(name)
	if !up {
		return true
	}
	app := n.(*apps.Consumer)
	cl := app.Client()
	if cl.Failed() {
		return true // gave up: nothing more will happen
	}
	if !cl.Stable() {
		// Joining can finish only if the group's coordinator partition has a leader.
		st, ok := r.controller().Partition(kafka.TP{Topic: kafka.OffsetsTopic})
		return !ok || st.Leader == "" || !r.up(st.Leader)
	}
	if !app.Idle() || cl.Buffered() > 0 {
		return false
	}
	for _, tp := range cl.Assigned() {
		if hw, ok := r.readableEnd(tp); ok && cl.Position(tp) < hw {
			return false
		}
	}
	return true
}

// readableEnd is the HW of a partition's live leader.
func (r *Run) readableEnd(tp kafka.TP) (int64, bool) {
	st, ok := r.controller().Partition(tp)
	if !ok || st.Leader == "" || !r.up(st.Leader) {
		return 0, false
	}
	n, _ := r.World.Node(st.Leader)
	rep := n.(*kafka.Broker).Replica(tp)
	if rep == nil {
		return 0, false
	}
	return rep.HW, true
}

func (r *Run) up(name string) bool {
	_, up := r.World.Node(name)
	return up
}

func (r *Run) controller() *kafka.Controller {
	n, _ := r.World.Node(kafka.ControllerName)
	return n.(*kafka.Controller)
}

// partitionSettled reports whether a partition's leader has caught up with the
// controller's decision and its high watermark can no longer move.
func (r *Run) partitionSettled(ctrl *kafka.Controller, tp kafka.TP) bool {
	st, _ := ctrl.Partition(tp)
	if st.Leader == "" || !r.up(st.Leader) {
		return true
	}
	n, _ := r.World.Node(st.Leader)
	br := n.(*kafka.Broker)
	seen, ok := br.Meta(tp)
	if !ok || seen.LeaderEpoch != st.LeaderEpoch || seen.PartitionEpoch != st.PartitionEpoch {
		return false // the leader has not heard of the latest election or ISR change yet
	}
	rep := br.Replica(tp)
	for _, f := range st.Replicas {
		if f != st.Leader && r.up(f) && r.World.Reachable(f, st.Leader) && r.diverges(f, tp, rep) {
			return false // a follower still holds records the leader does not: it will truncate
		}
	}
	minISR := min(r.Scene.BrokerCfg.MinInsyncReplicas, len(st.Replicas))
	// With others in the ISR the HW still moves: they catch up or are shrunk out.
	return rep.HW >= rep.LEO() || len(st.ISR) <= 1 || len(st.ISR) < minISR
}

// diverges reports whether a follower's log has a record the leader's log does not.
func (r *Run) diverges(follower string, tp kafka.TP, leader *kafka.Replica) bool {
	n, _ := r.World.Node(follower)
	rep := n.(*kafka.Broker).Replica(tp)
	if rep == nil {
		return false
	}
	if rep.LEO() > leader.LEO() {
		return true
	}
	for i, rec := range rep.Log {
		if leader.Log[i].Epoch != rec.Epoch {
			return true
		}
	}
	return false
}

func isProduce(m sim.Message) bool {
	_, ok := m.Payload.(kafka.ProduceRequest)
	return ok
}
