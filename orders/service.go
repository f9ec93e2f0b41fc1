package orders

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/holiman/uint256"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/market"
)

// Default limits per wallet, as the peers set them (Bankr: 50 price orders, 20 DCA/TWAP).
const (
	DefaultMaxPrice = 50
	DefaultMaxTimed = 20
	// MaxPage is the most orders one page lists.
	MaxPage = 100
)

// Tokens reads a token's latest state: market.Store and market.Service's store do. It returns
// curvekit.ErrNotFound for a token never launched.
type Tokens interface {
	Token(ctx context.Context, addr common.Address) (market.Token, error)
}

// Config configures a Service.
type Config struct {
	Store  Store
	Tokens Tokens
	// MaxPrice and MaxTimed are how many live price orders (limit, stop-loss, take-profit,
	// trailing-stop) and time orders (dca, twap) a wallet may have; defaults 50 and 20.
	MaxPrice, MaxTimed int
	// Now is the clock; default time.Now.
	Now func() time.Time
	// Notifier, when set, builds the events of a cancellation, which the store records with it
	// (the engine's Notifier).
	Notifier Notifier
}

// Service places, lists and cancels an account's orders. The Engine fires them.
type Service struct{ cfg Config }

// NewService returns a Service for cfg.
func NewService(cfg Config) (*Service, error) {
	if cfg.Store == nil || cfg.Tokens == nil {
		return nil, errors.New("orders: a Store and Tokens are required")
	}
	if cfg.MaxPrice == 0 {
		cfg.MaxPrice = DefaultMaxPrice
	}
	if cfg.MaxTimed == 0 {
		cfg.MaxTimed = DefaultMaxTimed
	}
	if cfg.MaxPrice < 0 || cfg.MaxTimed < 0 {
		return nil, fmt.Errorf("orders: limits %d and %d must not be negative", cfg.MaxPrice, cfg.MaxTimed)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Service{cfg: cfg}, nil
}

// Limits are the per-wallet limits in force.
func (s *Service) Limits() (price, timed int) { return s.cfg.MaxPrice, s.cfg.MaxTimed }

// PlaceParams places an order for the account's wallet; the caller passes the wallet of its
// principal, never one from the request.
type PlaceParams struct {
	AccountID string
	// KeyID is the API key that places the order; empty for a session.
	KeyID   string
	Wallet  common.Address
	Request Request
}

// Place validates the request (curvekit.Problems listing every failing field), checks the token
// exists (curvekit.ErrNotFound) and stores the order open, unless the wallet has as many live
// orders of its class as the limit allows (curvekit.ErrLimited). A trailing stop's high starts
// at the token's price now.
func (s *Service) Place(ctx context.Context, p PlaceParams) (Order, error) {
	if p.AccountID == "" || p.Wallet == (common.Address{}) {
		return Order{}, fmt.Errorf("%w: this account has no custodial wallet", curvekit.ErrNotFound)
	}
	var m *Market
	var tok market.Token
	if addr, err := p.Request.TokenAddress(); err == nil {
		tok, err = s.cfg.Tokens.Token(ctx, addr)
		switch {
		case err == nil:
			m = &Market{Decimals: tok.Decimals, Quote: tok.Quote.Address, QuoteDecimals: tok.Quote.Decimals}
		case !errors.Is(err, curvekit.ErrNotFound):
			return Order{}, err
		}
	}
	o, err := p.Request.Order(m, s.cfg.Now().UTC())
	if err != nil {
		return Order{}, err
	}
	o.ID, o.AccountID, o.KeyID, o.Wallet = "ord_"+randomID(), p.AccountID, p.KeyID, p.Wallet
	if o.Kind == TrailingStop {
		o.High = TokenPrice(&tok)
	}
	max := s.cfg.MaxPrice
	if o.Kind.Timed() {
		max = s.cfg.MaxTimed
	}
	if err := s.cfg.Store.CreateOrder(ctx, CreateParams{Order: o, Max: max}); err != nil {
		if errors.Is(err, curvekit.ErrLimited) {
			return Order{}, fmt.Errorf("%w: a wallet may have %d open %s orders; cancel one first", curvekit.ErrLimited, max, o.Class())
		}
		return Order{}, err
	}
	o.Fires = []Fire{}
	return o, nil
}

// Order returns the account's order with its fires, or curvekit.ErrNotFound.
func (s *Service) Order(ctx context.Context, accountID, id string) (Order, error) {
	if !validID(id) {
		return Order{}, fmt.Errorf("%w: order not found", curvekit.ErrNotFound)
	}
	return s.cfg.Store.Order(ctx, accountID, id)
}

// Orders pages the account's orders newest first.
func (s *Service) Orders(ctx context.Context, q Query) (Page, error) {
	if q.Limit <= 0 || q.Limit > MaxPage {
		q.Limit = MaxPage
	}
	return s.cfg.Store.Orders(ctx, q)
}

// WalletOrders returns a wallet's live orders, newest first, those on token only when it is
// set: what the agent reads for its owner.
func (s *Service) WalletOrders(ctx context.Context, wallet, token common.Address) ([]Order, error) {
	if wallet == (common.Address{}) {
		return nil, fmt.Errorf("%w: this account has no custodial wallet", curvekit.ErrNotFound)
	}
	var live []Order
	q := Query{Wallet: wallet, Token: token, Limit: MaxPage}
	for range 10 { // at most the limits' worth of pages
		page, err := s.cfg.Store.Orders(ctx, q)
		if err != nil {
			return nil, err
		}
		for _, o := range page.Orders {
			if o.State.Live() {
				live = append(live, o)
			}
		}
		if page.Next == "" {
			break
		}
		q.Cursor = page.Next
	}
	return live, nil
}

// Cancel cancels the account's live order: nothing more of it fires (a fire already sent stays
// on chain). An order that ended is curvekit.ErrConflict.
func (s *Service) Cancel(ctx context.Context, accountID, id string) (Order, error) {
	if !validID(id) {
		return Order{}, fmt.Errorf("%w: order not found", curvekit.ErrNotFound)
	}
	p := CancelParams{AccountID: accountID, ID: id, At: s.cfg.Now().UTC()}
	if n := s.cfg.Notifier; n != nil {
		p.Events = n.OrderEvents
	}
	o, err := s.cfg.Store.CancelOrder(ctx, p)
	if err == nil && s.cfg.Notifier != nil {
		s.cfg.Notifier.Committed()
	}
	return o, err
}

// validID reports whether id can be an order's id (ord_ and 32 hex digits), so that anything
// else is not found without a store lookup.
func validID(id string) bool {
	if len(id) != 36 || id[:4] != "ord_" {
		return false
	}
	_, err := hex.DecodeString(id[4:])
	return err == nil
}

// TokenPrice is the token's price now, scaled like Order.Price: the curve's virtual reserves,
// or the pool's once it graduated.
func TokenPrice(t *market.Token) uint256.Int {
	if t.State.Graduated {
		return SpotPrice(&t.PoolReserveQuote, &t.PoolReserveToken, t.Decimals)
	}
	return SpotPrice(&t.State.VirtualQuote, &t.State.VirtualToken, t.Decimals)
}

func randomID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // never fails (crypto/rand)
	return hex.EncodeToString(b[:])
}
