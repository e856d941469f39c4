package browsertest

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Predict, then run, as a learner does it with the mouse: the quiz asks before the run,
// takes a pick for each question, locks them when Play is pressed, and at the end shows
// the run's answers beside the picks (one right, one wrong here), with the score; in
// Chinese too; Restart asks again.
func TestQuizAsksAcceptsAnAnswerAndReveals(t *testing.T) {
	p := openEn(t)
	p.call(`load("idempotent-retry")`)
	p.waitJS(10*time.Second, `!document.getElementById("quiz").hidden && document.querySelectorAll("#quiz-list .quiz-q").length === 2`)
	assert.Equal(t, "Predict, then run", eval[string](p, `document.getElementById("quiz-h").textContent`))
	assert.Equal(t, "Pick your answers, then press Play.", eval[string](p, `document.getElementById("quiz-note").textContent`))
	assert.Contains(t, eval[string](p, `document.querySelector('.quiz-q[data-ask="verdict"] .quiz-question').textContent`), "verdict")

	verdictChoice := `.quiz-q[data-ask="verdict"] .quiz-choice[data-choice="exactly-once"]`
	dupChoice := `.quiz-q[data-ask="duplicated"] .quiz-choice[data-choice="1"]`
	require.NoError(t, clickSelector(p, verdictChoice))
	require.NoError(t, clickSelector(p, dupChoice))
	p.waitJS(5*time.Second, `document.querySelector('`+dupChoice+`').getAttribute("aria-pressed") === "true"`)
	assert.Equal(t, "true", eval[string](p, `document.querySelector('`+verdictChoice+`').getAttribute("aria-pressed")`))

	require.NoError(t, clickSelector(p, "#play"))
	p.waitJS(10*time.Second, `document.querySelector('`+verdictChoice+`').disabled`)
	assert.Contains(t, eval[string](p, `document.getElementById("quiz-note").textContent`), "locked")
	assert.Empty(t, eval[int](p, `document.querySelectorAll(".quiz-answer").length`), "nothing revealed while it plays")

	require.NoError(t, clickSelector(p, "#run-end"))
	p.waitJS(20*time.Second, `document.querySelectorAll(".quiz-answer").length === 2`)
	answers := eval[[]string](p, `[...document.querySelectorAll(".quiz-answer")].map(a => a.className + "|" + a.textContent)`)
	assert.Equal(t, "quiz-answer right|The run: exactly-once · you were right", answers[0])
	assert.Equal(t, "quiz-answer wrong|The run: 0 · you said 1", answers[1])
	assert.Equal(t, "1 of 2 right. Restart to try again.", eval[string](p, `document.getElementById("quiz-note").textContent`))
	assert.True(t, eval[bool](p, `document.querySelector('.quiz-q[data-ask="duplicated"] .quiz-choice[data-choice="0"]').classList.contains("right")`))
	assert.True(t, eval[bool](p, `document.querySelector('`+dupChoice+`').classList.contains("wrong")`))
	assert.Contains(t, eval[string](p, `document.querySelector('.quiz-q[data-ask="duplicated"] .quiz-why').textContent`), "sequence numbers")
	p.elementShot("quiz-revealed-en", "#quiz")

	require.NoError(t, clickSelector(p, `button[data-lang="zh"]`))
	p.waitJS(5*time.Second, `document.getElementById("quiz-h").textContent === "先预测，再运行"`)
	assert.Equal(t, "运行结果： 精确一次（exactly-once） · 你答对了", eval[string](p, `document.querySelector(".quiz-answer").textContent`))
	assert.Contains(t, eval[string](p, `document.querySelector('.quiz-q[data-ask="duplicated"] .quiz-question').textContent`), "不止一次")
	p.elementShot("quiz-revealed-zh", "#quiz")
	require.NoError(t, clickSelector(p, `button[data-lang="en"]`))

	require.NoError(t, clickSelector(p, "#restart"))
	p.waitJS(10*time.Second, `!document.querySelector('`+verdictChoice+`').disabled && document.querySelectorAll(".quiz-answer").length === 0`)
	assert.Equal(t, "false", eval[string](p, `document.querySelector('`+verdictChoice+`').getAttribute("aria-pressed")`), "a new round")

	// a scene without a quiz has no quiz section
	p.call(`load("zombie-leader-rejoins")`)
	p.waitJS(10*time.Second, `document.getElementById("quiz").hidden`)
}
