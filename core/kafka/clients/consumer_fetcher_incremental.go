package clients

import (
	"slices"

	"deliverylab/core/kafka/protocol"
)

// Incremental changes of the assignment, as the KIP-848 member makes them
// (AbstractMembershipManager.revokeAndAssign on SubscriptionState): the partitions it
// keeps keep their positions, what was fetched for them and their fetches in flight; the
// ones it gives up go with all of it; the ones it gets start without a position, which
// their committed offset (or auto.offset.reset) gives them. A classic member never calls
// these: it gives everything up and takes a whole new assignment (revoke, assign).

// release gives up some partitions, with their positions and what was fetched for them:
// Poll returns nothing more of them from now on (markPendingRevocation).
func (f *fetcher) release(tps []protocol.TP) {
	if len(tps) == 0 {
		return
	}
	f.assigned = slices.DeleteFunc(slices.Clone(f.assigned), func(tp protocol.TP) bool { return slices.Contains(tps, tp) })
	for _, tp := range tps {
		f.dropPosition(tp)
		delete(f.fetchedFrom, tp)
	}
}

// dropPosition forgets where the fetcher is in a partition and what it fetched there;
// an answer in flight is no longer awaited.
func (f *fetcher) dropPosition(tp protocol.TP) {
	delete(f.positions, tp)
	delete(f.buffer, tp)
	delete(f.fetching, tp)
	delete(f.offsetEpochs, tp)
}

// add takes new partitions, without positions yet; the assignment stays sorted.
func (f *fetcher) add(tps []protocol.TP) {
	if len(tps) == 0 {
		return
	}
	f.assigned = append(slices.Clone(f.assigned), tps...)
	protocol.SortTPs(f.assigned)
}
