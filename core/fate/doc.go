// Package fate is the ledger's vocabulary, shared by the checker (core/check) and the
// nodes it asks: a message's fate (delivered, duplicated, lost, unavailable, failed), the
// reason for it as a value — codes with arguments, rendered from one table per language
// (reasons_en.go, reasons_zh.go) so that the languages cannot drift — and the question a
// node that holds messages answers (Holder). A node's status line (show.Node.Status) is a
// reason too, of the status codes (statuses.go), and so is everything the playground
// (core/play) says of faults, refusals and notices (fault_texts.go, play_texts.go): the
// core's words are said in one place, and reasons_zh.go is the core's only Chinese.
package fate
