package agent

import (
	"context"
	"time"

	"github.com/ethereum/go-ethereum/common"
)

// Turn is one finished exchange of a thread.
type Turn struct {
	Prompt   string
	Response string
	At       time.Time
}

// ThreadStore keeps the turns of conversation threads, so that turns with the same thread id see
// each other. Threads belong to wallets: a thread is a wallet and an id, so the same id in two
// wallets is two threads, each seeing only its own turns, and no wallet's use of an id can
// refuse or change another's. Every method is safe for concurrent use. agenttest.Run is the
// conformance suite.
type ThreadStore interface {
	// AppendTurn adds a turn to p.Wallet's thread p.Thread, creating the thread on first use.
	// Concurrent appends to one thread all land, each numbered after the one before.
	AppendTurn(ctx context.Context, p *AppendTurnParams) error
	// Turns returns the last p.Limit turns of p.Wallet's thread p.Thread, oldest first; an
	// unknown thread has none.
	Turns(ctx context.Context, p *TurnsParams) ([]Turn, error)
}

// TurnsParams asks for the latest turns of a wallet's thread.
type TurnsParams struct {
	Wallet common.Address
	Thread string
	Limit  int
}

// AppendTurnParams is a finished turn to record in a wallet's thread.
type AppendTurnParams struct {
	Thread string
	Wallet common.Address
	Turn   Turn
}

// TurnContextReader is an optional port of a store that keeps both memory and threads: it reads
// what a turn starts from, the wallet's memory entries and the thread's last turns, in one step,
// with the results and errors of Memories(p.Wallet) and Turns(p). The service uses it when
// Config.Memory and Config.Threads are one value that implements it: a turn then begins with one
// read instead of two.
type TurnContextReader interface {
	TurnContext(ctx context.Context, p *TurnsParams) ([]MemoryEntry, []Turn, error)
}
