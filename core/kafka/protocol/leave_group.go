package protocol

// LeaveGroupRequest is a dynamic member leaving its group at once, without waiting for
// its session to time out (AbstractCoordinator.maybeLeaveGroup: KafkaConsumer.unsubscribe,
// close, a Streams thread whose tasks migrated). The coordinator removes it and
// rebalances the others (GroupCoordinator.handleLeaveGroup).
type LeaveGroupRequest struct {
	request
	Group  string
	Member string
	Reason string
}

func (LeaveGroupRequest) Kind() string { return "LeaveGroup" }
func (m LeaveGroupRequest) Describe() string {
	return "LeaveGroup " + m.Group + " " + m.Member + " (" + m.Reason + ")"
}

// LeaveGroupResponse answers it. The member does not wait for it: leaving is a
// best-effort attempt, never retried (maybeLeaveGroup).
type LeaveGroupResponse struct {
	Err Error
}

func (LeaveGroupResponse) Kind() string       { return "LeaveGroupResponse" }
func (m LeaveGroupResponse) Describe() string { return "LeaveGroupResponse " + m.Err.OrNone() }
