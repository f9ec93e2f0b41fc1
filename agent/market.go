package agent

import (
	"context"

	"github.com/ethereum/go-ethereum/common"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/market"
)

// Market is what the tools read and compose through; *market.Service implements it. Errors
// carry curvekit sentinels with client-safe messages (unknown token, invalid amount).
type Market interface {
	Token(ctx context.Context, addr common.Address) (market.View, error)
	Tokens(ctx context.Context, q market.TokenQuery) (market.ListPage, error)
	Quote(ctx context.Context, addr common.Address, side curvekit.Side, amount string) (market.QuoteResult, error)
	BuildTx(ctx context.Context, addr common.Address, r market.BuildRequest) (market.BuildResult, error)
	IssuesOf(ctx context.Context, p *market.IssuesParams) (market.Issues, error)
	Holders(ctx context.Context, q market.HolderQuery) (market.HoldersPage, error)
}

var _ Market = (*market.Service)(nil)
