package view

import (
	"fmt"
	"sort"
	"unicode"

	"deliverylab/core/fate"
)

// Word is one piece of canvas text in both languages. Format verbs (%d, %g, %s) stand
// for numbers and Kafka names, which stay as they are.
type Word struct{ En, Zh string }

// Words is every human word the canvas draws but the nodes' status lines, which come as
// codes from the core and are said by its table (fate.Statuses, Reason.Text). Kafka's
// own names (leader, hw, leo, isr, lso, COMMIT, ABORT, API keys) are not here: they stay
// as Kafka spells them. wasm/font/canvas-zh.otf holds exactly the glyphs of the Zh
// column and of the statuses' Chinese (make canvas-font regenerates it;
// TestFontHasEveryWord checks it).
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
	"followerRows": {"+%d follower rows", "+%d 行副本未显示"},
	"rows":         {"+%d rows", "+%d 行"},
	"older":        {"…%d", "…%d"},
	// A Flink subtask's box (partlines.go): its sink's transactions' states, the latest
	// completed checkpoint's snapshot, what a long list leaves out.
	"txn:open":          {"open", "已开启"},
	"txn:pre-committed": {"pre-committed", "已预提交"},
	"txn:committing":    {"committing", "提交中"},
	"ckptOf":            {"ckpt %d:", "检查点 %d："},
	"moreItems":         {"+%d more", "另 %d 项"},
	"pickScene":         {"Delivery Lab: pick a scene", "Delivery Lab：请选择一个场景"},
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

// Lang is the canvas language: "en" or "zh", the core's languages, so that a status
// the core says (fate.Reason.Text) and a word of the canvas's own are in the same one.
type Lang = fate.Lang

const (
	En = fate.En
	Zh = fate.Zh
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
	for _, r := range statusRunes() {
		set[r] = true
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

// statusRunes is what the nodes' status lines need of the Chinese subset: the runes of
// their Chinese templates beyond Latin-1. Their Latin (Kafka's names, ids, "txn", "·")
// the Latin face draws, as it does in English.
func statusRunes() []rune {
	var out []rune
	for _, c := range fate.Statuses {
		for _, r := range fate.Because(c).Text(fate.Zh) { // no arguments: the template's own text
			if r > unicode.MaxLatin1 {
				out = append(out, r)
			}
		}
	}
	return out
}
