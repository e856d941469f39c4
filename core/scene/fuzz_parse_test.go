package scene

import (
	"errors"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"deliverylab/scenes"
)

// fuzzParseSeeds are the texts FuzzParseScene starts from: every shipped scene, the
// small scenes of the tests, every refusal of parse_strict_test.go, and odd shapes.
func fuzzParseSeeds() []string {
	out := []string{parseGood, keysBase}
	for _, name := range scenes.Names() {
		if data, err := scenes.Read(name); err == nil {
			out = append(out, string(data))
		}
	}
	for _, c := range strictCases() {
		out = append(out, c.text)
	}
	return append(out,
		"", ":", "[", "{{", "- - -", "~", "null", "42", "cluster: 1", "apps: []", "cluster:\napps:\n",
		"cluster: {brokers: 0}\napps: []", "cluster: {brokers: 99999999999999999999}", "\x00", "\t",
		"a: &x [*x]", "cluster: &c {brokers: 1}\nbase: *c", "<<: {cluster: 1}", "a: 1\r\nb: [\r\n", "a: 1\u2028b: *x",
		parseGood+"faults: [{}]", parseGood+"faults: [{at.ms: 1}]", parseGood+"faults: [{crash: [p1]}]",
		parseGood+"faults: [{at.ms: 1, partition: [broker-1]}]", parseGood+"faults: [{at.ms: 1, heal: {all: 1}}]",
		parseGood+"faults: [{when: {}, drop: response}]", parseGood+"faults: [{when: 1, crash: p1}]",
		parseGood+"narration: [{when: {event: acked, message: \"#\"}, en: a, zh: b}]",
		parseGood+"expect: {lost: \">=\", errors: [1]}", parseGood+"network: {links: [{between: [p1]}]}",
		parseGood+"network: {links: [~]}", parseGood+"network: {links: [{between: x}]}", "colour: 1\nnetwork: {links: [{between: [a]}]}",
		parseGood+"sinks: [{kind: table}]", parseGood+"---\nsecond: document",
		strings.Replace(parseGood, "send: {topic: orders, count: 3}", "send: {topic: orders, key: \"{n\"}", 1),
		strings.Replace(parseGood, "- producer: p1", "- {}", 1),
		strings.Replace(parseGood, "- producer: p1", "- [producer]", 1),
	)
}

// fuzzSteps is how far an accepted scene is run: enough to boot every node and send
// the first requests, not to the end (how a run ends is the kernel's business).
const fuzzSteps = 300

// FuzzParseScene: Parse never panics and returns a scene or an error, never both nor
// neither; an error is an *Error at a line of the file, one bounded line; a scene parses
// again to the same scene, and its run builds and takes its first steps. Plain `go
// test` runs the seeds; `make fuzz-short` fuzzes for a while.
func FuzzParseScene(f *testing.F) {
	for _, s := range fuzzParseSeeds() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		s, err := Parse("fuzz.yaml", []byte(text))
		if (s == nil) == (err == nil) {
			t.Fatalf("Parse returned scene %v and error %v: exactly one of them must be nil", s != nil, err)
		}
		if err != nil {
			checkFuzzError(t, text, err)
			return
		}
		again, err := Parse("fuzz.yaml", []byte(text))
		if err != nil || !reflect.DeepEqual(s, again) {
			t.Fatalf("the scene does not parse again to the same scene (error %v)", err)
		}
		r := s.NewRun()
		for i := 0; i < fuzzSteps && r.Step(); i++ {
		}
	})
}

func checkFuzzError(t *testing.T, text string, err error) {
	t.Helper()
	var perr *Error
	if !errors.As(err, &perr) {
		t.Fatalf("error %v (%T) is not a *scene.Error", err, err)
	}
	lines := len(lineStarts([]byte(text)))
	if perr.Line < 1 || perr.Line > lines {
		t.Fatalf("error at line %d of a file of %d lines: %v", perr.Line, lines, err)
	}
	if perr.File != "fuzz.yaml" || perr.Msg == "" {
		t.Fatalf("error without its file or its message: %q", err.Error())
	}
	if !strings.HasPrefix(err.Error(), "fuzz.yaml:"+strconv.Itoa(perr.Line)+": ") {
		t.Fatalf("error does not start with file:line: %q", err.Error())
	}
	if n := utf8.RuneCountInString(err.Error()); n > msgRunes+keyRunes+50 {
		t.Fatalf("error of %d runes: %.200q", n, err.Error())
	}
}
