package browsertest

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The page links the lessons; a lesson shows the page's language (and switches), and a
// click on a scene in its plan opens that scene in the playground.
func TestLessonsOpenFromThePageAndOpenTheirScenes(t *testing.T) {
	p := openEn(t)
	assert.Equal(t, "Lessons", eval[string](p, `document.getElementById("lessons-link").textContent`))
	href := eval[string](p, `document.getElementById("lessons-link").href`)
	require.True(t, strings.HasSuffix(href, "/lessons/index.html"), href)

	require.NoError(t, p.do(chromedp.Navigate(href)))
	p.waitJS(10*time.Second, `document.querySelectorAll('section[lang="en"] li a').length === 5`)
	require.NoError(t, clickSelector(p, `section[lang="en"] li a[href="consumer-offsets.html"]`))
	waitAcrossNavigation(t, p, `location.pathname.endsWith("/consumer-offsets.html") && !document.querySelector('section[lang="en"]').hidden`)
	assert.True(t, eval[bool](p, `document.querySelector('section[lang="zh"]').hidden`))
	require.NoError(t, clickSelector(p, `.lang button[data-lang="zh"]`))
	p.waitJS(5*time.Second, `!document.querySelector('section[lang="zh"]').hidden && document.querySelector('section[lang="en"]').hidden`)
	require.NoError(t, clickSelector(p, `.lang button[data-lang="en"]`))

	require.NoError(t, clickSelector(p, `section[lang="en"] a.scene[href="../index.html#commit-before-processing"]`))
	waitAcrossNavigation(t, p, `window.deliverylab && window.deliverylab.ready && window.deliverylab.state().scene === "commit-before-processing"`)
}

// navigationInterrupted says whether err is the protocol's way of saying the
// document it asked went away mid-question (its context destroyed, or the
// target navigating), which the next question to the new document answers.
func navigationInterrupted(err error) bool {
	msg := err.Error()
	return strings.Contains(msg, "Cannot find context") || strings.Contains(msg, "Inspected target navigated or closed")
}

// waitAcrossNavigation waits for expr in a tab that a click is taking to another
// document: until the new one is there, the old one's context may be gone.
func waitAcrossNavigation(t *testing.T, p *page, expr string) {
	t.Helper()
	ctx, done := context.WithTimeout(p.ctx, 60*time.Second)
	defer done()
	for {
		_, err := chromedp.Run(ctx, chromedp.Poll[chromedp.Void](expr, chromedp.WithPollingInterval(20*time.Millisecond)))
		if err == nil || !navigationInterrupted(err) {
			require.NoError(t, err, "waiting for %s\nconsole:\n%s", expr, p.consoleText())
			return
		}
	}
}
