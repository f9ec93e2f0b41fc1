// Package account holds an account's settings: the second guard of its custodial wallet (a pause,
// spending caps per pairing asset, a price-impact cap, the account's own recipients with a
// cooldown, temporary relaxations that revert by themselves) and the agent profile (default
// slippage and pairing asset, the largest trade the agent may compose, the tools it may use).
//
// The settings are one JSON document, changed with a JSON Merge Patch (RFC 7396) that is validated
// whole: every failing field is listed at once. Only a session may change them, and a change that
// loosens the guard (a cap raised or removed, the pause lifted, a relaxation) needs a sign-in
// within the last 15 minutes, as exporting a key does. Every change and every refusal of the
// guard is appended to the account's activity log. A change's settings.changed event (the
// settings after it and its log entry) is built by the Notifier and saved with the change, in
// its transaction; a relaxation's end stores nothing (it reads as none from its Until on), so
// it is no event.
//
// The package is pure: the Store port keeps the document and the log, the Assets port tells the
// pairing assets and their decimals. The wallet reads the settings through a port of its own
// (wallet.AccountRules), wired in internal/app.
package account
