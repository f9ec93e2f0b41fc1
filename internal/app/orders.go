package app

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"slices"

	"github.com/ethereum/go-ethereum/common"
	"github.com/holiman/uint256"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/auth"
	"github.com/curvekit/curvekit/market"
	"github.com/curvekit/curvekit/orders"
	"github.com/curvekit/curvekit/txbuild"
	"github.com/curvekit/curvekit/wallet"
)

// wireOrders builds the orders service (what the account places, lists and cancels) and the
// engine that fires them: fed by the indexer's leader, each commit in order (one observer) and
// the clock (Serve runs it).
func (a *App) wireOrders(context.Context) error {
	var err error
	a.Orders, err = orders.NewService(orders.Config{
		Store: a.DB.Orders(), Tokens: a.Store,
		MaxPrice: a.Config.MaxPriceOrders, MaxTimed: a.Config.MaxTimeOrders, Notifier: a.sources(),
	})
	if err != nil {
		return err
	}
	a.OrderEngine, err = orders.NewEngine(orders.EngineConfig{
		Store: a.DB.Orders(), Tokens: a.Store, History: market.History{Store: a.Store}, Trader: &orderTrader{app: a},
		Notifier: a.sources(), Now: a.ordersClock, Pauses: walletPauses{a},
		Logger: a.Log.With("component", "orders"), Fault: a.faultHook(),
	})
	if err != nil {
		return err
	}
	a.observers = append(a.observers, func(s market.Sync) {
		if term, ok := a.leading(); ok {
			if err := a.OrderEngine.Sync(context.Background(), term, s); err != nil {
				a.Log.Warn("orders: evaluating a sync", "err", err)
			}
		}
	})
	return nil
}

// walletPauses reads the pause switch of an account's settings, which the wallet's guard applies:
// the engine holds a paused account's price orders until it reads false.
type walletPauses struct{ a *App }

func (p walletPauses) Paused(ctx context.Context, accountID string) (bool, error) {
	if p.a.Settings == nil {
		return false, nil
	}
	st, err := p.a.Settings.Settings(ctx, accountID)
	if err != nil {
		return false, err
	}
	return st.Wallet.Paused, nil
}

// leading reports whether this replica leads the indexer, and its term.
func (a *App) leading() (uint64, bool) {
	st := a.Replica.Status()
	return st.Term, st.Leading
}

// orderTrader sends a fire's trade: built by the market at the quote now (curve or pool, as the
// token trades now) and sent through the custodial wallet's sign-and-submit, so every check of
// it applies. The fire's id is the idempotency key; its request hash is fixed by the key alone,
// because a retry builds the trade again at a newer quote and must still be answered with the
// first transaction.
type orderTrader struct {
	app *App
	// built, when set, is called between a fire's build and its send (tests move the chain
	// there).
	built func()
}

