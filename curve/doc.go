// Package curve prices trades exactly as the curvekit reference contracts execute them.
//
// A token launches on a bonding curve: a constant-product market between virtual reserves vQ
// (pairing asset) and vT (token). Buys add the net pairing-asset amount to vQ and take tokens out
// of vT; sells do the reverse. A trading fee (FeeBps) is charged on top of a buy's net amount and
// out of a sell's gross proceeds, and a share of it (CreatorShareBps) accrues to the token's
// creator. The real reserves rQ and rT track what the curve actually holds. When rQ reaches
// GraduationQuote the crossing buy is capped (the excess is refunded), the curve graduates and its
// liquidity moves into a Uniswap-V2-style Pool, where trading continues.
//
// The exact arithmetic - every product, floor and ceiling, and every check that makes the
// contract revert - is specified in docs/CURVE.md at the root of the repository. This package
// follows it literally: all amounts are 256-bit unsigned integers (holiman/uint256), an
// intermediate overflow is an error (ErrOverflow) where Solidity's checked arithmetic would
// revert, and every other revert maps to a sentinel error compared with errors.Is. A Quote
// function returns an error exactly when the contract call would revert, and otherwise the
// amounts and the state the contract would end in, to the wei.
//
// The API follows the two phases. On the curve: Params (with DefaultParams and Validate),
// State (Params.Initial), QuoteBuy and QuoteSell, their inverses QuoteBuyExactOut and
// QuoteSellExactOut (the smallest input that yields at least a given output), and
// Params.Graduate. On the pool: Pool with QuoteBuy, QuoteSell and their exact-output variants,
// and Uniswap V2's AmountOut and AmountIn. Both sides report SpotPrice, MarketCap and the price
// impact of each quote; Params.ProgressBps tracks the way to graduation.
//
// Where docs/CURVE.md says only "Uniswap V2 semantics", this package applies the Uniswap V2
// pair's own checks: reserves are uint112, and the first deposit must mint more than
// MINIMUM_LIQUIDITY (1000) LP tokens. A crossing buy whose graduation the pair would refuse
// therefore fails too.
//
// Quotes are pure and allocation-free: they take pointers, never modify their arguments and
// return their result by value, so they are safe for concurrent use on shared Params and State.
// The price impact a quote reports is for display; the contracts do not compute it, so it
// never makes a quote fail (it saturates instead).
package curve
