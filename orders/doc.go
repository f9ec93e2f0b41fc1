// Package orders holds an account's standing orders on a token: limit buys and sells, stop-loss,
// take-profit and trailing-stop sells fired by the price, and DCA and TWAP schedules fired by the
// clock. It validates a request into an Order (listing every failing field), moves orders and
// their fires through one state machine, and keeps a trigger index per token sorted by trigger
// price, so evaluating a sync costs a look at the head of each list rather than a scan.
//
// Prices are exact integers: pairing-asset base units per whole token times market.PriceScale,
// the scale of a trade's execution price, so a cheap token keeps its digits.
//
// The Engine fires them. Only the indexer's leader runs it: each committed sync is evaluated in
// chain order and the clock fires time orders; every fire is recorded under the leader's lease
// term (the store refuses an ended term) and then sent through the Trader, the custodial wallet's
// sign-and-submit, with the fire's id as its idempotency key, so that a fire happens once across
// replicas and crashes. When the wallet's allowance on chain falls short of what a fire spends,
// an exact approval goes first under a key of its own (ApproveKey); the fire lists every
// transaction it sent, with its kind (Fire.Txs). How far the leader evaluated is recorded with each sync's fires, and a
// new leader first evaluates the trades committed beyond it (History), so no trade goes
// unevaluated across a change of leader. Sends run on the engine's clock, outside the evaluation of syncs, so a
// slow wallet never delays indexing. Each fire applies the restrictions of the API key that
// placed its order as they are then; a key revoked or refusing cancels the order. A paused
// wallet holds a price order's fire until the account resumes, and then sends it only if the
// price still reaches its trigger (Pauses); time orders skip the slices due in a pause. The events a
// fire or an order's end causes (order.triggered, order.sent, order.filled, order.failed,
// order.expired, order.cancelled, whether the account or the engine cancelled it) are built by
// the Notifier inside the store's step, from the order as the step leaves it, and committed
// with it.
//
// The Store port keeps orders and fires; orderstest is its conformance suite.
package orders
