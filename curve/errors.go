package curve

import "errors"

// Sentinel errors. Each error a function in this package returns matches exactly one of them
// under errors.Is (Params.Validate additionally wraps ErrOverflow when a product overflows).
var (
	// ErrInvalidParams reports parameters the factory would refuse (see Params.Validate), or a
	// pool fee above MaxFeeBps.
	ErrInvalidParams = errors.New("curve: invalid parameters")
	// ErrInvalidState reports a state the operation cannot apply to, such as graduating a curve
	// whose real quote reserve is not at the graduation threshold.
	ErrInvalidState = errors.New("curve: invalid state")
	// ErrZeroAmount reports a zero input amount; the contracts refuse it.
	ErrZeroAmount = errors.New("curve: zero amount")
	// ErrGraduated reports a curve trade after graduation; trading continues on the pool.
	ErrGraduated = errors.New("curve: curve has graduated")
	// ErrTooSmall reports a trade whose output rounds down to zero ("amount too small"), or
	// graduation liquidity too small for the pool to mint LP tokens.
	ErrTooSmall = errors.New("curve: amount too small")
	// ErrInsufficientReserve reports a trade the reserves cannot cover: more tokens or quote than
	// the curve or pool holds, more than the curve sells before graduation, or empty reserves.
	ErrInsufficientReserve = errors.New("curve: insufficient reserve")
	// ErrOverflow reports an intermediate result above 2^256-1 (a checked-arithmetic revert on
	// chain), or a pool balance above 2^112-1 (Uniswap V2 stores reserves as uint112).
	ErrOverflow = errors.New("curve: arithmetic overflow")
)
