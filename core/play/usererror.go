package play

// UserError is a refusal the person at the playground should read, in both of its
// languages; Error is the English, so code that only knows error still says something.
type UserError struct {
	En, Zh string
}

func (e UserError) Error() string { return e.En }

// userError builds a UserError from a text in both languages.
func userError(t Text) error { return UserError{En: t.En, Zh: t.Zh} }
