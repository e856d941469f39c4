package main

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"deliverylab/core/kafka/protocol"
	"deliverylab/core/scene"
)

// conformCase is one scene on one Kafka release: the scene as that release runs it
// (its kafka.version switched, as the page's toggle switches it), and its simulated run.
type conformCase struct {
	scene   *scene.Scene
	version protocol.Version
	sim     simulated
}

// key is the real cluster the case needs: its release, then the cluster (clusterKey).
// A case that makes no real run keeps "".
func (c conformCase) key() string {
	k := c.sim.clusterKey()
	if k == "" {
		return ""
	}
	return c.version.Release() + " " + k
}

// conformCases reads a scene and makes one case per release it is run on: every release
// its expect holds for (holds.for), or only, the one asked for; try runs the scene on
// the one asked for whether its expect holds there or not.
func conformCases(arg string, only *protocol.Version, try bool) ([]conformCase, error) {
	name, data, err := loadSceneData(arg)
	if err != nil {
		return nil, err
	}
	s, err := scene.Parse(name, data)
	if err != nil {
		return nil, err
	}
	versions := s.HoldsFor
	switch {
	case try:
		versions = []protocol.Version{*only}
	case only != nil:
		if !slices.Contains(versions, *only) {
			return nil, nil
		}
		versions = []protocol.Version{*only}
	}
	var out []conformCase
	for _, v := range versions {
		sv := s
		if v != s.KafkaVersion {
			if sv, err = scene.WithSettings(name, data, [][2]string{{scene.KafkaVersionKey, v.String()}}); err != nil {
				return nil, fmt.Errorf("%s on Kafka %s: %w", name, v, err)
			}
		}
		out = append(out, conformCase{scene: sv, version: v, sim: simulate(sv)})
	}
	return out, nil
}

// printVersionMatrix prints each scene's result on each release, one column a release:
// what holds on 3.9, on 4.x, on both.
func printVersionMatrix(w io.Writer, rows []conformRow) {
	results := map[string]map[string]string{}
	var names []string
	for _, r := range rows {
		if results[r.Scene] == nil {
			results[r.Scene] = map[string]string{}
			names = append(names, r.Scene)
		}
		results[r.Scene][r.Kafka] = r.Result
	}
	fmt.Fprintf(w, "\n%-42s", "scene")
	for _, v := range protocol.Versions {
		fmt.Fprintf(w, " %-18s", "Kafka "+v.String())
	}
	fmt.Fprintln(w)
	for _, n := range names {
		fmt.Fprintf(w, "%-42s", n)
		for _, v := range protocol.Versions {
			res := results[n][v.String()]
			if res == "" {
				res = "-"
			}
			fmt.Fprintf(w, " %-18s", res)
		}
		fmt.Fprintln(w)
	}
}

// releasesText names the releases the rows ran on: "3.9", "3.9 and 4.4".
func releasesText(rows []conformRow) string {
	var out []string
	for _, v := range protocol.Versions {
		if slices.ContainsFunc(rows, func(r conformRow) bool { return r.Kafka == v.String() }) {
			out = append(out, v.Release())
		}
	}
	return strings.Join(out, " and ")
}
