package view

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestDetailWordsAreSaidInChinese(t *testing.T) {
	assert.Equal(t, "已发送 10/10 已确认 10 · pid 0 e1", DetailIn(Zh, "sent 10/10 acked 10 · pid 0 e1"))
	assert.Equal(t, "9 行 2 被拒", DetailIn(Zh, "9 rows 2 refused"))
	assert.Equal(t, "Stable 空闲", DetailIn(Zh, "Stable idle"), "Kafka's group state stays as Kafka spells it")
	assert.Equal(t, "exactly_once_v2 · running, txn Ongoing", DetailIn(Zh, "exactly_once_v2 · running, txn Ongoing"))
	assert.Equal(t, "sent 10/10 acked 10", DetailIn(En, "sent 10/10 acked 10"))
}
