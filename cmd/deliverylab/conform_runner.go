package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"deliverylab/core/scene"
)

// runnerServer is the Java runner serving run after run (Main.java's serve): one JVM for
// the whole make conformance, which keeps a real cluster up from one run to the next
// when they need the same one (Stage.java) instead of starting a controller and brokers
// for each. It is started at the first run and again after it died.
type runnerServer struct {
	build runnerBuild
	dir   string // the conformance module
	log   string // where the runner's own output goes
	cmd   *exec.Cmd
	in    io.WriteCloser
	out   *bufio.Scanner
}

func newRunnerServer(build runnerBuild, dir, work string) *runnerServer {
	return &runnerServer{build: build, dir: dir, log: filepath.Join(work, "runner.log")}
}

func (r *runnerServer) start() error {
	log, err := os.OpenFile(r.log, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	cmd := exec.Command("java", r.build.args(r.dir, "deliverylab.conformance.Main", "serve")...)
	cmd.Stderr = log
	in, err := cmd.StdinPipe()
	if err != nil {
		log.Close()
		return err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		log.Close()
		return err
	}
	if err := cmd.Start(); err != nil {
		log.Close()
		return fmt.Errorf("starting the runner: %w", err)
	}
	log.Close() // the child has its own descriptor
	r.cmd, r.in, r.out = cmd, in, bufio.NewScanner(out)
	return nil
}

// run asks for one run of the plan in planFile, its files kept in runDir: on a fresh
// cluster, or on the one kept from the last run when the plan needs the same.
func (r *runnerServer) run(planFile, runDir string, fresh bool) error {
	if r.cmd == nil {
		if err := r.start(); err != nil {
			return err
		}
	}
	verb := "run"
	if fresh {
		verb = "fresh"
	}
	if _, err := fmt.Fprintf(r.in, "%s %s %s\n", verb, planFile, runDir); err != nil {
		r.stop()
		return fmt.Errorf("the runner is gone: %w (see %s)", err, r.log)
	}
	if !r.out.Scan() {
		r.stop()
		return fmt.Errorf("the runner ended without an answer (see %s)", r.log)
	}
	answer := r.out.Text()
	if strings.HasPrefix(answer, "ok ") {
		return nil
	}
	return fmt.Errorf("the runner failed: %s", strings.TrimPrefix(answer, "failed "))
}

// stop ends the runner (closing its input ends its loop, which stops the cluster it kept).
func (r *runnerServer) stop() {
	if r.cmd == nil {
		return
	}
	r.in.Close()
	_ = r.cmd.Wait()
	r.cmd = nil
}

// writePlan writes a run's plan where the runner reads it.
func writePlan(plan scene.Plan, runDir string) (string, error) {
	if err := os.RemoveAll(runDir); err != nil {
		return "", err
	}
	if err := os.MkdirAll(runDir, 0o755); err != nil {
		return "", err
	}
	planFile := filepath.Join(runDir, "plan.json")
	data, _ := json.MarshalIndent(plan, "", "  ")
	return planFile, os.WriteFile(planFile, data, 0o644)
}

// clusterKey is what a scene's real cluster is: its brokers, their settings and the
// placement of the internal topics, as Stage.key has it. Scenes with the same key run
// one after another, on one kept cluster.
func clusterKey(plan scene.Plan) string {
	var b strings.Builder
	fmt.Fprint(&b, plan.Brokers)
	for _, k := range slices.Sorted(maps.Keys(plan.BrokerProperties)) {
		fmt.Fprintf(&b, " %s=%s", k, plan.BrokerProperties[k])
	}
	for _, p := range plan.Partitions {
		if strings.HasPrefix(p.Topic, "__") {
			fmt.Fprintf(&b, " %s-%d%v", p.Topic, p.Partition, p.Replicas)
		}
	}
	return b.String()
}

// runOrder is the order to run the scenes in: grouped by cluster, each group where its
// first scene was, scenes in a group in their given order. keys[i] is scene i's cluster
// ("" for a scene that makes no real run: it stays where it is).
func runOrder(keys []string) []int {
	first := map[string]int{}
	for i, k := range keys {
		if _, seen := first[k]; !seen && k != "" {
			first[k] = i
		}
	}
	order := make([]int, len(keys))
	for i := range order {
		order[i] = i
	}
	place := func(i int) int {
		if keys[i] == "" {
			return i
		}
		return first[keys[i]]
	}
	slices.SortStableFunc(order, func(a, b int) int { return place(a) - place(b) })
	return order
}
