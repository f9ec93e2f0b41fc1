package wallet

import "context"

// KeyWrapper wraps wallets' data keys under a master key (the local Keyring, a KMS). Wrap binds
// the ciphertext to ad and to the master key version it used: unwrapping with other associated
// data or under another version fails.
type KeyWrapper interface {
	// Wrap encrypts dataKey under the current master key and returns the ciphertext with that
	// key's version.
	Wrap(ctx context.Context, dataKey, ad []byte) (Wrapped, error)
	// Unwrap decrypts w. A ciphertext that does not authenticate, or a version the wrapper does
	// not hold, is an error wrapping ErrSealBroken.
	Unwrap(ctx context.Context, w Wrapped, ad []byte) ([]byte, error)
}

// Wrapped is a data key encrypted under the master key with the given version.
type Wrapped struct {
	Version    uint32
	Ciphertext []byte
}
