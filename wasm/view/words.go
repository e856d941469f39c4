package view

import (
	"fmt"
	"sort"
	"strings"
)

// Word is one piece of canvas text in both languages. Format verbs (%d, %g, %s) stand
// for numbers and Kafka names, which stay as they are.
type Word struct{ En, Zh string }

// Words is every human word the canvas draws. Kafka's own names (leader, hw, leo, isr,
// lso, COMMIT, ABORT, API keys) and the nodes' detail lines are not here: they stay as
// Kafka spells them. wasm/font/canvas-zh.otf holds exactly the glyphs of the Zh column
// (make canvas-font regenerates it; TestFontHasEveryWord checks it).
var Words = map[string]Word{
	"paused":       {"paused", "已暂停"},
	"ended":        {"ended", "已结束"},
	"endedWhy":     {"ended: %s", "已结束：%s"},
	"playing":      {"playing ×%g", "播放中 ×%g"},
	"time":         {"t = %d ms", "t = %d ms"},
	"inFlight":     {"%d in flight", "%d 条在途"},
	"down":         {"DOWN", "宕机"},
	"blocked":      {"BLOCKED", "阻塞"},
	"fenced":       {"FENCED", "已隔离"},
	"pausedBadge":  {"PAUSED", "已暂停"},
	"startsAt":     {"starts at %d ms", "%d ms 启动"},
	"heldDown":     {"held down", "保持停机"},
	"followerRows": {"+%d follower rows", "+%d 行副本未显示"},
	"rows":         {"+%d rows", "+%d 行"},
	"older":        {"…%d", "…%d"},
	"pickScene":    {"Delivery Lab: pick a scene", "Delivery Lab：请选择一个场景"},
	// Why a run ended (play.State.EndNote); stop.ms is the scene key's name.
	"end:settled":      {"settled", "已稳定"},
	"end:stop.ms":      {"stop.ms", "到达 stop.ms"},
	"end:time limit":   {"time limit", "时间上限"},
	"end:event limit":  {"event limit", "事件上限"},
	"end:frozen clock": {"frozen clock", "时钟停滞"},
}

// EndNote is why a run ended, in lang; a reason the table does not know stays as
// play says it.
func EndNote(lang Lang, note string) string {
	if _, ok := Words["end:"+note]; ok {
		return T(lang, "end:"+note)
	}
	return note
}

// Lang is the canvas language: "en" or "zh".
type Lang string

const (
	En Lang = "en"
	Zh Lang = "zh"
)

// ParseLang accepts "en" and "zh".
func ParseLang(s string) (Lang, error) {
	switch Lang(s) {
	case En, Zh:
		return Lang(s), nil
	}
	return "", fmt.Errorf(`the canvas language must be "en" or "zh", not %q`, s)
}

// T is the word key in lang, formatted with args. An unknown key is a bug: it shows
// itself in brackets rather than vanishing.
func T(lang Lang, key string, args ...any) string {
	w, ok := Words[key]
	if !ok {
		return "[" + key + "]"
	}
	s := w.En
	if lang == Zh {
		s = w.Zh
	}
	if len(args) == 0 {
		return s
	}
	return fmt.Sprintf(s, args...)
}

// ZhRunes is every rune the Chinese words use, sorted, plus the digits and signs their
// numbers may bring: what the font subset must hold.
func ZhRunes() string {
	set := map[rune]bool{}
	for _, w := range Words {
		for _, r := range w.Zh {
			set[r] = true
		}
	}
	for _, w := range DetailWords {
		for _, r := range w {
			set[r] = true
		}
	}
	for _, r := range "0123456789.-+×…：" {
		set[r] = true
	}
	var rs []rune
	for r := range set {
		if r > ' ' {
			rs = append(rs, r)
		}
	}
	sort.Slice(rs, func(i, j int) bool { return rs[i] < rs[j] })
	return string(rs)
}

// waitingText is a waiting node's badge in lang: play says "starts at N ms" or
// "held down" in Latin; the canvas says it in its own words.
func waitingText(lang Lang, detail string) string {
	var at int64
	if _, err := fmt.Sscanf(detail, "starts at %d ms", &at); err == nil {
		return T(lang, "startsAt", at)
	}
	if strings.TrimSpace(detail) == "held down" {
		return T(lang, "heldDown")
	}
	return detail
}
