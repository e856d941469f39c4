package apps

import "fmt"

// DefaultCommitPolicy is the policy of a consumer application that names none: Kafka's
// auto-commit inside poll when enable.auto.commit is true (Kafka's default), else a
// commitSync after the batch is processed.
func DefaultCommitPolicy(enableAutoCommit bool) CommitPolicy {
	if enableAutoCommit {
		return CommitAuto
	}
	return CommitAfterProcessing
}

// Check says whether a consumer application can run the policy with its consumer's
// enable.auto.commit: auto commits only through the consumer's auto-commit, and every
// other policy commits (or not) by itself, so the consumer must not auto-commit too.
func (c CommitPolicy) Check(enableAutoCommit bool) error {
	switch c {
	case CommitAuto:
		if !enableAutoCommit {
			return fmt.Errorf("auto requires enable.auto.commit: true")
		}
	case CommitBeforeProcessing, CommitAfterProcessing, CommitNone, CommitWithResults:
		if enableAutoCommit {
			return fmt.Errorf("%s requires enable.auto.commit: false (Kafka's default is true)", c)
		}
	default:
		return fmt.Errorf("expected auto, before-processing, after-processing, with-results or none, got %q", string(c))
	}
	return nil
}
