package markettest

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/holiman/uint256"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/curve"
	"github.com/curvekit/curvekit/market"
)

// now is the clock of the suite: the end of the 24h volume window.
const now int64 = 1_800_000_000

// Kinds keep the fixture addresses and hashes of different roles apart.
const (
	kindToken byte = iota + 1
	kindCurve
	kindCreator
	kindTrader
	kindPool
	kindTx
	kindBlock
	kindQuote
)

func address(kind byte, n int) common.Address {
	var a common.Address
	a[0] = kind
	binary.BigEndian.PutUint64(a[12:], uint64(n))
	return a
}

func hash(kind byte, n int) common.Hash {
	var h common.Hash
	h[0] = kind
	binary.BigEndian.PutUint64(h[24:], uint64(n))
	return h
}

// units returns n whole units of an 18-decimal asset.
func units(n uint64) uint256.Int {
	var z uint256.Int
	z.Mul(uint256.NewInt(n), uint256.NewInt(1e18))
	return z
}

func maxUint256() uint256.Int {
	var z uint256.Int
	z.SetAllOne()
	return z
}

// pow2 returns 2^n.
func pow2(n uint) uint256.Int {
	var z uint256.Int
	z.Lsh(uint256.NewInt(1), n)
	return z
}

// newToken returns token n at launch: default parameters, launched at block 1000+n/2 (two
// launches share each block, the even one at log index 9, the odd one at 3), ETH-paired.
func newToken(t *testing.T, n int) market.Token {
	t.Helper()
	p, err := curve.DefaultParams(18)
	if err != nil {
		t.Fatal(err)
	}
	return market.Token{
		Address:     address(kindToken, n),
		Curve:       address(kindCurve, n),
		Creator:     address(kindCreator, n%5),
		Quote:       market.Asset{Symbol: "ETH", Decimals: 18},
		Name:        fmt.Sprintf("Token %d", n),
		Symbol:      fmt.Sprintf("TK%d", n),
		URI:         fmt.Sprintf("ipfs://token-%d", n),
		Decimals:    18,
		TotalSupply: p.TokenSupply,
		Params:      p,
		State:       p.Initial(),
		LaunchBlock: 1000 + uint64(n/2),
		LaunchTx:    hash(kindTx, 1_000_000+n),
		LaunchLog:   uint(9 - 6*(n%2)),
		CreatedAt:   now - 30*86400 + int64(n)*12,
	}
}

// traded moves a curve token to the state after rQ whole units were bought, as the curve
// would: vQ = vQ0+rQ, vT = vQ0*vT0/vQ.
func traded(tok market.Token, rQ uint64, at int64) market.Token {
	rq := units(rQ)
	tok.State.RealQuote = rq
	tok.State.VirtualQuote.Add(&tok.Params.VirtualQuote0, &rq)
	var k uint256.Int
	k.Mul(&tok.Params.VirtualQuote0, &tok.Params.VirtualToken0)
	tok.State.VirtualToken.Div(&k, &tok.State.VirtualQuote)
	sold := new(uint256.Int).Sub(&tok.Params.VirtualToken0, &tok.State.VirtualToken)
	tok.State.RealToken.Sub(&tok.Params.RealToken0, sold)
	tok.LastTradeAt = at
	return tok
}

// graduated moves a token to the pool with the given reserves in whole units.
func graduated(tok market.Token, poolQuote, poolToken uint64, at int64) market.Token {
	tok.State.Graduated = true
	tok.State.RealQuote.Clear()
	tok.State.RealToken.Clear()
	tok.Pool = address(kindPool, int(binary.BigEndian.Uint64(tok.Address[12:])))
	tok.PoolFeeBps = curve.DefaultPoolFeeBps
	tok.PoolReserveQuote = units(poolQuote)
	tok.PoolReserveToken = units(poolToken)
	tok.LastTradeAt = at
	return tok
}

// tradeSeq numbers fixture trades so that each has its own transaction hash.
type tradeSeq struct{ n int }

