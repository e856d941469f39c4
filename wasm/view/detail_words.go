package view

import "strings"

// DetailWords are the human words in the nodes' status lines (play.NodeState.Detail:
// "sent 10/10 acked 10", "9 rows 2 refused", "2 partitions", "Stable idle"), in
// Chinese. The status lines come from the protocol packages in Latin; the canvas says
// their words in its language and leaves the rest — numbers, Kafka's states (Stable,
// Ongoing, FENCED), ids — as Kafka spells them.
var DetailWords = map[string]string{
	"sent":       "已发送",
	"acked":      "已确认",
	"rows":       "行",
	"rewrites":   "次改写",
	"refused":    "被拒",
	"total":      "总计",
	"partitions": "个分区",
	"idle":       "空闲",
	"processing": "处理中",
	"committing": "提交中",
}

// DetailIn is a node's status line in lang: in Chinese each word DetailWords knows is
// replaced, word by word; separators and spacing stay.
func DetailIn(lang Lang, detail string) string {
	if lang != Zh || detail == "" {
		return detail
	}
	words := strings.Split(detail, " ")
	for i, w := range words {
		core := strings.TrimRight(w, ",")
		if zh, ok := DetailWords[core]; ok {
			words[i] = zh + w[len(core):]
		}
	}
	return strings.Join(words, " ")
}
