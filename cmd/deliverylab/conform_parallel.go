package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"deliverylab/core/kafka/protocol"
	"deliverylab/core/scene"
)

// Real runs side by side (conform --parallel N): most of a real run is waiting — for a
// session to time out, a transaction to be aborted, a retry's backoff — so two clusters on
// two cores take about half the wall time of one after the other. Each worker has runners
// of its own (one per release, each keeping its own cluster from run to run) and takes
// whole groups of runs that need the same cluster, so that a kept cluster serves as many
// runs as before; the groups are dealt longest first to the worker with the least to do.

// conformOptions are the flags every worker runs with.
type conformOptions struct {
	dir, work string
	runs      int
	fresh     bool
}

// runOverhead is what a real run costs besides its scene, in the estimate that shares
// the runs among the workers: the cluster put back, the applications started, the quiet
// that ends the run (about 5 s on two cores, conformance/README.md).
const runOverhead = 5 * time.Second

// cost estimates a case's real runs: its simulated length and the overhead, per run.
func (c conformCase) cost(runs int) time.Duration {
	return time.Duration(runs) * (time.Duration(c.sim.report.EndMs)*time.Millisecond + runOverhead)
}

// shareRuns deals the runs, in order (runOrder: runs that need the same cluster one after
// another), to n workers: each group of consecutive runs with the same cluster key goes
// whole to the worker with the least estimated time so far, the costliest groups first;
// within a worker the runs keep their order.
func shareRuns(order []int, keys []string, costs []time.Duration, n int) [][]int {
	type group struct {
		runs []int
		cost time.Duration
	}
	var groups []group
	for _, i := range order {
		if last := len(groups) - 1; last >= 0 && keys[i] != "" && keys[groups[last].runs[0]] == keys[i] {
			groups[last].runs = append(groups[last].runs, i)
			groups[last].cost += costs[i]
			continue
		}
		groups = append(groups, group{runs: []int{i}, cost: costs[i]})
	}
	byCost := slices.Clone(groups)
	slices.SortStableFunc(byCost, func(a, b group) int { return int(b.cost - a.cost) })
	out := make([][]int, n)
	load := make([]time.Duration, n)
	for _, g := range byCost {
		w := slices.Index(load, slices.Min(load))
		out[w] = append(out[w], g.runs...)
		load[w] += g.cost
	}
	for w := range out {
		slices.SortStableFunc(out[w], func(a, b int) int { return slices.Index(order, a) - slices.Index(order, b) })
	}
	return out
}

// conformQueue runs one worker's cases, filling their rows and reporting each as it is
// done; it stops the worker's runners at the end. The worker's runner logs go to
// kafka-RELEASE (one worker) or kafka-RELEASE-wN.
func conformQueue(queue []int, worker, workers int, cases []conformCase, rows []conformRow, builds map[string]runnerBuild,
	opt conformOptions, done func(i int)) error {
	servers := map[string]*runnerServer{}
	defer func() {
		for _, srv := range servers {
			srv.stop()
		}
	}()
	for _, i := range queue {
		c := cases[i]
		release := c.version.Release()
		server, ok := servers[release]
		if !ok {
			logDir := filepath.Join(opt.work, "kafka-"+release)
			if workers > 1 {
				logDir += fmt.Sprintf("-w%d", worker+1)
			}
			if err := os.MkdirAll(logDir, 0o755); err != nil {
				return err
			}
			server = newRunnerServer(builds[release], opt.dir, logDir)
			servers[release] = server
		}
		runWork := filepath.Join(opt.work, c.scene.Name)
		if c.version != protocol.Kafka39 {
			runWork += "@" + c.version.String()
		}
		rows[i] = conformSimulated(c.scene, c.sim, opt.runs, runWork, func(plan scene.Plan, runDir string, fresh bool) (realResult, error) {
			return realRun(server, c.scene, plan, runDir, fresh || opt.fresh)
		})
		rows[i].Kafka = c.version.String()
		done(i)
	}
	return nil
}
