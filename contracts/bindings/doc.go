// Package bindings holds the curvekit reference contracts' Go bindings (abigen v2), generated from
// the Solidity sources in contracts/src:
//
//   - LaunchFactory: launches tokens; owns the per-pairing-asset CurveParams, the launch fee and the
//     fee recipient.
//   - BondingCurve: one per token; buys, sells, fees and graduation into a pool, exactly as
//     docs/CURVE.md specifies.
//   - CurveToken: the launched ERC-20 (18 decimals, fixed supply, burnable, metadata uri).
//   - PoolFactory, Pair, Router: the post-graduation pools (Uniswap V2 semantics, fee in bps).
//   - WETH9 and MockERC20: wrapped ether and a mintable demo pairing asset.
//
// Every contract has a <Name>MetaData (ABI and creation bytecode) and a New<Name>() binding with
// Pack*/Unpack* methods; abigen v2 generates no deploy helper, so deploy with
//
//	bind.DeployContract(auth, common.FromHex(bindings.WETH9MetaData.Bin), backend, packedCtorArgs)
//
// where packedCtorArgs comes from New<Name>().PackConstructor(...) (nil without a constructor).
// Structs shared by several contracts, such as CurveParams, live in structs.go.
//
// # Regenerating
//
// The bindings import go-ethereum's bind/v2 (and with it an RPC client), so pure packages use the
// ABIs of package contracts instead; adapters and tests use these typed bindings.
//
// contracts/build/*.json (ABI and bytecode) and the *.go bindings here are generated; do not edit them. The
// compiler is the npm package solc pinned in package.json (standard-JSON, evmVersion cancun,
// optimizer 200 runs, via-IR), and OpenZeppelin Contracts comes from npm too:
//
//	cd contracts && npm ci && cd .. && go generate ./contracts
//
// compile.js writes build/, then internal/bindgen writes the bindings; both are deterministic, so
// a second run changes nothing.
package bindings
