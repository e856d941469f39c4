package scene

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestQuizKeysAreChecked: each key of a question is read (a verdict question offers
// all four verdicts unless told), and each kind of bad question is refused at its key.
func TestQuizKeysAreChecked(t *testing.T) {
	s, err := Parse("quiz.yaml", []byte(keysApply(t, keysBase, keysEdit{"quiz",
		"[{ask: verdict}, {ask: lost, choices: [0, 2, 1]}, {ask: verdict, choices: [none, exactly-once], why: {en: a, zh: b}}]"})))
	require.NoError(t, err)
	require.Len(t, s.Quiz, 3)
	assert.Equal(t, []string{"exactly-once", "at-least-once", "at-most-once", "none"}, s.Quiz[0].Choices)
	assert.Equal(t, QuizQuestion{Ask: "lost", Choices: []string{"0", "2", "1"}}, s.Quiz[1])
	assert.Equal(t, Text{En: "a", Zh: "b"}, s.Quiz[2].Why)
	assert.Equal(t, []string{"none", "exactly-once"}, s.Quiz[2].Choices)

	for edit, want := range map[string]string{
		"[{ask: latency}]":                                 `quiz[0].ask: expected one of verdict, delivered, lost, duplicated, acked, failed, unavailable, sent, got "latency"`,
		"[{ask: lost}]":                                    "quiz[0].choices: missing; a question about a count needs choices",
		"[{ask: lost, choices: [0]}]":                      "quiz[0].choices: expected 2 to 6 choices, got 1",
		"[{ask: lost, choices: [0, 1, 2, 3, 4, 5, 6]}]":    "quiz[0].choices: expected 2 to 6 choices, got 7",
		"[{ask: lost, choices: [0, many]}]":                `quiz[0].choices: expected whole numbers such as 0, 1 or 10, got "many"`,
		"[{ask: lost, choices: [0, \"01\"]}]":              `quiz[0].choices: expected whole numbers such as 0, 1 or 10, got "01"`,
		"[{ask: lost, choices: [1, 1]}]":                   `quiz[0].choices: "1" is offered twice`,
		"[{ask: verdict, choices: [exactly-once, maybe]}]": `quiz[0].choices: expected verdicts (exactly-once, at-least-once, at-most-once, none), got "maybe"`,
		"[{ask: verdict, why: {en: a}}]":                   "quiz[0].why: expected both en and zh text",
		"[{ask: verdict, hint: a}]":                        "quiz[0].zz",
		"[{ask: verdict}, {ask: verdict}, {ask: verdict}, {ask: verdict}, {ask: verdict}, {ask: verdict}]": "quiz[5]: a quiz may have at most 5 questions",
	} {
		_, err := Parse("bad.yaml", []byte(keysApply(t, keysBase, keysEdit{"quiz", edit})))
		require.Error(t, err, edit)
		if want == "quiz[0].zz" {
			assert.Contains(t, err.Error(), "quiz[0].hint", edit) // an unknown key, named
			continue
		}
		assert.Contains(t, err.Error(), want, edit)
		var se *Error
		require.ErrorAs(t, err, &se)
		assert.Greater(t, se.Line, 0, edit)
	}
}

// TestQuizIsAnsweredByTheRun: the answers are the run's own verdict and counts for the
// scene's output, and check reports a question whose answer is not offered.
func TestQuizIsAnsweredByTheRun(t *testing.T) {
	s, err := Parse("quiz.yaml", []byte(keysApply(t, keysBase,
		keysEdit{"expect", "{output: c1}"},
		keysEdit{"quiz", "[{ask: verdict}, {ask: delivered, choices: [0, 1]}, {ask: sent, choices: [0, 1]}]"})))
	require.NoError(t, err)
	r := s.NewRun()
	r.ToEnd()
	rep := r.Judge()
	require.Greater(t, rep.Messages["delivered"], 1)
	assert.Equal(t, rep.Verdict, s.Quiz[0].Answer(rep))
	assert.Equal(t, []string{
		"quiz[1] (delivered): the run's answer " + s.Quiz[1].Answer(rep) + " is not among the choices 0, 1",
		"quiz[2] (sent): the run's answer " + s.Quiz[2].Answer(rep) + " is not among the choices 0, 1",
	}, s.QuizProblems(rep))
}
