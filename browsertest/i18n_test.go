package browsertest

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"deliverylab/core/sim"
)

// kafkaWords stay as Kafka spells them in Chinese too, as do the verdicts' terms (shown
// beside their Chinese names), node names, partition names (a topic and a number:
// orders-0, the chart's) and message ids.
var kafkaWords = regexp.MustCompile(`\b(Kafka|Flink|Delivery Lab|leader|follower|ISR|isr|acks|hw|leo|lso|offsets?|broker(-\d+)?|` +
	`controller|exactly-once|at-least-once|at-most-once|none|English|Esc|ms|p\d+(#\d+)?|c\d+|db|sink|epoch|Produce|Fetch|` +
	`txn|eN|e\d+|Streams|Jepsen|[A-Z]{2,}|[A-Z][a-z]+[A-Z][A-Za-z]+|[a-z]+-\d+)\b|\w*_\w+|[a-z]+(\.[a-z]+)+|send\(\)`)

var latinWord = regexp.MustCompile(`[A-Za-z]{2,}`)

// protocolPoints are the scene files' protocol point names ("responded", "elected"): a
// fault armed at one (a scene's own, listed and marked on the scrubber) names it as the
// file writes it, in both languages, like a configuration key.
var protocolPoints = func() *regexp.Regexp {
	var names []string
	for _, e := range sim.EventSpecs() {
		names = append(names, regexp.QuoteMeta(string(e.Event)))
	}
	return regexp.MustCompile(`\b(` + strings.Join(names, "|") + `)\b`)
}()

// In Chinese no page word stays English: verdict, counts, the fault list, the controls,
// every aria-label and title.
func TestChinesePageHasNoEnglishWords(t *testing.T) {
	p := openEn(t)
	crashLeaderAtFirstAck(t, p, "acks-1-lost")
	require.NoError(t, clickSelector(p, `button[data-lang="zh"]`))
	p.waitJS(5*time.Second, `document.documentElement.lang === "zh-CN"`)
	p.state()
	p.waitJS(5*time.Second, `document.getElementById("verdict").textContent.includes("至多一次")`)
	texts := eval[map[string]string](p, `(() => {
		const out = {};
		const add = (k, v) => { if (v) out[k] = v; };
		for (const id of ["verdict", "counts", "faults", "status", "time", "branch", "help-keys", "notice"]) {
			const el = document.getElementById(id);
			if (el && !el.hidden) add("#" + id, el.textContent);
		}
		// The legend's words; its swatches show the canvas's own text.
		document.querySelectorAll("#legend-list li > span:last-child").forEach((el, i) => add("legend " + i, el.textContent));
		document.querySelectorAll(".controls button, .top button:not([data-lang]), #inject-form button, #inject-form label, .story h2, .story h3, .ledger h2, .ledger th").forEach((el, i) => add("control " + i + " " + (el.id || el.tagName), el.textContent));
		document.querySelectorAll("[aria-label]").forEach((el, i) => add("aria-label " + i + " " + (el.id || el.className), el.getAttribute("aria-label")));
		document.querySelectorAll("[title]").forEach((el, i) => {
			if (el.closest("#scene-list") || el.closest("#faults")) return; // scene prose; a fault's title is its scene syntax
			add("title " + i + " " + (el.id || el.className), el.title);
		});
		return out;
	})()`)
	require.NotEmpty(t, texts)
	for where, s := range texts {
		left := protocolPoints.ReplaceAllString(kafkaWords.ReplaceAllString(s, ""), "")
		if w := latinWord.FindAllString(left, -1); len(w) > 0 {
			t.Errorf("%s has English words %v in %q", where, w, s)
		}
	}
	assert.True(t, strings.Contains(texts["#faults"], "broker-1"), "the faults are listed: %q", texts["#faults"])
	require.NoError(t, clickSelector(p, `button[data-lang="en"]`))
}

// The fault box shows the Chinese error text in Chinese.
func TestFaultBoxErrorsInChinese(t *testing.T) {
	p := openEn(t)
	p.call(`load("acks-1-lost")`)
	require.NoError(t, clickSelector(p, `button[data-lang="zh"]`))
	r := eval[map[string]any](p, `window.deliverylab.inject({restart: "broker-1"})`)
	zh, _ := r["errorZh"].(string)
	require.NotEmpty(t, zh, "restarting a broker that is up is refused, in Chinese too: %v", r)
	require.NoError(t, p.do(sendKeysTo("#fault", `{"restart": "broker-1"}`)))
	require.NoError(t, clickSelector(p, "#inject-form button"))
	p.waitJS(5*time.Second, `document.getElementById("fault-error").textContent !== ""`)
	assert.Equal(t, zh, eval[string](p, `document.getElementById("fault-error").textContent`))
	require.NoError(t, clickSelector(p, `button[data-lang="en"]`))
}
