package push

import "context"

// KeyWrapper wraps the data keys that seal signing secrets under a master key, as the wallet's
// keys are wrapped (internal/app plugs in the wallet's keyring). Unwrapping with other
// associated data, or under a version the wrapper does not hold, fails.
type KeyWrapper interface {
	Wrap(ctx context.Context, dataKey, ad []byte) (version uint32, wrapped []byte, err error)
	Unwrap(ctx context.Context, version uint32, wrapped, ad []byte) ([]byte, error)
}
