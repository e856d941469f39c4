package scene

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// QuizQuestion is one question a scene asks before it runs (quiz:): what the run will
// show, the choices offered, and what explains the answer. The answer itself is never
// written in the scene: it is what the run reports (Answer), so it cannot disagree with
// the run, and a user's faults change it as they change the run.
type QuizQuestion struct {
	Ask     string   // "verdict", or a count: delivered, lost, duplicated, acked, failed, unavailable, sent
	Choices []string // verdict names, or whole numbers as the page shows them
	// Why explains the answer; empty, the page shows the last caption the run reached.
	Why Text
}

// QuizVerdict is the question about the verdict; the others ask for counts.
const QuizVerdict = "verdict"

// Bounds of a quiz (scenes/README.md, Input: strict and bounded).
const (
	MaxQuizQuestions = 5
	MaxQuizChoices   = 6
)

var verdictNames = []string{"exactly-once", "at-least-once", "at-most-once", "none"}

// QuizAsks lists what a question may ask.
func QuizAsks() []string { return append([]string{QuizVerdict}, countKeys...) }

// Answer is the question's answer in a run's report: its verdict, or the count of the
// scene's output.
func (q QuizQuestion) Answer(rep Report) string {
	if q.Ask == QuizVerdict {
		return rep.Verdict
	}
	return strconv.Itoa(rep.Messages[q.Ask])
}

// QuizProblems says which questions the run cannot answer from their choices (a quiz
// whose right answer is not offered); `deliverylab check` reports them with the
// expectations' (a run with the user's faults may of course answer otherwise).
func (s *Scene) QuizProblems(rep Report) []string {
	var bad []string
	for i, q := range s.Quiz {
		if a := q.Answer(rep); !slices.Contains(q.Choices, a) {
			bad = append(bad, fmt.Sprintf("quiz[%d] (%s): the run's answer %s is not among the choices %s", i, q.Ask, a, strings.Join(q.Choices, ", ")))
		}
	}
	return bad
}

func (p *parser) quiz(s *Scene, f field) {
	for i, n := range p.list(f, "") {
		path := fmt.Sprintf("quiz[%d]", i)
		if i == MaxQuizQuestions {
			p.fail(n, path, "a quiz may have at most %d questions", MaxQuizQuestions)
			return
		}
		m := p.mapping(n, path, "ask", "choices", "why")
		q := QuizQuestion{Ask: p.str(m["ask"], path)}
		if p.err != nil {
			return
		}
		if !slices.Contains(QuizAsks(), q.Ask) {
			p.fail(n, path+".ask", "expected one of %s, got %q", strings.Join(QuizAsks(), ", "), q.Ask)
			return
		}
		if w, ok := m["why"]; ok {
			q.Why = p.text(w, path)
		}
		q.Choices = p.quizChoices(q.Ask, m["choices"], n, path)
		s.Quiz = append(s.Quiz, q)
	}
}

// quizChoices reads a question's choices: verdict names (all four when left out), or
// at least two whole numbers, each once.
func (p *parser) quizChoices(ask string, f field, question *yaml.Node, path string) []string {
	path += ".choices"
	if f.value == nil {
		if ask == QuizVerdict {
			return slices.Clone(verdictNames)
		}
		p.fail(question, path, "missing; a question about a count needs choices, e.g. [0, 1, 2]")
		return nil
	}
	choices := p.strings(f, "")
	if p.err != nil {
		return nil
	}
	if len(choices) < 2 || len(choices) > MaxQuizChoices {
		p.fail(f.value, path, "expected 2 to %d choices, got %d", MaxQuizChoices, len(choices))
		return nil
	}
	seen := map[string]bool{}
	for _, c := range choices {
		switch {
		case ask == QuizVerdict && !slices.Contains(verdictNames, c):
			p.fail(f.value, path, "expected verdicts (%s), got %q", strings.Join(verdictNames, ", "), c)
		case ask != QuizVerdict && !isWholeNumber(c):
			p.fail(f.value, path, "expected whole numbers such as 0, 1 or 10, got %q", c)
		case seen[c]:
			p.fail(f.value, path, "%q is offered twice", c)
		}
		if p.err != nil {
			return nil
		}
		seen[c] = true
	}
	return choices
}

func isWholeNumber(s string) bool {
	n, err := strconv.Atoi(s)
	return err == nil && n >= 0 && strconv.Itoa(n) == s
}
