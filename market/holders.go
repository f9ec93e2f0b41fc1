package market

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"sort"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/holiman/uint256"

	"github.com/curvekit/curvekit"
)

// Holding is a holder's balance of a token, exact in base units, as of the last Transfer that
// moved it (Block). Mints (from the zero address) and burns (to it) move only the other side,
// as the token's balanceOf counts them.
type Holding struct {
	Token, Holder common.Address
	Balance       uint256.Int
	Block         uint64
}

// HolderKey names a (token, holder) pair.
type HolderKey struct {
	Token, Holder common.Address
}

// HolderQuery selects a page of a token's holders, largest first.
type HolderQuery struct {
	Token  common.Address
	Cursor string // opaque, from a previous page
	Limit  int    // see DefaultLimit and MaxLimit
}

// HolderPage is one page of holders and the cursor of the next, empty at the end.
type HolderPage struct {
	Holders []Holding
	Next    string
}

// HolderSummary is how a token's supply is spread.
type HolderSummary struct {
	// Holders counts the addresses with a positive balance.
	Holders int
	// Top10 sums the ten largest balances, the curve's and the pool's excluded.
	Top10 uint256.Int
}

// BurnAddress is where tokens are sent to be put out of reach without burning them: the
// conventional 0x…dEaD. Tokens burned with burn() leave the supply instead and are nobody's.
var BurnAddress = common.HexToAddress("0x000000000000000000000000000000000000dEaD")

// transferKinds are the events fetchTransfers reads from the tokens.
var transferKinds = []EventKind{EventTransfer}

// fetchTransfers reads the Transfers of every known token and of those launched in [from, to]
// (a token mints its supply in its launch block).
func (ix *Indexer) fetchTransfers(ctx context.Context, from, to uint64, fresh map[common.Address]*Token) ([]Event, error) {
	tokens := make([]common.Address, 0, len(ix.tokens)+len(fresh))
	for a := range ix.tokens {
		tokens = append(tokens, a)
	}
	for a := range fresh {
		if _, ok := ix.tokens[a]; !ok {
			tokens = append(tokens, a)
		}
	}
	if len(tokens) == 0 {
		return nil, nil
	}
	evs, err := ix.cfg.Chain.Events(ctx, EventQuery{From: from, To: to, Kinds: transferKinds, Addresses: tokens})
	if err != nil {
		return nil, fmt.Errorf("market: read transfers: %w", err)
	}
	return evs, nil
}

// holdings folds the batch's Transfers into the balances after it: the stored balance of every
// pair they move plus what it received less what it sent. A pair that would send more than it
// holds means the store missed a Transfer; the batch fails rather than store a wrong balance.
func (ix *Indexer) holdings(ctx context.Context, events []Event, fresh map[common.Address]*Token) ([]Holding, error) {
	type flow struct {
		in, out uint256.Int
		block   uint64
	}
	flows := make(map[HolderKey]*flow)
	var keys []HolderKey
	move := func(k HolderKey, v *uint256.Int, in bool, block uint64) error {
		f, ok := flows[k]
		if !ok {
			f = &flow{}
			flows[k] = f
			keys = append(keys, k)
		}
		sum := &f.out
		if in {
			sum = &f.in
		}
		if _, over := sum.AddOverflow(sum, v); over {
			return fmt.Errorf("market: transfers of %s to or from %s overflow", k.Token, k.Holder)
		}
		f.block = block
		return nil
	}
	for i := range events {
		ev := &events[i]
		if ev.Kind != EventTransfer {
			continue
		}
		if _, ok := ix.tokens[ev.Address]; !ok {
			if _, ok := fresh[ev.Address]; !ok {
				continue
			}
		}
		tr := ev.Transfer
		if tr.From != (common.Address{}) {
			if err := move(HolderKey{ev.Address, tr.From}, &tr.Value, false, ev.Block); err != nil {
				return nil, err
			}
		}
		if tr.To != (common.Address{}) {
			if err := move(HolderKey{ev.Address, tr.To}, &tr.Value, true, ev.Block); err != nil {
				return nil, err
			}
		}
	}
	if len(keys) == 0 {
		return nil, nil
	}
	stored, err := ix.cfg.Store.Balances(ctx, keys)
	if err != nil {
		return nil, fmt.Errorf("market: read balances: %w", err)
	}
	out := make([]Holding, 0, len(keys))
	for _, k := range keys {
		f := flows[k]
		bal := stored[k]
		if _, over := bal.AddOverflow(&bal, &f.in); over || bal.Lt(&f.out) {
			return nil, fmt.Errorf("market: %w: %s sends more %s than the store says it holds", curvekit.ErrInvalid, k.Holder, k.Token)
		}
		bal.Sub(&bal, &f.out)
		out = append(out, Holding{Token: k.Token, Holder: k.Holder, Balance: bal, Block: f.block})
	}
	sort.Slice(out, func(i, j int) bool {
		if c := out[i].Token.Cmp(out[j].Token); c != 0 {
			return c < 0
		}
		return out[i].Holder.Cmp(out[j].Holder) < 0
	})
	return out, nil
}

