package scene

import (
	"fmt"

	"go.yaml.in/yaml/v3"
)

// transactions reads how a producer groups its messages into transactions: a producer
// with a transactional.id sends only inside transactions (KafkaProducer refuses a send
// outside one), so it needs transaction.size, and transaction.size needs the id.
func (p *parser) transactions(ps *ProducerSpec, m map[string]field, n *yaml.Node, path string) {
	t, sized := m["transaction.size"]
	switch {
	case sized && ps.Config.TransactionalID == "":
		p.fail(t.keyN, path+".transaction.size", "needs config.transactional.id: only a transactional producer sends in transactions")
		return
	case !sized && ps.Config.TransactionalID != "" && p.err == nil:
		p.fail(n, path+".transaction.size", "missing; a producer with transactional.id %q sends only inside transactions: say how many messages each carries", ps.Config.TransactionalID)
		return
	case !sized:
		if a, ok := m["abort.transactions"]; ok {
			p.fail(a.keyN, path+".abort.transactions", "needs transaction.size and config.transactional.id")
		}
		return
	}
	ps.TransactionSize = int(p.integer(t, path, 1, 1000))
	if ps.Sync {
		p.fail(m["sending"].value, path+".sending", "sync is not modelled for a transactional producer yet: its sends are told at the commit; use async")
	}
	a, ok := m["abort.transactions"]
	if !ok {
		return
	}
	count := (ps.Work.Count + ps.TransactionSize - 1) / max(ps.TransactionSize, 1)
	for i, v := range p.list(a, path) {
		at := fmt.Sprintf("%s.abort.transactions[%d]", path, i)
		k := int(p.integer(field{keyN: a.keyN, value: v}, at, 1, int64(max(count, 1))))
		ps.AbortTransactions = append(ps.AbortTransactions, k)
	}
}
