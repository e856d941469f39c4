package browsertest

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A run that cannot settle says on the page why it stopped and what it waited for, in
// both languages: here the sink is crashed for good, so the consumer writes again and
// again until the run's time limit.
func TestARunThatCannotSettleSaysWhatItWaitedFor(t *testing.T) {
	p := open(t)
	p.call(`load("acks-1-lost")`)
	p.call(`inject({crash: "db"})`)
	p.call(`runToEnd()`)
	p.waitJS(60*time.Second, `window.deliverylab.state().ended`)
	s := p.state()
	require.Equal(t, "time limit", s.EndNote)
	assert.Contains(t, s.EndWhy.En, "c1 keeps writing to db, which does not answer")
	assert.Contains(t, s.EndWhy.Zh, "c1 一直在向 db 写入，而它没有应答")

	p.waitJS(10*time.Second, `!document.getElementById("end-why").hidden`)
	assert.Equal(t, s.EndWhy.En, eval[string](p, `document.getElementById("end-why-text").textContent`))
	require.NoError(t, clickSelector(p, `button[data-lang="zh"]`))
	p.waitJS(10*time.Second, `document.getElementById("end-why-text").textContent.includes("运行在")`)
	assert.Equal(t, "运行为何停止：", eval[string](p, `document.querySelector("#end-why b").textContent`))
	require.NoError(t, clickSelector(p, `button[data-lang="en"]`))
}
