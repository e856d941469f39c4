package browsertest

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Record video (WebM): a teacher picks a stretch (1000–1600 ms, past a caption that
// stops the run) and a speed (×10); the page plays that stretch and saves what the canvas
// showed as a WebM file that a browser plays, as long as the recording took.
func TestVideoExportIsAPlayableFileOfTheStretch(t *testing.T) {
	p := openEn(t)
	p.call(`load("acks-1-lost")`)
	require.NoError(t, clickSelector(p, "#record-video"))
	p.waitJS(5*time.Second, `document.getElementById("video-dialog").open`)
	assert.Equal(t, "Record a stretch of the run", eval[string](p, `document.getElementById("video-title").textContent`))
	eval[bool](p, `(() => { document.getElementById("video-from").value = "1000"; document.getElementById("video-to").value = "1600";
		document.getElementById("video-speed").value = "10"; return true; })()`)
	started := time.Now()
	name, data := downloadByClick(t, p, "#video-record")
	took := time.Since(started).Seconds()
	assert.Equal(t, "acks-1-lost-1000-1600ms.webm", name)
	require.Greater(t, len(data), 1000)
	assert.True(t, bytes.HasPrefix(data, []byte{0x1a, 0x45, 0xdf, 0xa3}), "a WebM (EBML) file")
	st := p.state()
	assert.False(t, st.Playing, "the run stops at the stretch's end")
	assert.GreaterOrEqual(t, st.NowMs, int64(1600))

	// The browser plays it: its length, once the player has read to its end (a recorded
	// WebM does not say its duration in its header).
	seconds := evalAsync[float64](p, fmt.Sprintf(`new Promise((resolve, reject) => {
		const bin = atob(%q); const bytes = new Uint8Array(bin.length);
		for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
		const v = document.createElement("video");
		v.muted = true;
		v.onerror = () => reject(new Error("the video does not play: " + (v.error && v.error.message)));
		v.onloadedmetadata = () => {
			if (isFinite(v.duration)) { resolve(v.duration); return; }
			v.ondurationchange = () => { if (isFinite(v.duration)) resolve(v.duration); };
			v.currentTime = 1e9;
		};
		v.src = URL.createObjectURL(new Blob([bytes], {type: "video/webm"}));
	})`, base64.StdEncoding.EncodeToString(data)))
	assert.Greater(t, seconds, 0.3, "the stretch, not a frame")
	assert.LessOrEqual(t, seconds, took+0.5, "no longer than the recording took (%.1f s)", took)

	require.NoError(t, clickSelector(p, `button[data-lang="zh"]`))
	assert.Equal(t, "录制视频（WebM）", eval[string](p, `document.getElementById("record-video").textContent`))
	require.NoError(t, clickSelector(p, `button[data-lang="en"]`))
}
