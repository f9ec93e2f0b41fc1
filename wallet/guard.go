package wallet

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/holiman/uint256"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/account"
	"github.com/curvekit/curvekit/txbuild"
)

// Guard is the account's layer of the signing policy: the account's settings as they apply now,
// and its activity log, where every refusal is recorded. internal/app implements it over the
// account service.
type Guard interface {
	// Rules returns the account's settings as the guard applies them now.
	Rules(ctx context.Context, accountID string) (account.Rules, error)
	// RecordRefusal appends a refusal to the account's activity log.
	RecordRefusal(ctx context.Context, accountID string, actor account.Actor, code curvekit.Code, message string) error
}

// Markets tells the guard the markets it prices trades on, from the state the indexer holds.
type Markets interface {
	// MarketOf returns the market of the indexed token whose token or curve address is addr;
	// curvekit.ErrNotFound for any other address.
	MarketOf(ctx context.Context, addr common.Address) (txbuild.Market, error)
}

// Spend is what a transaction moves out of the wallet in one asset.
type Spend struct {
	// Asset is the ERC-20's address; the zero address is ETH.
	Asset  common.Address
	Amount uint256.Int
	// CheckOnly spends are held to the caps but not recorded: an approval to a trading venue,
	// which moves the asset only when this wallet calls it, and that call is counted.
	CheckOnly bool
}

// SpendQuota is a transaction's spends and the account's daily caps, which the Store checks and
// records with the nonce reservation.
type SpendQuota struct {
	// TxID is the id of the transaction record the spends belong to: settling it failed or
	// dropped releases them.
	TxID   string
	Spends []Spend
	// Daily are the daily caps by asset; an asset without one is recorded, not capped.
	Daily map[common.Address]*uint256.Int
	// caps are the account's caps, to word a refusal.
	caps map[common.Address]account.Cap
	// Since is where the rolling 24 hours begin; At is when the spends are recorded.
	Since, At time.Time
}

// SpendLimitError is the Store's refusal of spends that would pass a daily cap: Spent of Asset
// already left in the window, Amount more would pass Cap.
type SpendLimitError struct {
	Asset              common.Address
	Spent, Amount, Cap uint256.Int
}

func (e *SpendLimitError) Error() string {
	return fmt.Sprintf("%v: daily cap of %s exceeded", curvekit.ErrLimited, e.Asset.Hex())
}

func (e *SpendLimitError) Unwrap() error { return curvekit.ErrLimited }

// DailyWindow is the span of a daily cap: a rolling 24 hours.
const DailyWindow = 24 * time.Hour

// reading is a transaction as the guard reads it.
type reading struct {
	spends []Spend
	// trade is set for a trade on a curve or pool: its quote (the price impact) and token.
	trade      *txbuild.Quote
	tradeToken common.Address
	// recipients are the addresses outside the wallet and the trading venues that receive
	// value, tokens or an allowance.
	recipients []Beneficiary
}

// errCannotPrice is a trade the guard finds no market for.
var errCannotPrice = errors.New("cannot price the trade")

// read decodes tx into what leaves the wallet, the trade it makes and who receives.
func (s *Service) read(ctx context.Context, self common.Address, tx *Tx) (reading, error) {
	var rd reading
	if !tx.Value.IsZero() {
		rd.spends = append(rd.spends, Spend{Amount: tx.Value})
	}
	call, args, err := readCall(tx.To, tx.Data)
	if err != nil {
		return rd, err
	}
	venue := func(a common.Address) bool {
		if a == s.cfg.Router || a == s.cfg.Factory || a == s.cfg.WETH {
			return a != (common.Address{})
		}
		m, err := s.cfg.Markets.MarketOf(ctx, a)
		return err == nil && m.Curve == a
	}
	// The called contract receives the value sent with it: a recipient unless it is a venue.
	if len(tx.Data) == 0 || (!tx.Value.IsZero() && !venue(tx.To)) {
		if tx.To != self {
			rd.recipients = append(rd.recipients, call.Beneficiaries[0])
		}
	}
	for _, b := range call.Beneficiaries[1:] {
		if b.Address != self && !venue(b.Address) {
			rd.recipients = append(rd.recipients, b)
		}
	}
	amount := func(i int) uint256.Int {
		v, _ := uint256.FromBig(args[i].(*big.Int)) // uint256 arguments fit
		return *v
	}
	switch call.Method {
	case "buy", "sell":
		m, err := s.curveMarket(ctx, tx.To)
		if err != nil {
			return rd, err
		}
		in := amount(0)
		side := curvekit.Sell
		if call.Method == "buy" {
			side = curvekit.Buy
			if m.Quote != (common.Address{}) {
				rd.spends = append(rd.spends, Spend{Asset: m.Quote, Amount: in})
			}
		}
		return rd, rd.price(&m, side, &in)
	case "launch":
		if quote := args[3].(common.Address); quote != (common.Address{}) {
			rd.spends = append(rd.spends, Spend{Asset: quote, Amount: amount(4)})
		}
	case "swapExactETHForTokens", "swapExactTokensForETH", "swapExactTokensForTokens":
		var path []common.Address
		in := tx.Value
		if call.Method == "swapExactETHForTokens" {
			path = args[1].([]common.Address)
		} else {
			// (amountIn, amountOutMin, path, to, deadline)
			path, in = args[2].([]common.Address), amount(0)
			if len(path) > 0 {
				rd.spends = append(rd.spends, Spend{Asset: path[0], Amount: in})
			}
		}
		if len(path) < 2 {
			return rd, fmt.Errorf("%w: a swap path of %d", errCannotPrice, len(path))
		}
		if m, err := s.cfg.Markets.MarketOf(ctx, path[len(path)-1]); err == nil && m.Token == path[len(path)-1] {
			return rd, rd.price(&m, curvekit.Buy, &in)
		}
		if m, err := s.cfg.Markets.MarketOf(ctx, path[0]); err == nil && m.Token == path[0] {
			return rd, rd.price(&m, curvekit.Sell, &in)
		}
		return rd, fmt.Errorf("%w: no token of the swap's path is indexed", errCannotPrice)
	case "approve":
		spender := args[0].(common.Address)
		rd.spends = append(rd.spends, Spend{Asset: tx.To, Amount: amount(1), CheckOnly: spender == self || venue(spender)})
	case "transfer":
		rd.spends = append(rd.spends, Spend{Asset: tx.To, Amount: amount(1)})
	case "transferFrom":
		if args[0].(common.Address) == self {
			rd.spends = append(rd.spends, Spend{Asset: tx.To, Amount: amount(2)})
		}
	}
	return rd, nil
}

