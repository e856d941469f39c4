package main

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// The workers get whole groups of runs that need the same cluster, the costliest first
// to the least loaded, each keeping the runs in their order; one worker runs them all in
// the order given.
func TestShareRunsKeepsClustersWholeAndBalances(t *testing.T) {
	keys := []string{"a", "a", "b", "c", "c", "c", "", ""}
	s := time.Second
	costs := []time.Duration{10 * s, 10 * s, 50 * s, 5 * s, 5 * s, 5 * s, 1 * s, 1 * s}
	order := runOrder(keys)
	assert.Equal(t, [][]int{order}, shareRuns(order, keys, costs, 1))

	two := shareRuns(order, keys, costs, 2)
	assert.Equal(t, []int{2}, two[0], "b, the costliest, alone")
	assert.Equal(t, []int{0, 1, 3, 4, 5, 6, 7}, two[1], "a and c whole, in order, and the runs without a cluster")
}
