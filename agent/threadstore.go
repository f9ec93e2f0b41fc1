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
// each other. A thread belongs to the wallet of its first turn. Every method is safe for
// concurrent use. agenttest.Run is the conformance suite.
type ThreadStore interface {
	// AppendTurn adds a turn to p.Thread, creating the thread for p.Wallet on first use. It fails
	// with curvekit.ErrForbidden when the thread belongs to another wallet.
	AppendTurn(ctx context.Context, p *AppendTurnParams) error
	// Turns returns the last p.Limit turns of a thread, oldest first; an unknown thread has
	// none. It fails with curvekit.ErrForbidden when the thread belongs to another wallet.
	Turns(ctx context.Context, p *TurnsParams) ([]Turn, error)
}

// TurnsParams asks for the latest turns of a wallet's thread.
type TurnsParams struct {
	Wallet common.Address
	Thread string
	Limit  int
}

// AppendTurnParams is a finished turn to record.
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
