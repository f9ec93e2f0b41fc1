// Package push tells an account what happened without its asking: signed webhooks by the
// Standard Webhooks specification, and the account stream (SSE).
//
// Everything an account may hear is an Event: a stable id derived from its cause (so a cause
// published twice is recorded once), a Type, the time and the payload, which is the payload of
// the matching SSE event where one exists. Sources publish events through a Publisher at the
// commit that caused them: the indexer's leader for the market's events, the wallet for its
// transactions, the agent runner for the ends of jobs. A source added later (orders, settings)
// declares its Type in Types and calls Publish.
//
// Publish records events and, in the same store transaction, one delivery for every enabled
// subscription whose types and filters match. Deliveries wait in the store and are claimed by
// one replica at a time for a lease (ClaimDeliveries); a replica killed mid-delivery loses
// nothing: its claim lapses and another replica makes the attempt again, with the same
// webhook-id. The Sender signs each attempt (Sign), posts it through a Client (the adapter
// refuses private destinations) and records the outcome: a 2xx succeeds, a 410 disables the
// subscription, anything else retries on the schedule until it runs out; a subscription that
// kept failing for FailingLimit is disabled and its account told (EventDisabled).
//
// Account events (Event.Account set) are kept in order (Event.Seq) so that the account stream
// resumes from a Last-Event-ID on any replica.
package push