// trade returns a trade of tok with every field set; quote is the pairing-asset amount.
func (q *tradeSeq) trade(tok common.Address, block uint64, logIndex uint, at int64, side curvekit.Side, quote uint256.Int) market.Trade {
	q.n++
	var tokens, fee, creatorFee, price uint256.Int
	tokens.Mul(&quote, uint256.NewInt(1000))
	tokens.AddUint64(&tokens, 7)
	fee.Div(&quote, uint256.NewInt(100))
	creatorFee.Div(&fee, uint256.NewInt(2))
	price.SetUint64(uint64(q.n)*1_000_003 + 1)
	return market.Trade{
		Token:        tok,
		Block:        block,
		BlockHash:    hash(kindBlock, int(block)),
		TxHash:       hash(kindTx, q.n),
		LogIndex:     logIndex,
		Time:         at,
		Trader:       address(kindTrader, q.n%7),
		Recipient:    address(kindTrader, q.n%7+100),
		Side:         side,
		Venue:        curvekit.VenueCurve,
		QuoteAmount:  quote,
		TokenAmount:  tokens,
		Fee:          fee,
		CreatorFee:   creatorFee,
		Refund:       *uint256.NewInt(uint64(q.n % 3)),
		Price:        price,
		ReserveQuote: units(30 + uint64(q.n)),
		ReserveToken: units(1_000_000_000 - uint64(q.n)),
	}
}

var cmpOpts = []cmp.Option{cmpopts.EquateEmpty()}

func apply(t *testing.T, s market.Store, b *market.Batch) {
	t.Helper()
	if err := s.Apply(context.Background(), b); err != nil {
		t.Fatalf("Apply: %v", err)
	}
}

func mustToken(t *testing.T, s market.Store, addr common.Address) market.Token {
	t.Helper()
	tok, err := s.Token(context.Background(), addr)
	if err != nil {
		t.Fatalf("Token(%s): %v", addr, err)
	}
	return tok
}

// walkTokens follows q's pages to the end and returns the tokens in order. It fails on a page
// larger than the limit, a repeated token, or a walk that does not end.
func walkTokens(t *testing.T, s market.Store, q market.TokenQuery) []market.Token {
	t.Helper()
	var all []market.Token
	seen := make(map[common.Address]bool)
	for pages := 0; ; pages++ {
		if pages > 1000 {
			t.Fatalf("walk %+v does not end", q)
		}
		page, err := s.Tokens(context.Background(), q)
		if err != nil {
			t.Fatalf("Tokens(%+v): %v", q, err)
		}
		if q.Limit > 0 && len(page.Tokens) > q.Limit {
			t.Fatalf("Tokens(%+v) returned %d tokens, above the limit", q, len(page.Tokens))
		}
		for _, tok := range page.Tokens {
			if seen[tok.Address] {
				t.Fatalf("walk %+v returned %s twice", q, tok.Address)
			}
			seen[tok.Address] = true
		}
		all = append(all, page.Tokens...)
		if page.Next == "" {
			return all
		}
		if len(page.Tokens) == 0 {
			t.Fatalf("Tokens(%+v) returned an empty page with a next cursor", q)
		}
		q.Cursor = page.Next
	}
}

// walkTrades follows a token's trade pages to the end.
func walkTrades(t *testing.T, s market.Store, q market.TradeQuery) []market.Trade {
	t.Helper()
	var all []market.Trade
	for pages := 0; ; pages++ {
		if pages > 1000 {
			t.Fatalf("walk %+v does not end", q)
		}
		page, err := s.Trades(context.Background(), q)
		if err != nil {
			t.Fatalf("Trades(%+v): %v", q, err)
		}
		if q.Limit > 0 && len(page.Trades) > q.Limit {
			t.Fatalf("Trades(%+v) returned %d trades, above the limit", q, len(page.Trades))
		}
		all = append(all, page.Trades...)
		if page.Next == "" {
			return all
		}
		if len(page.Trades) == 0 {
			t.Fatalf("Trades(%+v) returned an empty page with a next cursor", q)
		}
		q.Cursor = page.Next
	}
}

func addresses(toks []market.Token) []common.Address {
	out := make([]common.Address, len(toks))
	for i := range toks {
		out[i] = toks[i].Address
	}
	return out
}

func wantErr(t *testing.T, what string, err, target error) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Fatalf("%s: got error %v, want %v", what, err, target)
	}
}

var (
	errInvalid  = curvekit.ErrInvalid
	errNotFound = curvekit.ErrNotFound
)
