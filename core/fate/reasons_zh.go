package fate

var chinese = map[Code]string{
	OneEffect:      "在 {output} 中恰好生效一次",
	ManyEffects:    "在 {output} 中生效 {count} 次",
	AppendedTwice:  "：被追加了 {count} 次（{places}）：生产者重试了一个没有得到应答的请求",
	PolledTwice:    "：被拉取了 {count} 次：消费者从较早的已提交位移重新读取了它",
	FailedTold:     "生产者在 {ms} 毫秒收到失败（{err}）",
	FailedUntold:   "从未被确认：生产者在得到答复前崩溃或运行已结束",
	NotYetIn:       "已确认，尚未进入 {output}：仍保存在",
	HeldOffline:    " {broker} 上的 {partition}（已宕机；该分区没有 leader）",
	HeldAboveHW:    " {broker} 上 {partition} 的高水位之上",
	HeldForReader:  " {broker} 上的 {partition}，等待已宕机的消费者",
	HeldUnread:     " {broker} 上的 {partition}，位于高水位之下、消费组已提交的位移处或之后：运行结束时消费者还没读到它",
	AckedAtOffset:  "在 {ms} 毫秒被确认（{partition} 的位移 {offset}）",
	AckedNoWait:    "在 {ms} 毫秒被确认（acks=0：没有等待 broker 的应答）",
	AckedAt:        "在 {ms} 毫秒被确认",
	Truncated:      "，随后在 {ms} 毫秒从 {node} 的日志中被截断：它跟随的新 leader 从未拥有它",
	CrashedBefore:  "，在 {polled} 毫秒被拉取、{committed} 毫秒提交了位移，但消费者在处理前崩溃",
	NeverProcessed: "，在 {polled} 毫秒被拉取但从未处理，而消费组已提交的位移已越过它",
	Gone:           "，但已没有任何日志能再交付它，{output} 也从未收到",
	InProgress:     "进行中：尚未被确认",
	InProgressAck:  "进行中：已确认，尚未进入 {output}",
}
