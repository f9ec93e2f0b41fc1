// Package wallet holds custodial wallets: one per account, its private key sealed at rest, and
// sign-and-submit with every check made inside the service before the key is unsealed.
//
// Sealing is envelope encryption. Each wallet has a random 32-byte data key; the private key is
// sealed with it under AES-256-GCM, and the data key is wrapped by a master key behind the
// KeyWrapper port (Keyring is the local one, from a file or the environment). Both ciphertexts
// carry associated data that binds the wallet id, its address and the master key version, so a
// sealed key copied onto another wallet row, or a row whose version was edited, does not open.
// The version is kept per wallet so that master keys can rotate.
//
// SignAndSubmit refuses a read-only caller before it loads the wallet's key (ErrForbidden); for a
// caller with an allowlist of recipients it reads the call data first (ReadCall, the signing
// policy) and refuses a transaction when its recipient or any beneficiary of its call is neither
// the wallet nor listed, or when the call is not one the policy can read. It checks the chain id
// and the gas bound, takes a nonce from the Store (ReserveNonce is atomic, so concurrent
// submissions never collide; a send the chain did not take gives its nonce back, so no gap
// stays), signs through the Signer seam and broadcasts through the Broadcaster. An idempotency key makes a retried request return the
// first answer instead of sending twice.
//
// The account's layer (Guard, with Markets to price trades) comes after the key's, still before
// the key is unsealed: a paused wallet, a receiver outside the account's recipients or still
// cooling down, a spend above a per-transaction cap and a trade whose price impact is above the
// account's cap are refused with their codes (curvekit.Code). What the transaction moves out of
// the wallet per pairing asset (value, a buy's input, an approval, a transfer, a launch's initial
// buy) goes to ReserveNonce, which checks the daily caps and records the spends in the
// transaction that hands out the nonce; a send that definitely failed releases them. Every
// refusal is appended to the account's activity log.
//
// A call of the launch factory's launch counts against the wallet's daily launch limit, which the
// Launches port tells (the cap and the launches already indexed). ReserveNonce counts the
// wallet's signed launches not yet indexed in the transaction that reserves the nonce and refuses
// one beyond the cap (ErrLaunchLimit), so replicas sending at once never sign more than the cap;
// a released nonce frees its launch's place.
package wallet