func (t *orderTrader) Trade(ctx context.Context, p orders.TradeParams) (orders.TradeResult, error) {
	a := t.app
	// A trade sent by an earlier attempt (a leader that stopped before recording it) is the
	// answer, whatever the chain shows now: the approval it used up is not asked for again.
	if sub, ok, err := a.Wallets.Sent(ctx, p.AccountID, p.Key); err != nil {
		return orders.TradeResult{}, fmt.Errorf("%w: the fire's earlier transaction: %w", curvekit.ErrUnavailable, err)
	} else if ok {
		return t.traded(ctx, p, sub)
	}
	allowed, err := t.placer(ctx, p)
	if err != nil {
		return orders.TradeResult{}, err
	}
	tok, err := a.Store.Token(ctx, p.Token)
	if err != nil {
		return orders.TradeResult{}, err
	}
	amount := p.Amount
	if p.PercentBps > 0 {
		bal, err := a.Chain.Balance(ctx, p.Token, p.Wallet)
		if err != nil {
			return orders.TradeResult{}, fmt.Errorf("%w: the wallet's token balance: %w", curvekit.ErrUnavailable, err)
		}
		amount.Mul(&bal, uint256.NewInt(uint64(p.PercentBps)))
		amount.Div(&amount, uint256.NewInt(10_000))
	}
	if amount.IsZero() {
		return orders.TradeResult{}, fmt.Errorf("%w: nothing to trade: the wallet holds none of the token", curvekit.ErrInvalid)
	}
	decimals := tok.Decimals
	if p.Side == curvekit.Buy {
		decimals = tok.Quote.Decimals
	}
	built, err := a.Market.BuildTx(ctx, p.Token, market.BuildRequest{
		Side: p.Side, Amount: curvekit.FormatAmount(&amount, decimals), SlippageBps: uint16(p.SlippageBps),
		Wallet: p.Wallet, Recipient: p.Wallet,
	})
	if errors.Is(err, market.ErrGraduating) {
		return orders.TradeResult{}, fmt.Errorf("%w: %w", curvekit.ErrUnavailable, err)
	}
	if err != nil {
		return orders.TradeResult{}, err
	}
	if t.built != nil {
		t.built()
	}
	send := func(tx *txbuild.Tx, key string) (wallet.Submission, error) {
		wtx := wallet.Tx{To: tx.To, Data: tx.Data, Value: tx.Value, ChainID: tx.ChainID, Gas: tx.Gas}
		if err := wallet.CheckRecipients(p.Wallet, allowed, &wtx); err != nil {
			return wallet.Submission{}, fmt.Errorf("%w: %w", orders.ErrPlacerGone, err)
		}
		hash := sha256.Sum256([]byte("curvekit order fire\x00" + key))
		return a.Wallets.SignAndSubmit(ctx, wallet.SignParams{AccountID: p.AccountID, Tx: wtx, AllowedRecipients: allowed,
			IdempotencyKey: key, RequestHash: hash[:], Actor: "order fire " + p.Key})
	}
	if ap := built.Plan.Approval; ap != nil {
		// The market read the wallet's allowance on chain and it falls short: the approval
		// goes first, once per spender (the curve, or the router once the token graduated);
		// the trade waits for it to be mined (a later tick builds again and finds the
		// allowance).
		sub, err := send(ap, orders.ApproveKey(p.Key, built.Plan.Tx.To))
		if err != nil {
			return orders.TradeResult{}, err
		}
		return orders.TradeResult{Pending: true, Txs: []orders.FireTx{{Kind: orders.TxApprove, Hash: sub.Hash}}}, nil
	}
	sub, err := send(&built.Plan.Tx, p.Key)
	if err != nil {
		if built.Quote.Venue == curvekit.VenueCurve && curvekit.CodeOf(err) == curvekit.CodeSimulationReverted {
			if grad, gerr := a.Market.GraduatedNow(ctx, p.Token); gerr == nil && grad {
				// The curve graduated between the build and the send: nothing was signed, and
				// the fire is built again against the pool once the indexer has seen it.
				return orders.TradeResult{}, fmt.Errorf("%w: the curve graduated while the fire was built: %w", curvekit.ErrUnavailable, err)
			}
		}
		return orders.TradeResult{}, err
	}
	return t.traded(ctx, p, sub)
}

// traded answers the fire's trade sub with the fire's transactions: the approval it sent to the
// trade's spender first, if any, then the trade.
func (t *orderTrader) traded(ctx context.Context, p orders.TradeParams, sub wallet.Submission) (orders.TradeResult, error) {
	res := orders.TradeResult{TxHash: sub.Hash}
	ap, ok, err := t.app.Wallets.Sent(ctx, p.AccountID, orders.ApproveKey(p.Key, sub.To))
	if err != nil {
		t.app.Log.Warn("orders: the approval of a fire", "fire", p.Key, "err", err)
	} else if ok {
		res.Txs = append(res.Txs, orders.FireTx{Kind: orders.TxApprove, Hash: ap.Hash})
	}
	res.Txs = append(res.Txs, orders.FireTx{Kind: orders.TxTrade, Hash: sub.Hash})
	return res, nil
}

