// Package contracts holds the curvekit reference contracts: the Solidity sources (src/), their
// compiled artifacts (build/*.json, embedded here) and the parsed ABIs that pure packages such as
// txbuild encode calls with. It imports only go-ethereum's accounts/abi; the typed abigen v2
// bindings, which need bind/v2 and an RPC client, live in the sub-package bindings.
//
//   - LaunchFactory: launches tokens; owns the per-pairing-asset CurveParams, the launch fee and the
//     fee recipient.
//   - BondingCurve: one per token; buys, sells, fees and graduation into a pool, exactly as
//     docs/CURVE.md specifies.
//   - CurveToken: the launched ERC-20 (18 decimals, fixed supply, burnable, metadata uri).
//   - PoolFactory, Pair, Router: the post-graduation pools (Uniswap V2 semantics, fee in bps).
//   - WETH9 and MockERC20: wrapped ether and a mintable demo pairing asset.
//
// # Regenerating
//
// build/*.json and bindings/*.go are generated; do not edit them. The compiler is the npm package
// solc pinned in package.json (standard-JSON, evmVersion cancun, optimizer 200 runs, via-IR), and
// OpenZeppelin Contracts comes from npm too:
//
//	cd contracts && npm ci && cd .. && go generate ./contracts
//
// compile.js writes build/, then internal/bindgen writes bindings/; both are deterministic, so a
// second run changes nothing.
package contracts
