package play

import "deliverylab/core/fate"

// play's words are fate's codes (fault_texts.go, play_texts.go): each language's text is
// in its table there, so this package holds no text of its own and the two languages
// of a sentence cannot drift apart. Text stays the shape the front end reads.

// say is a code in both languages, its placeholders filled from args (name, value pairs).
func say(code fate.Code, args ...string) Text { return textOf(fate.Because(code, args...)) }

// sayAround is a code one of whose placeholders, name, holds a text of its own (the
// message in "drop …"): each language is filled with that language's inner text.
func sayAround(code fate.Code, name string, inner Text, args ...string) Text {
	in := func(lang fate.Lang, s string) string {
		return fate.Because(code, append([]string{name, s}, args...)...).Text(lang)
	}
	return Text{En: in(fate.En, inner.En), Zh: in(fate.Zh, inner.Zh)}
}

// then is t followed by o, in each language.
func (t Text) then(o Text) Text { return Text{En: t.En + o.En, Zh: t.Zh + o.Zh} }

// refuse is a UserError said by a code.
func refuse(code fate.Code, args ...string) error { return userError(say(code, args...)) }