// indexedTrade is the trade of transaction hash among the token's latest indexed trades (a few
// pages, newest first: a fire's trade was mined moments ago), or nil.
func (t *orderTrader) indexedTrade(ctx context.Context, token common.Address, hash common.Hash) (*market.Trade, error) {
	q := market.TradeQuery{Token: token, Limit: market.MaxLimit}
	for range 5 {
		page, err := t.app.Store.Trades(ctx, q)
		if err != nil {
			return nil, err
		}
		for i := range page.Trades {
			if page.Trades[i].TxHash == hash {
				return &page.Trades[i], nil
			}
		}
		if page.Next == "" {
			break
		}
		q.Cursor = page.Next
	}
	return nil, nil
}

// placer applies the restrictions of the API key that placed the order as they are now: a key
// revoked since (or gone) refuses with KEY_REVOKED, one made read-only with READ_ONLY_KEY, both
// as orders.ErrPlacerGone; otherwise it answers the key's allowedRecipients, which every
// transaction of the fire must pass. Its allowedIps bind requests, and a fire is none. An order
// a session placed has no key to check.
func (t *orderTrader) placer(ctx context.Context, p orders.TradeParams) ([]common.Address, error) {
	if p.KeyID == "" {
		return nil, nil
	}
	keys, err := t.app.DB.Accounts().Keys(ctx, p.AccountID)
	if err != nil {
		return nil, fmt.Errorf("%w: the key that placed the order: %w", curvekit.ErrUnavailable, err)
	}
	i := slices.IndexFunc(keys, func(k auth.Key) bool { return k.ID == p.KeyID })
	switch {
	case i < 0 || !keys[i].RevokedAt.IsZero():
		return nil, fmt.Errorf("%w: %w", orders.ErrPlacerGone, curvekit.WithCode(codeKeyRevoked,
			fmt.Errorf("%w: the API key %s that placed this order was revoked", curvekit.ErrForbidden, p.KeyID)))
	case keys[i].ReadOnly:
		return nil, fmt.Errorf("%w: %w", orders.ErrPlacerGone, curvekit.WithCode(curvekit.CodeReadOnlyKey,
			fmt.Errorf("%w: the API key %s that placed this order is read-only now", curvekit.ErrForbidden, p.KeyID)))
	}
	return keys[i].AllowedRecipients, nil
}

// codeKeyRevoked is a fire's code when the key that placed its order was revoked: a fire's
// codes are the refusal codes and these of its own (see docs/API.md, Firing).
const codeKeyRevoked curvekit.Code = "KEY_REVOKED"

// Outcome finds the transaction among the wallet's recent ones by any of its hashes; once mined,
// its trade among the token's latest indexed trades.
func (t *orderTrader) Outcome(ctx context.Context, p orders.OutcomeParams) (orders.Outcome, error) {
	page, err := t.app.Wallets.Transactions(ctx, p.AccountID, "", wallet.MaxTransactions)
	if err != nil {
		return orders.Outcome{}, err
	}
	for _, tx := range page.Transactions {
		if !slices.Contains(tx.Hashes, p.Hash) {
			continue
		}
		switch tx.State {
		case wallet.TxMined:
			out := orders.Outcome{State: "mined", Hash: tx.Hash}
			if p.Token != (common.Address{}) {
				out.Trade, err = t.indexedTrade(ctx, p.Token, tx.Hash)
			}
			return out, err
		case wallet.TxFailed:
			out := orders.Outcome{State: "reverted", Hash: tx.Hash}
			out.Graduated, err = t.revertedOnAGraduatedCurve(ctx, p.Token, &tx)
			return out, err
		case wallet.TxDropped:
			return orders.Outcome{State: "dropped", Hash: tx.Hash}, nil
		}
		return orders.Outcome{}, nil
	}
	return orders.Outcome{}, nil
}

// revertedOnAGraduatedCurve reports whether tx, which reverted, traded on token's curve, which
// has graduated since: the venue moved under the trade.
func (t *orderTrader) revertedOnAGraduatedCurve(ctx context.Context, token common.Address, tx *wallet.Transaction) (bool, error) {
	if token == (common.Address{}) {
		return false, nil
	}
	tok, err := t.app.Store.Token(ctx, token)
	if err != nil || tx.To != tok.Curve {
		return false, err
	}
	return t.app.Market.GraduatedNow(ctx, token)
}
