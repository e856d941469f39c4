package play

// UserError is a refusal the user reads, in both of the playground's languages.
type UserError struct{ En, Zh string }

func (e UserError) Error() string { return e.En }