// holdingsAt reads from the chain, as of block to, the balances of the pairs a Transfer moved
// after it: what a rollback to that block restores.
func (ix *Indexer) holdingsAt(ctx context.Context, to Cursor) ([]Holding, error) {
	keys, err := ix.cfg.Store.HoldersChanged(ctx, to.Block)
	if err != nil {
		return nil, fmt.Errorf("market: read changed holders: %w", err)
	}
	byToken := make(map[common.Address][]common.Address)
	var tokens []common.Address
	for _, k := range keys {
		if t, ok := ix.tokens[k.Token]; !ok || t.LaunchBlock > to.Block {
			continue
		}
		if _, ok := byToken[k.Token]; !ok {
			tokens = append(tokens, k.Token)
		}
		byToken[k.Token] = append(byToken[k.Token], k.Holder)
	}
	var out []Holding
	for _, tok := range tokens {
		holders := byToken[tok]
		bals, err := ix.cfg.Chain.BalancesAt(ctx, tok, holders, to.Block)
		if err != nil {
			return nil, fmt.Errorf("market: read balances of %s at block %d: %w", tok, to.Block, err)
		}
		if len(bals) != len(holders) {
			return nil, errors.New("market: the chain returned balances for other holders than asked")
		}
		for i, h := range holders {
			out = append(out, Holding{Token: tok, Holder: h, Balance: bals[i], Block: to.Block})
		}
	}
	return out, nil
}

// Label says what a holder is, where the market knows: the token's curve or pool, the burn
// address, its creator, or a sniper (bought in the launch block or within the service's
// SniperWindow of it). Empty when none applies; the first that applies wins, in that order.
type Label string

const (
	LabelCurve   Label = "curve"
	LabelPool    Label = "pool"
	LabelBurn    Label = "burn"
	LabelCreator Label = "creator"
	LabelSniper  Label = "sniper"
)

// DefaultSniperWindow is how long after its launch block a buyer of a token counts as a sniper,
// unless ServiceConfig.SniperWindow says otherwise.
const DefaultSniperWindow = 5 * time.Second

// Holder is a holding with its share of the token's current supply (a display value, 0.25 =
// 25%) and its label.
type Holder struct {
	Holding
	Share float64
	Label Label
}

// HoldersPage is a page of a token's holders, largest first.
type HoldersPage struct {
	Token   Token
	Holders []Holder
	Next    string
}

// Concentration is how a token's supply is spread: filled into the token view and the stats.
type Concentration struct {
	// Holders counts the addresses with a positive balance.
	Holders int
	// Top10Share is the share of the supply the ten largest holders hold, the curve and the
	// pool excluded; CreatorShare the creator's share, and CreatorBalance its balance.
	Top10Share     float64
	CreatorShare   float64
	CreatorBalance uint256.Int
}

// Holders returns a page of a token's holders, largest first, labelled; an unknown token is
// curvekit.ErrNotFound.
func (s *Service) Holders(ctx context.Context, q HolderQuery) (HoldersPage, error) {
	t, err := s.token(ctx, q.Token)
	if err != nil {
		return HoldersPage{}, err
	}
	page, err := s.cfg.Store.Holders(ctx, q)
	if err != nil {
		return HoldersPage{}, err
	}
	snipers, err := s.snipers(ctx, &t)
	if err != nil {
		return HoldersPage{}, err
	}
	out := HoldersPage{Token: t, Holders: make([]Holder, len(page.Holders)), Next: page.Next}
	for i, h := range page.Holders {
		out.Holders[i] = Holder{Holding: h, Share: share(&h.Balance, &t.TotalSupply), Label: labelOf(&t, h.Holder, snipers)}
	}
	return out, nil
}

// snipers are the recipients of the token's buys in its launch block and the SniperWindow after
// it, from the cache when there is one.
func (s *Service) snipers(ctx context.Context, t *Token) (map[common.Address]bool, error) {
	var gen uint64
	if s.cache != nil {
		set, ok, g := s.cache.snipers(t.Address)
		if ok {
			return set, nil
		}
		gen = g
	}
	end := t.CreatedAt + int64(s.cfg.SniperWindow/time.Second)
	// The buyers of the window, forward from the launch: the trade before the window, which a
	// range read also finds (walking back through a busy launch's first minute), is not needed,
	// nor any trade's other fields.
	buyers, err := s.cfg.Store.Buyers(ctx, ForwardQuery{Token: t.Address, From: t.CreatedAt, To: end + 1})
	if err != nil {
		return nil, err
	}
	out := make(map[common.Address]bool, len(buyers))
	for _, a := range buyers {
		out[a] = true
	}
	if s.cache != nil {
		s.cache.fillSnipers(t.Address, out, end, gen)
	}
	return out, nil
}

func labelOf(t *Token, holder common.Address, snipers map[common.Address]bool) Label {
	switch {
	case holder == t.Curve:
		return LabelCurve
	case holder == t.Pool && t.Pool != (common.Address{}):
		return LabelPool
	case holder == BurnAddress:
		return LabelBurn
	case holder == t.Creator:
		return LabelCreator
	case snipers[holder]:
		return LabelSniper
	}
	return ""
}

// share is part/whole as a display value; 0 for an empty whole.
func share(part, whole *uint256.Int) float64 {
	if whole.IsZero() {
		return 0
	}
	p, _ := new(big.Float).SetInt(part.ToBig()).Float64()
	w, _ := new(big.Float).SetInt(whole.ToBig()).Float64()
	return p / w
}

// concentration reads how t's supply is spread.
func (s *Service) concentration(ctx context.Context, t *Token) (Concentration, error) {
	sum, err := s.cfg.Store.HolderSummary(ctx, t.Address)
	if err != nil {
		return Concentration{}, err
	}
	creator := HolderKey{Token: t.Address, Holder: t.Creator}
	bal, err := s.cfg.Store.Balances(ctx, []HolderKey{creator})
	if err != nil {
		return Concentration{}, err
	}
	c := Concentration{Holders: sum.Holders, Top10Share: share(&sum.Top10, &t.TotalSupply), CreatorBalance: bal[creator]}
	c.CreatorShare = share(&c.CreatorBalance, &t.TotalSupply)
	return c, nil
}
