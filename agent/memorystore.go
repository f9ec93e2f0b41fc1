package agent

import (
	"context"
	"time"

	"github.com/ethereum/go-ethereum/common"
)

// MemoryEntry is one stored preference of a wallet ("slippage" → "0.5%").
type MemoryEntry struct {
	Key       string    `json:"key"`
	Value     string    `json:"value"`
	UpdatedAt time.Time `json:"updatedAt"`
}

// MemoryStore keeps each wallet's memory entries. Every method is safe for concurrent use.
// agenttest.Run is the conformance suite.
type MemoryStore interface {
	// Memories returns all of a wallet's entries ordered by key; none is an empty slice.
	Memories(ctx context.Context, wallet common.Address) ([]MemoryEntry, error)
	// PutMemory creates or replaces an entry. Creating one when the wallet already holds
	// p.MaxEntries fails with curvekit.ErrLimited (counted atomically with the write);
	// replacing an existing key always succeeds.
	PutMemory(ctx context.Context, p *PutMemoryParams) error
	// DeleteMemory removes one entry; curvekit.ErrNotFound when the wallet has no such key.
	DeleteMemory(ctx context.Context, wallet common.Address, key string) error
}

// PutMemoryParams is an entry to write.
type PutMemoryParams struct {
	Wallet     common.Address
	Key        string
	Value      string
	At         time.Time
	MaxEntries int // 0 is no cap
}
