// Package agenttest is the conformance suite of the agent's store ports: agent.JobStore,
// agent.MemoryStore, agent.ThreadStore and, when a store has it, agent.JobChanges. Every
// implementation runs it from its own tests:
//
//	func TestAgentStores(t *testing.T) {
//		agenttest.Run(t, func(t *testing.T) agenttest.Stores { db := open(t); return agenttest.Stores{Jobs: db, Memory: db, Threads: db} })
//	}
//
// It checks what the ports document - the job status machine, the claim's compare-and-set, the
// lease fencing, the rescue, the caps counted atomically, wallet scoping (of jobs, memory and
// threads) - and a property test that drives two runners through random claims, heartbeats,
// cancels, completions and expiries against a model. It never asks which implementation it
// runs on.
package agenttest

import (
	"testing"

	"github.com/curvekit/curvekit/agent"
	"github.com/curvekit/curvekit/push"
)

// Stores are the ports under test, usually one value implementing all three.
type Stores struct {
	Jobs    agent.JobStore
	Memory  agent.MemoryStore
	Threads agent.ThreadStore
	// Changes, when set, is checked to report the changes to jobs that Jobs makes.
	Changes agent.JobChanges
	// Events, when set, reads the events Jobs records with the ends of jobs (push's outbox:
	// CompleteJobParams.Events, FailJobParams.Events); the outbox is checked.
	Events push.Store
}

// Run runs the suite. newStores must return empty stores of their own (no state shared with
// any other call) and arrange their cleanup with t.Cleanup; Run calls it from parallel subtests.
func Run(t *testing.T, newStores func(t *testing.T) Stores) {
	tests := []struct {
		name string
		fn   func(t *testing.T, s Stores)
	}{
		{"JobLifecycle", testJobLifecycle},
		{"JobFailure", testJobFailure},
		{"ConcurrentFirstUseOfOneThreadID", testConcurrentCompletions},
		{"ClaimOrderAndEmpty", testClaimOrder},
		{"InsertDuplicate", testInsertDuplicate},
		{"PendingCap", testPendingCap},
		{"PendingCapConcurrent", testPendingCapConcurrent},
		{"Cancel", testCancel},
		{"Fencing", testFencing},
		{"RescueFailsAfterAttempts", testRescueAttempts},
		{"ConcurrentClaims", testConcurrentClaims},
		{"JobChanges", testJobChanges},
		{"JobMachineProperty", testJobMachineProperty},
		{"Memory", testMemory},
		{"MemoryCapConcurrent", testMemoryCapConcurrent},
		{"Threads", testThreads},
		{"ThreadsPerWallet", testThreadsPerWallet},
		{"TurnContext", testTurnContext},
		{"EndsCommitTheirEvents", testEndEvents},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.fn(t, newStores(t))
		})
	}
}