// curveMarket is the market whose curve is addr.
func (s *Service) curveMarket(ctx context.Context, addr common.Address) (txbuild.Market, error) {
	m, err := s.cfg.Markets.MarketOf(ctx, addr)
	if errors.Is(err, curvekit.ErrNotFound) || (err == nil && m.Curve != addr) {
		return txbuild.Market{}, fmt.Errorf("%w: %s is not the curve of an indexed token", errCannotPrice, addr.Hex())
	}
	return m, err
}

// price quotes the trade on m, the same math as GET /tokens/:address/quote.
func (rd *reading) price(m *txbuild.Market, side curvekit.Side, in *uint256.Int) error {
	q, err := txbuild.QuoteTrade(m, side, in)
	if err != nil {
		return fmt.Errorf("%w: %v", errCannotPrice, err)
	}
	rd.trade, rd.tradeToken = &q, m.Token
	return nil
}

// guard applies the account's settings to p before anything is unsealed, and returns the spends to
// check against the daily caps and record with the nonce. Without a Guard it only records nothing.
func (s *Service) guard(ctx context.Context, self common.Address, p *SignParams) (*SpendQuota, error) {
	if s.cfg.Guard == nil {
		return nil, nil
	}
	rules, err := s.cfg.Guard.Rules(ctx, p.AccountID)
	if err != nil {
		return nil, fmt.Errorf("wallet: account settings: %w", err)
	}
	if rules.Paused {
		return nil, refuse(curvekit.CodeWalletPaused, curvekit.ErrForbidden, "this account's wallet is paused: it signs nothing until the account's settings resume it")
	}
	now := s.cfg.Now()
	rd, err := s.read(ctx, self, &p.Tx)
	switch {
	case errors.Is(err, ErrNotUnderstood):
		if len(rules.Caps) > 0 || rules.Recipients != nil {
			return nil, refuse(curvekit.CodeCallNotUnderstood, curvekit.ErrForbidden,
				"this account caps what its wallet spends or whom it pays, so the wallet signs only calls curvekit can read; %v", err)
		}
		rd.recipients = nil // nothing more can be read; the value is still counted
	case errors.Is(err, errCannotPrice):
		return nil, refuse(curvekit.CodeCallNotUnderstood, curvekit.ErrForbidden,
			"the price impact of this trade cannot be checked: %v", err)
	case err != nil:
		return nil, err
	}
	if rules.Recipients != nil {
		for _, b := range rd.recipients {
			active, ok := rules.Recipients[b.Address]
			switch {
			case !ok:
				return nil, refuse(curvekit.CodeRecipientNotAllowed, curvekit.ErrForbidden,
					"%s (%s) is not among this account's recipients", b.Address.Hex(), roleOf(b))
			case now.Before(active):
				return nil, refuse(curvekit.CodeRecipientCoolingDown, curvekit.ErrForbidden,
					"%s (%s) was added to this account's recipients recently: it may receive from %s", b.Address.Hex(), roleOf(b), active.UTC().Format(time.RFC3339))
			}
		}
	}
	for _, sp := range rd.spends {
		if c, ok := rules.Caps[sp.Asset]; ok && c.PerTransaction != nil && sp.Amount.Gt(c.PerTransaction) {
			return nil, refuse(curvekit.CodePerTxLimitExceeded, curvekit.ErrForbidden,
				"this transaction moves %s out of the wallet, above this account's per-transaction cap of %s", c.Format(&sp.Amount), c.Format(c.PerTransaction))
		}
	}
	if rd.trade != nil && rd.trade.ImpactBps > rules.MaxPriceImpactBps {
		return nil, refuse(curvekit.CodePriceImpactTooHigh, curvekit.ErrForbidden,
			"this trade moves the price of %s by %s%%, above this account's cap of %s%%", rd.tradeToken.Hex(),
			account.Percent(min(rd.trade.ImpactBps, 10000)), account.Percent(rules.MaxPriceImpactBps))
	}
	q := &SpendQuota{Spends: rd.spends, Daily: map[common.Address]*uint256.Int{}, Since: now.Add(-DailyWindow).UTC(), At: now.UTC(), caps: rules.Caps}
	for a, c := range rules.Caps {
		if c.Daily != nil {
			q.Daily[a] = c.Daily
		}
	}
	return q, nil
}

