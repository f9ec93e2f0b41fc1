// Package push tells an account what happened without its asking: signed webhooks by the
// Standard Webhooks specification, and the account stream (SSE).
//
// Everything an account may hear is an Event: a stable id derived from its cause (so a cause
// published twice is recorded once), a Type, the time and the payload, which is the payload of
// the matching SSE event where one exists.
//
// No event is lost between the commit that causes it and its record (the outbox). Recording an
// event stores it and, in the same transaction, one delivery for every enabled subscription
// whose types and filters match; that transaction is the cause's own, or is tied to it:
//   - a source whose change is one store method hands the events to that method, which records
//     them in the transaction that commits the change, only if it commits (the wallet's release
//     and settlement of a transaction, the agent store's end of a job, the orders store's record
//     or move of a fire and its order, an order's expiry or cancellation, the attempt that disables a subscription);
//     Service.Committed then wakes the sender and the account streams;
//   - a source whose store is a log ordered by position (the market's, by the indexer's cursor)
//     is relayed: Service.Relay records the events of the log between two positions and moves the
//     relay's position in the same transaction, compared and set (Store.RelayPosition), so a
//     relay that stops anywhere, the leader killed right after its commit among them, resumes
//     from the last position it committed, and two relays never both move it.
//
// A source added later declares its Type in Types and takes one of these two ways.
//
// Deliveries are at least once, each with the event's id as its webhook-id. They wait in the
// store and are claimed by one replica at a time for a lease (ClaimDeliveries); a replica killed
// mid-delivery loses nothing: its claim lapses and another replica makes the attempt again, with the same
// webhook-id. The Sender signs each attempt (Sign), posts it through a Client (the adapter
// refuses private destinations) and records the outcome: a 2xx succeeds, a 410 disables the
// subscription, anything else retries on the schedule until it runs out; a subscription that
// kept failing for FailingLimit is disabled and its account told (WebhookDisabled, recorded with
// the disabling).
//
// Account events (Event.Account set) are kept in order (Event.Seq) so that the account stream
// resumes from a Last-Event-ID on any replica.
package push
