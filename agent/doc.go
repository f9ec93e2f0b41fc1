// Package agent turns a prompt into a text answer and, when the turn composed one, an unsigned
// transaction for the wallet owner to confirm. Nothing in this package signs or sends: a
// transaction it returns is a request, not a receipt (SPEC 5 rule 9), and the package does not
// import the wallet.
//
// One turn serves every surface. A planner behind the LLM port (the offline planner by default,
// an OpenAI-compatible model through adapters/llm) reads the prompt, the thread's history and the
// wallet's memory, calls typed tools (token reads, quotes, buy and sell composition, memory, and
// the launch tools when a Launcher is configured) and emits Events: usage_update, text_delta,
// transaction, done or error. A streamed prompt forwards the events as they come; a Job keeps
// their sum: the joined text as its response and the transactions as its richData.
//
// Jobs are durable rows driven by a status machine (see Status): a Runner's workers claim them by
// compare-and-set with a lease, keep the lease alive with heartbeats, and complete them fenced by
// the lease, so a runner that dies loses its jobs to a rescuer instead of finishing them twice.
// Idle workers sleep until a submission, a rescue or another worker's claim wakes them (one of
// them also polls, in case a wake-up was lost), and a turn's progress notes wait a moment to be
// written together, with the job's end when the turn ends first. Clients poll their jobs: while
// Service.WatchJobs runs on a store that reports changes (JobChanges), a poll of a job in flight
// is answered from memory until the job ends, and for a second at most.
// The ports JobStore, MemoryStore and ThreadStore hold the state; agenttest is their conformance
// suite.
package agent