// refuse is a refusal of the guard with its code.
func refuse(code curvekit.Code, sentinel error, format string, args ...any) error {
	return curvekit.WithCode(code, fmt.Errorf("%w: %s", sentinel, fmt.Sprintf(format, args...)))
}

func roleOf(b Beneficiary) string {
	if b.Role == "to" {
		return "the transaction's recipient"
	}
	return b.Role
}

// spendRefused is the client's answer to spends over a daily cap.
func (q *SpendQuota) refused(e *SpendLimitError) error {
	c, ok := q.caps[e.Asset]
	if !ok {
		c = account.Cap{Symbol: e.Asset.Hex()}
	}
	return refuse(curvekit.CodeDailyLimitExceeded, curvekit.ErrLimited,
		"%s left the wallet in the last 24 hours; this transaction's %s would pass this account's daily cap of %s",
		c.Format(&e.Spent), c.Format(&e.Amount), c.Format(&e.Cap))
}

// Check tells, for each of txs in order (sent one after another from the account's wallet), the
// refusal the account's guard would answer sending it now: the coded error SignAndSubmit would
// return (WALLET_PAUSED, PER_TX_LIMIT_EXCEEDED, DAILY_LIMIT_EXCEEDED, PRICE_IMPACT_TOO_HIGH,
// RECIPIENT_NOT_ALLOWED, RECIPIENT_COOLING_DOWN, CALL_NOT_UNDERSTOOD), or nil. A daily cap counts
// what left the wallet in the window and the earlier txs' spends. It signs, simulates and
// records nothing: a preview for a transaction being composed. Without a Guard every entry is
// nil; an account without a wallet is curvekit.ErrNotFound.
func (s *Service) Check(ctx context.Context, accountID string, txs []Tx) ([]error, error) {
	out := make([]error, len(txs))
	if s.cfg.Guard == nil {
		return out, nil
	}
	if err := checkAccount(accountID); err != nil {
		return nil, err
	}
	w, err := s.cfg.Store.WalletByAccount(ctx, accountID)
	if err != nil {
		return nil, err
	}
	var spent map[common.Address]uint256.Int
	for i := range txs {
		q, err := s.guard(ctx, w.Address, &SignParams{AccountID: accountID, Tx: txs[i]})
		if curvekit.CodeOf(err) != "" && !errors.Is(err, curvekit.ErrInvalid) {
			out[i] = err
			continue
		}
		if err != nil {
			return nil, err
		}
		if len(q.Daily) == 0 {
			continue
		}
		if spent == nil {
			if spent, err = s.cfg.Store.Spent(ctx, w.ID, q.Since); err != nil {
				return nil, fmt.Errorf("wallet: spent in the window: %w", err)
			}
		}
		out[i] = q.over(spent)
	}
	return out, nil
}

// over is the refusal of q's spends on top of spent, by asset, as the Store would refuse them at
// the nonce's reservation; nil when every daily cap holds, and then the spends that are recorded
// are added to spent.
func (q *SpendQuota) over(spent map[common.Address]uint256.Int) error {
	adding := map[common.Address]uint256.Int{}
	for _, sp := range q.Spends {
		sum := adding[sp.Asset]
		if _, overflow := sum.AddOverflow(&sum, &sp.Amount); overflow {
			sum.SetAllOne()
		}
		adding[sp.Asset] = sum
	}
	for asset, amount := range adding {
		limit := q.Daily[asset]
		if limit == nil {
			continue
		}
		have := spent[asset]
		total, overflow := new(uint256.Int).AddOverflow(&have, &amount)
		if overflow || total.Gt(limit) {
			return q.refused(&SpendLimitError{Asset: asset, Spent: have, Amount: amount, Cap: *limit})
		}
	}
	for _, sp := range q.Spends {
		if !sp.CheckOnly {
			sum := spent[sp.Asset]
			if _, overflow := sum.AddOverflow(&sum, &sp.Amount); overflow {
				sum.SetAllOne()
			}
			spent[sp.Asset] = sum
		}
	}
	return nil
}
