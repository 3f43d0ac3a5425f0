package keys

import "errors"

// Sentinel errors, matched with errors.Is. Parsers wrap ErrSyntax with the
// input they refused; builders wrap ErrRange or ErrInvalid with what was
// asked.
var (
	// ErrSyntax reports a key string that its parser cannot read.
	ErrSyntax = errors.New("keys: invalid key syntax")
	// ErrRange reports an instant outside the years 0000 to 9999.
	ErrRange = errors.New("keys: time outside the years 0000-9999")
	// ErrInvalid reports a part that cannot go into a key, such as an empty
	// part or one containing the separator '#'.
	ErrInvalid = errors.New("keys: invalid key part")
)
