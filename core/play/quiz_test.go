package play

import (
	"testing"

	"deliverylab/core/scene"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestQuizIsAskedThenAnsweredByTheRun: before the run the page gets each question in
// both languages with its choices and no answer; at the end, the run's answer with the
// question's own explanation, or the last caption reached; a fault that changes the run
// changes the answer.
func TestQuizIsAskedThenAnsweredByTheRun(t *testing.T) {
	s, err := Load("idempotent-retry")
	require.NoError(t, err)
	q := s.State().Quiz
	require.Len(t, q, 2)
	assert.Equal(t, "verdict", q[0].Ask)
	assert.Equal(t, []string{"exactly-once", "at-least-once", "at-most-once", "none"}, q[0].Choices)
	assert.Contains(t, q[0].Question.En, "db")
	assert.Contains(t, q[0].Question.Zh, "db")
	assert.Equal(t, []string{"0", "1", "2"}, q[1].Choices)
	for _, item := range q {
		assert.Empty(t, item.Answer, "nothing is answered before the end")
		assert.Empty(t, item.Why.En)
	}

	s.RunToEnd()
	st := s.State()
	require.True(t, st.Ended)
	q = st.Quiz
	assert.Equal(t, "exactly-once", q[0].Answer)
	assert.Equal(t, st.Ledger.Verdict, q[0].Answer)
	last := st.Captions[len(st.Captions)-1]
	assert.Equal(t, Text{En: last.En, Zh: last.Zh}, q[0].Why, "no why of its own: the last caption")
	assert.Equal(t, "0", q[1].Answer)
	assert.Contains(t, q[1].Why.En, "sequence numbers", "its own why")
	assert.NotEmpty(t, q[1].Why.Zh)

	// a crash of the producer's leader changes the run, and so the answer
	s2, err := Load("retry-duplicate")
	require.NoError(t, err)
	s2.RunToEnd()
	assert.Equal(t, "1", s2.State().Quiz[1].Answer)
	s3, err := Load("retry-duplicate")
	require.NoError(t, err)
	require.NoError(t, s3.Inject(`{"crash": "p1"}`))
	s3.RunToEnd()
	assert.NotEqual(t, s2.State().Ledger.Counts, s3.State().Ledger.Counts, "the fault changed the run")
	assert.Equal(t, s3.State().Ledger.Verdict, s3.State().Quiz[0].Answer)
}

// TestEveryQuizQuestionIsWorded: each thing a question may ask has its own words in both
// languages, naming the output where it is about one.
func TestEveryQuizQuestionIsWorded(t *testing.T) {
	seen := map[string]bool{}
	for _, ask := range scene.QuizAsks() {
		code, ok := quizQuestions[ask]
		require.True(t, ok, "no words for %s", ask)
		q := say(code, "output", "db")
		assert.NotEmpty(t, q.En)
		assert.NotEmpty(t, q.Zh)
		assert.NotContains(t, q.En+q.Zh, "{", "every argument filled")
		assert.False(t, seen[q.En], "each question its own words: %s", q.En)
		seen[q.En] = true
	}
	assert.Contains(t, say(quizQuestions["lost"], "output", "db").Zh, "db")
}
