package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

// runnerBuild is one build of the Java runner: the Kafka release its cluster and
// applications run, the Maven module that builds it against that release's jars, and
// where the jar and its class path go. The sources are one (conformance/src/main), with
// the few classes that differ between Kafka versions in src/kafka-3.9 or src/kafka-4.
type runnerBuild struct {
	kafka  string // the release, as kafka-storage's --release-version names it
	pom    string // the module, relative to the conformance directory
	target string // its output, relative to the conformance directory
	jar    string // in target
}

// runnerBuilds are the Kafka releases the runner runs: 3.9, the playground's reference,
// and the Kafka 4 release of issue 24 (kafka-4/pom.xml says which jars).
var runnerBuilds = []runnerBuild{
	{kafka: "3.9", pom: "pom.xml", target: "target", jar: "conformance-1.jar"},
	{kafka: "4.4", pom: filepath.Join("kafka-4", "pom.xml"), target: filepath.Join("target", "kafka-4"), jar: "conformance-kafka-4-1.jar"},
}

// runnerFor is the build of a Kafka release.
func runnerFor(kafka string) (runnerBuild, error) {
	for _, b := range runnerBuilds {
		if b.kafka == kafka {
			return b, nil
		}
	}
	var known []string
	for _, b := range runnerBuilds {
		known = append(known, b.kafka)
	}
	return runnerBuild{}, fmt.Errorf("--kafka %q: the runner runs Kafka %s", kafka, strings.Join(known, " or "))
}

// build builds the runner with Maven unless it is built and newer than its sources.
func (b runnerBuild) build(dir string, stderr io.Writer) error {
	if _, err := exec.LookPath("java"); err != nil {
		return errors.New("no java on PATH: the conformance suite needs a JDK 17 and Maven")
	}
	if fresh(b.jarPath(dir), dir) {
		return nil
	}
	if _, err := exec.LookPath("mvn"); err != nil {
		return errors.New("no mvn on PATH: the conformance suite is built with Maven")
	}
	cmd := exec.Command("mvn", "-q", "-B", "-f", filepath.Join(dir, b.pom), "package", "-DskipTests")
	cmd.Stdout, cmd.Stderr = stderr, stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("building the Java runner for Kafka %s: %w", b.kafka, err)
	}
	return nil
}

// fresh reports whether built exists and is newer than every source file of the module.
func fresh(built, dir string) bool {
	bi, err := os.Stat(built)
	if err != nil {
		return false
	}
	newer := false
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.IsDir() && d.Name() == "target":
			return filepath.SkipDir
		case d.IsDir():
			return nil
		}
		if info, err := d.Info(); err == nil && info.ModTime().After(bi.ModTime()) {
			newer = true
		}
		return nil
	})
	return !newer
}

// jarPath is the runner as Maven packages it. The JVMs run it from the jar, not from
// target/classes: class-data sharing archives only classes that come from jars.
func (b runnerBuild) jarPath(dir string) string { return filepath.Join(dir, b.target, b.jar) }

// args is java's command line for one of the runner's entry points: its class path (the
// jar and the Kafka release's jars, which the brokers, the controller and the
// applications it starts run from too), and where the class-data sharing archives of the
// JVMs it starts are kept (ClassArchives.java: each kind of JVM starts about twice as fast
// from one; an archive is kept per class path).
func (b runnerBuild) args(dir string, mainAndArgs ...string) []string {
	// Absolute: an archive names the class path it was made from, and a JVM started from
	// another directory must find the same files.
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	cp := b.jarPath(dir) + string(os.PathListSeparator) + filepath.Join(dir, b.target, "lib", "*")
	// Each release keeps its class-data archives apart (target/cds, target/kafka-4/cds): an
	// archive is valid for one set of jars, so with one directory for both a 4.4 run after
	// a 3.9 one found every archive stale, started its JVMs without one and wrote them
	// all again, and the next 3.9 run did the same.
	return slices.Concat([]string{"-cp", cp, "-Ddeliverylab.cds=" + filepath.Join(dir, b.target, "cds")}, mainAndArgs)
}
