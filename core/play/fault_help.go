package play

import (
	"fmt"
	"strings"

	"deliverylab/core/show"
)

// FaultHelp is the fault box's syntax, one example of each kind it takes, with the
// scene's own node names so every example can be pasted as it is.
func (s *Session) FaultHelp() Text {
	w := s.run.World
	broker, app, other := "broker-1", "p1", "broker-2"
	brokers := 0
	for _, n := range w.NodeNames() {
		switch show.Kind(nodeState(w, n).Kind) {
		case show.Broker:
			if brokers == 0 {
				broker = n
			} else if brokers == 1 {
				other = n
			}
			brokers++
		case show.Producer, show.Consumer, show.Streams:
			if app == "p1" {
				app = n
			}
		}
	}
	wire := int64(42)
	if ms := w.InFlight(); len(ms) > 0 {
		wire = ms[0].ID
	}
	type line struct{ syntax, en, zh string }
	lines := []line{
		{"{crash: " + broker + "}", "the node goes down and loses its volatile state", "节点宕机，丢失易失状态"},
		{"{crash: " + broker + ", for.ms: 2000}", "down for 2 s, then restarted", "宕机 2 秒后重启"},
		{"{restart: " + broker + "}", "a node that is down boots again", "让宕机的节点重新启动"},
		{"{pause: " + app + "}", "the process stops (a long GC pause); what it receives waits", "进程停住（如很长的 GC 停顿），收到的消息都在等待"},
		{"{pause: " + app + ", for.ms: 3000}", "paused for 3 s, then resumed", "暂停 3 秒后恢复"},
		{"{resume: " + app + "}", "a paused node handles what waited, in order", "恢复暂停的节点，按顺序处理等待的消息"},
		{"{cut: [" + app + ", " + broker + "]}", "messages between the two are lost, both ways", "两者之间的消息双向丢失"},
		{"{cut-oneway: [" + broker + ", " + app + "]}", "only messages from the first to the second are lost", "只丢失从前者到后者的消息"},
		{"{heal: [" + app + ", " + broker + "]}", "the link works again, both ways", "链路双向恢复"},
		{"{heal-oneway: [" + broker + ", " + app + "]}", "one direction works again", "恢复一个方向"},
		{"{heal: all}", "every link works again", "所有链路恢复"},
		{"{partition: [[" + broker + "], [" + other + "]]}", "groups cannot hear each other; unlisted nodes join the last group", "各组之间互相听不到；未列出的节点归入最后一组"},
		{fmt.Sprintf("{drop: message, id: %d}", wire), "the message with that wire id (see the trace) is lost", "丢弃该线路编号（见 trace）的消息"},
		{fmt.Sprintf("{delay: message, id: %d, delay.ms: 500}", wire), "it arrives 500 ms later", "让它晚到 500 毫秒"},
		{fmt.Sprintf("{duplicate: message, id: %d}", wire), "it arrives twice", "让它到达两次"},
		{"{when: {node: " + broker + ", event: appended}, crash: " + broker + "}", "armed: happens at that protocol point", "预设：在该协议时刻发生"},
		{"{when: {event: responded}, drop: response}", "armed: the next produce response is lost", "预设：下一个 produce 响应丢失"},
	}
	var en, zh []string
	en = append(en, "A fault is one action in the scene file's syntax (YAML or JSON); it happens now, or with when: at a protocol point:")
	zh = append(zh, "故障是场景文件语法（YAML 或 JSON）中的一个动作；立即发生，或用 when: 在某个协议时刻发生：")
	for _, l := range lines {
		en = append(en, l.syntax+"  — "+l.en)
		zh = append(zh, l.syntax+"  — "+l.zh)
	}
	return Text{En: strings.Join(en, "\n"), Zh: strings.Join(zh, "\n")}
}
