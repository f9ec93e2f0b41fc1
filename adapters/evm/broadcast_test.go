package evm_test

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/holiman/uint256"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/adapters/bunstore"
	"github.com/curvekit/curvekit/adapters/evm"
	"github.com/curvekit/curvekit/internal/pgtest"
	"github.com/curvekit/curvekit/market"
	"github.com/curvekit/curvekit/txbuild"
	"github.com/curvekit/curvekit/wallet"
)

// countingSigner counts the transactions that reach the signer.
type countingSigner struct {
	n atomic.Int64
}

func (c *countingSigner) SignTx(ctx context.Context, tx *types.Transaction, key *ecdsa.PrivateKey) (*types.Transaction, error) {
	c.n.Add(1)
	return wallet.ECDSASigner{}.SignTx(ctx, tx, key)
}

// countingKeys counts the data keys unwrapped: each is a wallet key about to be unsealed.
type countingKeys struct {
	wallet.KeyWrapper
	unwraps atomic.Int64
}

func (c *countingKeys) Unwrap(ctx context.Context, w wallet.Wrapped, ad []byte) ([]byte, error) {
	c.unwraps.Add(1)
	return c.KeyWrapper.Unwrap(ctx, w, ad)
}

// lockedBuffer collects log output from many goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// custodial is the devnet harness with a wallet service on SQLite, the master key in a file.
type custodial struct {
	*harness
	svc    *wallet.Service
	store  *bunstore.Wallets
	db     *bunstore.DB
	signer *countingSigner
	keys   *countingKeys
	logs   *lockedBuffer
	// keyFile is the master key file.
	keyFile string
}

func newCustodial(t testing.TB) *custodial {
	t.Helper()
	return newCustodialOn(t, "")
}

// newCustodialOn is newCustodial on the database dsn names ("" for a SQLite file).
func newCustodialOn(t testing.TB, dsn string) *custodial {
	t.Helper()
	h := newHarness(t)
	dir := t.TempDir()
	if dsn == "" {
		dsn = filepath.Join(dir, "curvekit.db")
	}
	db, err := bunstore.Open(h.ctx, bunstore.Config{DSN: dsn})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	logs := &lockedBuffer{}
	logger := slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	ring, err := wallet.OpenKeyring(wallet.KeyringConfig{File: filepath.Join(dir, "master.key"), Create: true, Logger: logger})
	if err != nil {
		t.Fatal(err)
	}
	bc, err := evm.NewBroadcaster(evm.BroadcastConfig{Client: h.dev.Client})
	if err != nil {
		t.Fatal(err)
	}
	c := &custodial{harness: h, store: db.Wallets(), db: db, signer: &countingSigner{}, keys: &countingKeys{KeyWrapper: ring}, logs: logs, keyFile: filepath.Join(dir, "master.key")}
	c.svc, err = wallet.New(wallet.Config{Store: c.store, Broadcaster: stale{bc}, Keys: c.keys, Signer: c.signer, Logger: logger})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func wei(eth float64) *big.Int {
	v, _ := new(big.Float).Mul(big.NewFloat(eth), big.NewFloat(1e18)).Int(nil)
	return v
}

// wallet creates the account's wallet and funds it from a devnet account.
func (c *custodial) wallet(account string, eth float64) common.Address {
	c.t.Helper()
	addr, err := c.svc.Create(c.ctx, account)
	if err != nil {
		c.t.Fatal(err)
	}
	if eth > 0 {
		if _, err := c.dev.Send(c.ctx, c.dev.Accounts[7].Key, &addr, wei(eth), nil); err != nil {
			c.t.Fatal(err)
		}
	}
	return addr
}

// mined mines until every hash has a receipt and returns them, failing on a revert.
func (c *custodial) mined(hashes ...common.Hash) []*types.Receipt {
	c.t.Helper()
	out := make([]*types.Receipt, len(hashes))
	for range 10 {
		c.dev.Mine()
		missing := 0
		for i, h := range hashes {
			if out[i] != nil {
				continue
			}
			r, err := c.chain.Receipt(c.ctx, h)
			if errors.Is(err, curvekit.ErrNotFound) {
				missing++
				continue
			}
			if err != nil {
				c.t.Fatal(err)
			}
			if r.Status != types.ReceiptStatusSuccessful {
				c.t.Fatalf("transaction %s reverted", h)
			}
			out[i] = r
		}
		if missing == 0 {
			return out
		}
	}
	c.t.Fatal("transactions still pending after 10 blocks")
	return nil
}

func (c *custodial) transfer(to common.Address, value uint64, gas uint64) wallet.Tx {
	var v uint256.Int
	v.SetUint64(value)
	return wallet.Tx{To: to, Value: v, ChainID: c.dev.ChainID.Uint64(), Gas: gas}
}

// Concurrent first sign-ins of one account end with one wallet, whose address every call returns.
func TestCustodialCreateOncePerAccount(t *testing.T) {
	t.Parallel()
	c := newCustodial(t)
	const n = 16
	addrs := make([]common.Address, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { addrs[i], errs[i] = c.svc.Create(c.ctx, "acct-race") })
	}
	wg.Wait()
	for i := range n {
		if errs[i] != nil || addrs[i] != addrs[0] {
			t.Fatalf("Create %d = %s, %v; first was %s", i, addrs[i], errs[i], addrs[0])
		}
	}
	if got, err := c.svc.Address(c.ctx, "acct-race"); err != nil || got != addrs[0] {
		t.Fatalf("Address = %s, %v; want %s", got, err, addrs[0])
	}
	if _, err := c.svc.Address(c.ctx, "acct-unknown"); !errors.Is(err, curvekit.ErrNotFound) {
		t.Fatalf("Address of an account without a wallet: %v, want ErrNotFound", err)
	}
	if _, err := c.svc.Create(c.ctx, ""); !errors.Is(err, curvekit.ErrInvalid) {
		t.Fatalf("Create without an account: %v, want ErrInvalid", err)
	}
}

// A buy built by txbuild, signed and sent by the custodial wallet, executes for the quoted amount.
func TestCustodialBuyExecutesForTheQuote(t *testing.T) {
	t.Parallel()
	c := newCustodial(t)
	addr := c.wallet("acct-buy", 5)
	if again, err := c.svc.Create(c.ctx, "acct-buy"); err != nil || again != addr {
		t.Fatalf("second Create = %s, %v; want %s", again, err, addr)
	}
	if got, err := c.svc.Address(c.ctx, "acct-buy"); err != nil || got != addr {
		t.Fatalf("Address = %s, %v; want %s", got, err, addr)
	}
	tk := c.dev.ETHToken
	m, err := c.chain.Market(c.ctx, tk.Token)
	if err != nil {
		t.Fatal(err)
	}
	var amount uint256.Int
	amount.SetFromBig(wei(0.2))
	q, plan, err := c.builder.Trade(&m, txbuild.Trade{Side: curvekit.Buy, Amount: amount, SlippageBps: 100, From: addr})
	if err != nil {
		t.Fatal(err)
	}
	if plan.Approval != nil {
		t.Fatal("an ETH-paired buy needs no approval")
	}
	before := c.balance(tk.Token, addr)
	sub, err := c.svc.SignAndSubmit(c.ctx, wallet.SignParams{
		AccountID: "acct-buy", AllowedRecipients: []common.Address{tk.Curve},
		Tx: wallet.Tx{To: plan.Tx.To, Data: plan.Tx.Data, Value: plan.Tx.Value, ChainID: plan.Tx.ChainID, Gas: plan.Tx.Gas},
	})
	if err != nil {
		t.Fatal(err)
	}
	if sub.From != addr || sub.To != tk.Curve || sub.Nonce != 0 || sub.ChainID != c.dev.ChainID.Uint64() || sub.Gas == 0 || sub.MaxFeePerGas.IsZero() || sub.Replayed {
		t.Fatalf("submission %+v", sub)
	}
	rcpt := c.mined(sub.Hash)[0]
	mined, _, err := c.dev.Client.TransactionByHash(c.ctx, sub.Hash)
	if err != nil {
		t.Fatal(err)
	}
	if *mined.To() != plan.Tx.To || !bytes.Equal(mined.Data(), plan.Tx.Data) || mined.Value().Cmp(plan.Tx.Value.ToBig()) != 0 || mined.Nonce() != 0 {
		t.Fatal("the mined transaction is not the built one")
	}
	after := c.balance(tk.Token, addr)
	var got uint256.Int
	got.Sub(&after, &before)
	eq(t, "tokens received", &got, &q.Out)
	evs := c.events(rcpt, []market.EventKind{market.EventTrade}, tk.Curve)
	if len(evs) != 1 || evs[0].Trade.Trader != addr {
		t.Fatalf("trade events %+v", evs)
	}
	eq(t, "trade event tokens", &evs[0].Trade.TokenAmount, &q.Out)
	if c.signer.n.Load() != 1 {
		t.Fatalf("signer reached %d times, want 1", c.signer.n.Load())
	}
}

// 30 submissions at once get 30 distinct nonces, and all of them mine, with the wallets in
// SQLite and in Postgres.
func TestCustodialConcurrentSubmissionsAllMine(t *testing.T) {
	t.Parallel()
	t.Run("sqlite", func(t *testing.T) {
		t.Parallel()
		testConcurrentSubmissions(t, newCustodial(t))
	})
	t.Run("postgres", func(t *testing.T) {
		t.Parallel()
		testConcurrentSubmissions(t, newCustodialOn(t, postgresSchema(t)))
	})
}

// postgresSchema is a schema of the test's own (see pgtest.Schema).
func postgresSchema(t testing.TB) string { return pgtest.Schema(t, "evm_wallet_test") }

func testConcurrentSubmissions(t *testing.T, c *custodial) {
	addr := c.wallet("acct-many", 1)
	to := c.dev.Accounts[6].Address
	before := c.balance(common.Address{}, to)
	const n = 30
	subs := make([]wallet.Submission, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			gas := uint64(21_000)
			if i%2 == 1 {
				gas = 0 // estimated
			}
			subs[i], errs[i] = c.svc.SignAndSubmit(c.ctx, wallet.SignParams{AccountID: "acct-many", Tx: c.transfer(to, uint64(i+1), gas)})
		})
	}
	wg.Wait()
	nonces := map[uint64]bool{}
	hashes := make([]common.Hash, n)
	var sum uint64
	for i := range n {
		if errs[i] != nil {
			t.Fatalf("submission %d: %v", i, errs[i])
		}
		if nonces[subs[i].Nonce] {
			t.Fatalf("nonce %d used twice", subs[i].Nonce)
		}
		nonces[subs[i].Nonce] = true
		hashes[i] = subs[i].Hash
		sum += uint64(i + 1)
	}
	for k := range uint64(n) {
		if !nonces[k] {
			t.Fatalf("nonce %d missing: nonces %v", k, nonces)
		}
	}
	c.mined(hashes...)
	if got, err := c.dev.Client.NonceAt(c.ctx, addr, nil); err != nil || got != n {
		t.Fatalf("wallet nonce on chain = %d, %v; want %d", got, err, n)
	}
	after := c.balance(common.Address{}, to)
	var got uint256.Int
	got.Sub(&after, &before)
	eq(t, "received", &got, uint256.NewInt(sum))
}

// Retries with one idempotency key send once, concurrent or not, and answer the first result;
// the key with another request is a conflict.
func TestCustodialIdempotencyKeySendsOnce(t *testing.T) {
	t.Parallel()
	c := newCustodial(t)
	addr := c.wallet("acct-idem", 1)
	to := c.dev.Accounts[5].Address
	before := c.balance(common.Address{}, to)
	p := wallet.SignParams{AccountID: "acct-idem", IdempotencyKey: "order-42", Tx: c.transfer(to, 1234, 21_000)}
	const n = 10
	subs := make([]wallet.Submission, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { subs[i], errs[i] = c.svc.SignAndSubmit(c.ctx, p) })
	}
	wg.Wait()
	fresh := 0
	for i := range n {
		if errs[i] != nil {
			t.Fatalf("retry %d: %v", i, errs[i])
		}
		if subs[i].Hash != subs[0].Hash {
			t.Fatalf("retries answered %s and %s", subs[0].Hash, subs[i].Hash)
		}
		if !subs[i].Replayed {
			fresh++
		}
	}
	if fresh != 1 || c.signer.n.Load() != 1 {
		t.Fatalf("%d fresh answers, signer reached %d times; want 1 and 1", fresh, c.signer.n.Load())
	}
	again, err := c.svc.SignAndSubmit(c.ctx, p)
	if err != nil || again.Hash != subs[0].Hash || !again.Replayed {
		t.Fatalf("later retry = %+v, %v", again, err)
	}
	other := p
	other.Tx = c.transfer(to, 99, 21_000)
	if _, err := c.svc.SignAndSubmit(c.ctx, other); !errors.Is(err, curvekit.ErrConflict) {
		t.Fatalf("same key, other request: %v, want ErrConflict", err)
	}
	// Another account may use the same key for its own request.
	c.wallet("acct-idem-2", 1)
	other.AccountID = "acct-idem-2"
	if sub, err := c.svc.SignAndSubmit(c.ctx, other); err != nil || sub.Replayed {
		t.Fatalf("same key, other account = %+v, %v", sub, err)
	}
	c.mined(subs[0].Hash)
	if got, err := c.dev.Client.NonceAt(c.ctx, addr, nil); err != nil || got != 1 {
		t.Fatalf("wallet nonce on chain = %d, %v; want 1 (sent once)", got, err)
	}
	after := c.balance(common.Address{}, to)
	var got uint256.Int
	got.Sub(&after, &before)
	eq(t, "received", &got, uint256.NewInt(1234+99))

	// A day later the key has expired: the same request is a new one and sends again.
	bc, err := evm.NewBroadcaster(evm.BroadcastConfig{Client: c.dev.Client})
	if err != nil {
		t.Fatal(err)
	}
	tomorrow, err := wallet.New(wallet.Config{Store: c.store, Broadcaster: bc, Keys: c.keys, Now: func() time.Time { return time.Now().Add(25 * time.Hour) }})
	if err != nil {
		t.Fatal(err)
	}
	next, err := tomorrow.SignAndSubmit(c.ctx, p)
	if err != nil || next.Replayed || next.Hash == subs[0].Hash || next.Nonce != 1 {
		t.Fatalf("the expired key's request = %+v, %v; want a new send with nonce 1", next, err)
	}
	c.mined(next.Hash)
}

// The read-only and recipient checks refuse inside the service, with the HTTP layer out of the
// way, before any key is unsealed or anything reaches the signer; so do the chain id and gas
// checks.
func TestCustodialRefusesBeforeTheKey(t *testing.T) {
	t.Parallel()
	c := newCustodial(t)
	c.wallet("acct-guard", 1)
	curveAddr := c.dev.ETHToken.Curve
	ok := c.transfer(curveAddr, 1, 100_000)
	for _, tt := range []struct {
		name string
		p    wallet.SignParams
		want error
		msg  string
	}{
		{"read-only key", wallet.SignParams{AccountID: "acct-guard", ReadOnly: true, Tx: ok}, curvekit.ErrForbidden, "read-only"},
		{"read-only key with the recipient allowed", wallet.SignParams{AccountID: "acct-guard", ReadOnly: true, AllowedRecipients: []common.Address{curveAddr}, Tx: ok}, curvekit.ErrForbidden, "read-only"},
		{"recipient not allowed", wallet.SignParams{AccountID: "acct-guard", AllowedRecipients: []common.Address{c.dev.Addrs.Router}, Tx: ok}, curvekit.ErrForbidden, "allowedRecipients"},
		{"other chain", wallet.SignParams{AccountID: "acct-guard", Tx: func() wallet.Tx { tx := ok; tx.ChainID = 1; return tx }()}, curvekit.ErrInvalid, "chain"},
		{"gas above the Osaka cap", wallet.SignParams{AccountID: "acct-guard", Tx: func() wallet.Tx { tx := ok; tx.Gas = wallet.MaxGas + 1; return tx }()}, curvekit.ErrInvalid, "gas"},
		{"no recipient", wallet.SignParams{AccountID: "acct-guard", Tx: func() wallet.Tx { tx := ok; tx.To = common.Address{}; return tx }()}, curvekit.ErrInvalid, "to"},
		{"no wallet", wallet.SignParams{AccountID: "acct-nobody", Tx: ok}, curvekit.ErrNotFound, "wallet"},
	} {
		_, err := c.svc.SignAndSubmit(c.ctx, tt.p)
		if !errors.Is(err, tt.want) || !strings.Contains(err.Error(), tt.msg) {
			t.Errorf("%s: %v, want %v mentioning %q", tt.name, err, tt.want, tt.msg)
		}
	}
	if s, u := c.signer.n.Load(), c.keys.unwraps.Load(); s != 0 || u != 0 {
		t.Fatalf("refused requests reached the signer %d times and unsealed %d keys", s, u)
	}
	// The control: an allowed recipient goes through to the signer.
	if _, err := c.svc.SignAndSubmit(c.ctx, wallet.SignParams{AccountID: "acct-guard", AllowedRecipients: []common.Address{c.dev.Addrs.Router, curveAddr}, Tx: c.transfer(c.dev.Accounts[4].Address, 1, 21_000)}); !errors.Is(err, curvekit.ErrForbidden) {
		t.Fatalf("recipient outside a two-entry allowlist: %v", err)
	}
	sub, err := c.svc.SignAndSubmit(c.ctx, wallet.SignParams{AccountID: "acct-guard", AllowedRecipients: []common.Address{c.dev.Addrs.Router, c.dev.Accounts[4].Address}, Tx: c.transfer(c.dev.Accounts[4].Address, 1, 21_000)})
	if err != nil || c.signer.n.Load() != 1 || c.keys.unwraps.Load() != 1 {
		t.Fatalf("allowed request = %+v, %v; signer %d, unwraps %d", sub, err, c.signer.n.Load(), c.keys.unwraps.Load())
	}
}

// A send the chain refuses gives its nonce back: the next one takes it and mines. A send from
// the wallet outside the service (after an export) moves the service past its nonce.
func TestCustodialFailedSendLosesNoNonce(t *testing.T) {
	t.Parallel()
	c := newCustodial(t)
	addr := c.wallet("acct-gap", 1)
	to := c.dev.Accounts[4].Address
	var tooMuch uint256.Int
	tooMuch.SetFromBig(wei(50))
	broke := wallet.Tx{To: to, Value: tooMuch, ChainID: c.dev.ChainID.Uint64(), Gas: 21_000}
	if _, err := c.svc.SignAndSubmit(c.ctx, wallet.SignParams{AccountID: "acct-gap", Tx: broke}); !errors.Is(err, curvekit.ErrInvalid) || !strings.Contains(err.Error(), "insufficient funds") {
		t.Fatalf("send beyond the balance: %v, want ErrInvalid (insufficient funds)", err)
	}
	if c.signer.n.Load() != 1 {
		t.Fatalf("the refused send was signed %d times, want 1", c.signer.n.Load())
	}
	// Estimation refuses it too, before signing.
	broke.Gas = 0
	if _, err := c.svc.SignAndSubmit(c.ctx, wallet.SignParams{AccountID: "acct-gap", Tx: broke}); !errors.Is(err, curvekit.ErrInvalid) {
		t.Fatalf("estimating a send beyond the balance: %v, want ErrInvalid", err)
	}
	sub, err := c.svc.SignAndSubmit(c.ctx, wallet.SignParams{AccountID: "acct-gap", Tx: c.transfer(to, 7, 21_000)})
	if err != nil || sub.Nonce != 0 {
		t.Fatalf("send after the refusal = nonce %d, %v; want nonce 0", sub.Nonce, err)
	}
	c.mined(sub.Hash)

	// The owner exports the key and sends from elsewhere: the service follows the chain.
	hexKey, err := c.svc.Export(c.ctx, "acct-gap", time.Now().Add(-time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	key, err := crypto.HexToECDSA(strings.TrimPrefix(hexKey, "0x"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.dev.Send(c.ctx, key, &to, big.NewInt(1), nil); err != nil {
		t.Fatal(err)
	}
	sub, err = c.svc.SignAndSubmit(c.ctx, wallet.SignParams{AccountID: "acct-gap", Tx: c.transfer(to, 8, 21_000)})
	if err != nil || sub.Nonce != 2 {
		t.Fatalf("send after an outside send = nonce %d, %v; want 2", sub.Nonce, err)
	}
	c.mined(sub.Hash)
	if got, err := c.dev.Client.NonceAt(c.ctx, addr, nil); err != nil || got != 3 {
		t.Fatalf("chain nonce %d, %v; want 3", got, err)
	}
}

// racingBroadcaster runs before once, just ahead of the first Send it forwards.
type racingBroadcaster struct {
	*evm.Broadcaster
	once   sync.Once
	before func()
}

func (r *racingBroadcaster) Send(ctx context.Context, tx *types.Transaction) error {
	r.once.Do(r.before)
	return r.Broadcaster.Send(ctx, tx)
}

// When another sender takes the wallet's nonce between the reservation and the send, the chain
// refuses the send as a used nonce and the service tries again with the next one.
func TestCustodialNonceTakenMeanwhileIsRetried(t *testing.T) {
	t.Parallel()
	c := newCustodial(t)
	addr := c.wallet("acct-race-nonce", 1)
	hexKey, err := c.svc.Export(c.ctx, "acct-race-nonce", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	key, err := crypto.HexToECDSA(strings.TrimPrefix(hexKey, "0x"))
	if err != nil {
		t.Fatal(err)
	}
	bc, err := evm.NewBroadcaster(evm.BroadcastConfig{Client: c.dev.Client})
	if err != nil {
		t.Fatal(err)
	}
	to := c.dev.Accounts[4].Address
	var outside common.Hash
	racing := &racingBroadcaster{Broadcaster: bc, before: func() {
		fees, err := bc.SuggestFees(c.ctx)
		if err != nil {
			t.Error(err)
			return
		}
		// Fees above the service's, so the service's transaction cannot replace it.
		tip := new(big.Int).Mul(fees.MaxPriorityFeePerGas, big.NewInt(3))
		tx, err := types.SignNewTx(key, types.LatestSignerForChainID(c.dev.ChainID), &types.DynamicFeeTx{
			ChainID: c.dev.ChainID, Nonce: 0, GasTipCap: tip, GasFeeCap: new(big.Int).Add(new(big.Int).Mul(fees.MaxFeePerGas, big.NewInt(3)), tip),
			Gas: 21_000, To: &to, Value: big.NewInt(1),
		})
		if err != nil {
			t.Error(err)
			return
		}
		outside = tx.Hash()
		if err := c.dev.Client.SendTransaction(c.ctx, tx); err != nil {
			t.Error(err)
		}
	}}
	svc, err := wallet.New(wallet.Config{Store: c.store, Broadcaster: racing, Keys: c.keys, Signer: c.signer})
	if err != nil {
		t.Fatal(err)
	}
	sub, err := svc.SignAndSubmit(c.ctx, wallet.SignParams{AccountID: "acct-race-nonce", Tx: c.transfer(to, 2, 21_000)})
	if err != nil || sub.Nonce != 1 {
		t.Fatalf("submission = nonce %d, %v; want nonce 1 after the outside send took 0", sub.Nonce, err)
	}
	if c.signer.n.Load() != 2 {
		t.Fatalf("signed %d times, want 2 (nonce 0 refused, nonce 1 sent)", c.signer.n.Load())
	}
	c.mined(outside, sub.Hash)
	if got, err := c.dev.Client.NonceAt(c.ctx, addr, nil); err != nil || got != 2 {
		t.Fatalf("chain nonce %d, %v; want 2", got, err)
	}
	// The node refused the send at nonce 0: it left no record. The one at nonce 1 is mined.
	if err := svc.TrackOnce(c.ctx); err != nil {
		t.Fatal(err)
	}
	if states := c.states(svc, "acct-race-nonce"); !maps.Equal(states, map[uint64]wallet.TxState{1: wallet.TxMined}) {
		t.Fatalf("states by nonce %v, want only nonce 1, mined", states)
	}
}

// states is the state of each of the account's recorded transactions, by nonce.
func (c *custodial) states(svc *wallet.Service, account string) map[uint64]wallet.TxState {
	c.t.Helper()
	page, err := svc.Transactions(c.ctx, account, "", 100)
	if err != nil {
		c.t.Fatal(err)
	}
	states := map[uint64]wallet.TxState{}
	for _, tx := range page.Transactions {
		states[tx.Nonce] = tx.State
	}
	return states
}

// A transaction is recorded before it is sent. While its sender waits for the node, blocks go
// by and another replica's tracker runs: it must leave the transaction alone. Were it to send
// it again under the same nonce, the first send would be refused and retried under the next
// nonce, and the wallet would pay twice.
func TestCustodialTrackerLeavesATransactionItsSenderHolds(t *testing.T) {
	t.Parallel()
	c := newCustodial(t)
	c.wallet("acct-slow-send", 1)
	c.mined()
	bc, err := evm.NewBroadcaster(evm.BroadcastConfig{Client: c.dev.Client})
	if err != nil {
		t.Fatal(err)
	}
	cfg := wallet.Config{Store: c.store, Broadcaster: bc, Keys: c.keys, Signer: c.signer, ReplaceAfter: 1, Replica: "replica-b"}
	tracker, err := wallet.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	slow := &racingBroadcaster{Broadcaster: bc, before: func() {
		for range 3 {
			c.dev.Mine()
			if err := tracker.TrackOnce(c.ctx); err != nil {
				t.Error(err)
			}
		}
	}}
	cfg.Broadcaster, cfg.Replica = slow, "replica-a"
	sender, err := wallet.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	to := c.dev.Accounts[4].Address
	before, err := c.dev.Client.BalanceAt(c.ctx, to, nil)
	if err != nil {
		t.Fatal(err)
	}
	sub, err := sender.SignAndSubmit(c.ctx, wallet.SignParams{AccountID: "acct-slow-send", Tx: c.transfer(to, 7, 21_000)})
	if err != nil || sub.Nonce != 0 {
		t.Fatalf("submission = nonce %d, %v; want nonce 0", sub.Nonce, err)
	}
	c.mined(sub.Hash)
	if err := tracker.TrackOnce(c.ctx); err != nil {
		t.Fatal(err)
	}
	after, err := c.dev.Client.BalanceAt(c.ctx, to, nil)
	if err != nil {
		t.Fatal(err)
	}
	if paid := new(big.Int).Sub(after, before); paid.Cmp(big.NewInt(7)) != 0 {
		t.Fatalf("the recipient received %s wei, want 7: paid once", paid)
	}
	if states := c.states(tracker, "acct-slow-send"); !maps.Equal(states, map[uint64]wallet.TxState{0: wallet.TxMined}) {
		t.Fatalf("states by nonce %v, want only nonce 0, mined", states)
	}
	if n := c.signer.n.Load(); n != 1 {
		t.Fatalf("signed %d times, want 1", n)
	}
}

// lowFees prices the first sends at a quarter of the next base fee, so they wait in the pool
// unmined (empty blocks lower the base fee by an eighth at most); after them it asks the node.
type lowFees struct {
	*evm.Broadcaster
	low atomic.Int64
}

func (l *lowFees) SuggestFees(ctx context.Context) (wallet.Fees, error) {
	fees, err := l.Broadcaster.SuggestFees(ctx)
	if err != nil || l.low.Add(-1) < 0 {
		return fees, err
	}
	feeCap := new(big.Int).Quo(fees.BaseFee, big.NewInt(4))
	return wallet.Fees{MaxFeePerGas: feeCap, MaxPriorityFeePerGas: new(big.Int).Quo(feeCap, big.NewInt(2))}, nil
}

// A transaction priced under the base fee is not mined; once it has waited ReplaceAfter blocks
// the tracker sends it again with the same nonce and fees bumped, and the replacement is mined:
// one record, state mined, two hashes. The tracker that replaces it is another Service on the
// same store, as after a restart or on another replica, and a third one racing it does nothing.
func TestCustodialUnderpricedTransactionIsReplaced(t *testing.T) {
	t.Parallel()
	c := newCustodial(t)
	addr := c.wallet("acct-slow", 1)
	c.mined()
	bc, err := evm.NewBroadcaster(evm.BroadcastConfig{Client: c.dev.Client})
	if err != nil {
		t.Fatal(err)
	}
	low := &lowFees{Broadcaster: bc}
	low.low.Store(1)
	cfg := wallet.Config{Store: c.store, Broadcaster: low, Keys: c.keys, Signer: c.signer, ReplaceAfter: 2, MaxFeePerGas: big.NewInt(50_000_000_000)}
	sender, err := wallet.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	to := c.dev.Accounts[4].Address
	sub, err := sender.SignAndSubmit(c.ctx, wallet.SignParams{AccountID: "acct-slow", Tx: c.transfer(to, 5, 21_000)})
	if err != nil {
		t.Fatal(err)
	}
	trackers := make([]*wallet.Service, 2)
	for i := range trackers {
		cfg.Replica = fmt.Sprint("replica-", i)
		if trackers[i], err = wallet.New(cfg); err != nil {
			t.Fatal(err)
		}
	}
	only := func() wallet.Transaction {
		t.Helper()
		page, err := trackers[0].Transactions(c.ctx, "acct-slow", "", 10)
		if err != nil || len(page.Transactions) != 1 {
			t.Fatalf("Transactions = %d, %v; want one record", len(page.Transactions), err)
		}
		return page.Transactions[0]
	}
	// Not mined, and not replaced before ReplaceAfter blocks.
	c.dev.Mine()
	if err := trackers[0].TrackOnce(c.ctx); err != nil {
		t.Fatal(err)
	}
	if got := only(); got.State != wallet.TxPending || len(got.Hashes) != 1 || got.Hash != sub.Hash {
		t.Fatalf("after one block: %s with %d hashes, want pending with the first", got.State, len(got.Hashes))
	}
	c.dev.Mine()
	c.dev.Mine()
	var wg sync.WaitGroup
	for _, tr := range trackers {
		wg.Go(func() {
			if err := tr.TrackOnce(c.ctx); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	replaced := only()
	if replaced.State != wallet.TxReplaced || len(replaced.Hashes) != 2 || replaced.Hashes[0] != sub.Hash || replaced.Hash != replaced.Hashes[1] {
		t.Fatalf("after ReplaceAfter blocks: %s, hashes %v; want replaced with two hashes", replaced.State, replaced.Hashes)
	}
	for _, f := range []struct{ old, now *big.Int }{{sub.MaxFeePerGas.ToBig(), replaced.Fees.MaxFeePerGas}, {sub.MaxPriorityFeePerGas.ToBig(), replaced.Fees.MaxPriorityFeePerGas}} {
		if min := new(big.Int).Quo(new(big.Int).Mul(f.old, big.NewInt(110)), big.NewInt(100)); f.now.Cmp(min) < 0 {
			t.Errorf("replacement fee %s, less than 110%% of %s", f.now, f.old)
		}
	}
	receipts := c.mined(replaced.Hash)
	if err := trackers[1].TrackOnce(c.ctx); err != nil {
		t.Fatal(err)
	}
	got := only()
	if got.State != wallet.TxMined || got.Hash != replaced.Hash || len(got.Hashes) != 2 || got.Block != receipts[0].BlockNumber.Uint64() {
		t.Fatalf("after mining: %s under %s in block %d; want mined under the replacement %s in block %d", got.State, got.Hash, got.Block, replaced.Hash, receipts[0].BlockNumber)
	}
	fee := got.FeePaid()
	if want := new(big.Int).Mul(new(big.Int).SetUint64(receipts[0].GasUsed), receipts[0].EffectiveGasPrice); fee.ToBig().Cmp(want) != 0 || got.GasUsed != 21_000 {
		t.Fatalf("fee paid %s, want %s", fee.Dec(), want)
	}
	if n, err := c.dev.Client.NonceAt(c.ctx, addr, nil); err != nil || n != 1 {
		t.Fatalf("chain nonce %d, %v; want 1: mined once", n, err)
	}
	if signed := c.signer.n.Load(); signed != 2 {
		t.Fatalf("signed %d times, want 2: the send and one replacement", signed)
	}
	// Nothing left to follow.
	if err := trackers[0].TrackOnce(c.ctx); err != nil {
		t.Fatal(err)
	}
	if again := only(); again.State != wallet.TxMined || len(again.Hashes) != 2 {
		t.Fatalf("a later round changed it: %+v", again)
	}
}

// Above the fee ceiling nothing is signed, and the error says why.
func TestCustodialFeeCeiling(t *testing.T) {
	t.Parallel()
	c := newCustodial(t)
	c.wallet("acct-ceiling", 1)
	c.mined()
	bc, err := evm.NewBroadcaster(evm.BroadcastConfig{Client: c.dev.Client})
	if err != nil {
		t.Fatal(err)
	}
	fees, err := bc.SuggestFees(c.ctx)
	if err != nil || fees.BaseFee == nil || fees.BaseFee.Sign() <= 0 || fees.MaxFeePerGas.Cmp(new(big.Int).Add(fees.BaseFee, fees.MaxPriorityFeePerGas)) <= 0 {
		t.Fatalf("SuggestFees = %+v, %v; want the next base fee and a cap above base fee plus tip", fees, err)
	}
	// The base fee alone is above this ceiling.
	svc, err := wallet.New(wallet.Config{Store: c.store, Broadcaster: bc, Keys: c.keys, Signer: c.signer, MaxFeePerGas: new(big.Int).Quo(fees.BaseFee, big.NewInt(2))})
	if err != nil {
		t.Fatal(err)
	}
	_, err = svc.SignAndSubmit(c.ctx, wallet.SignParams{AccountID: "acct-ceiling", Tx: c.transfer(c.dev.Accounts[4].Address, 5, 21_000)})
	if !errors.Is(err, wallet.ErrFeeCeiling) || !errors.Is(err, curvekit.ErrUnavailable) || !strings.Contains(err.Error(), "above this server's ceiling of") {
		t.Fatalf("send above the ceiling: %v, want ErrFeeCeiling", err)
	}
	if c.signer.n.Load() != 0 {
		t.Fatalf("signed %d times above the ceiling", c.signer.n.Load())
	}
}

// Export needs a recent sign-in, is audited, and the key never reaches the log.
func TestCustodialExport(t *testing.T) {
	t.Parallel()
	c := newCustodial(t)
	addr := c.wallet("acct-export", 0)
	if _, err := c.svc.Export(c.ctx, "acct-export", time.Now().Add(-16*time.Minute)); !errors.Is(err, curvekit.ErrForbidden) || !strings.Contains(err.Error(), "sign in again") {
		t.Fatalf("export 16 minutes after sign-in: %v, want ErrForbidden saying to sign in again", err)
	}
	if _, err := c.svc.Export(c.ctx, "acct-export", time.Time{}); !errors.Is(err, curvekit.ErrForbidden) {
		t.Fatalf("export without a sign-in time: %v", err)
	}
	if _, err := c.svc.Export(c.ctx, "acct-none", time.Now()); !errors.Is(err, curvekit.ErrNotFound) {
		t.Fatalf("export without a wallet: %v", err)
	}
	if got, err := c.store.Exports(c.ctx, "acct-export"); err != nil || len(got) != 0 {
		t.Fatalf("refused exports were audited: %v, %v", got, err)
	}
	signedIn := time.Now().Add(-14 * time.Minute)
	hexKey, err := c.svc.Export(c.ctx, "acct-export", signedIn)
	if err != nil {
		t.Fatal(err)
	}
	key, err := crypto.HexToECDSA(strings.TrimPrefix(hexKey, "0x"))
	if err != nil || crypto.PubkeyToAddress(key.PublicKey) != addr {
		t.Fatalf("exported key does not control %s (%v)", addr, err)
	}
	audit, err := c.store.Exports(c.ctx, "acct-export")
	if err != nil || len(audit) != 1 || audit[0].Address != addr || !audit[0].SignedInAt.Equal(signedIn) {
		t.Fatalf("audit = %+v, %v", audit, err)
	}
	// Everything the service logged during the test, failures included, holds no key.
	c.svc.SignAndSubmit(c.ctx, wallet.SignParams{AccountID: "acct-export", Tx: c.transfer(addr, 1, 21_000)})
	logs := strings.ToLower(c.logs.String())
	if !strings.Contains(logs, "master key file") {
		t.Fatalf("creating the master key file was not logged: %q", logs)
	}
	if strings.Contains(logs, strings.TrimPrefix(hexKey, "0x")) {
		t.Fatal("the private key appears in the log")
	}
}

// After a master key version is added, Rewrap moves a wallet onto it; the wallet still signs, and
// the old version can then be dropped.
func TestCustodialRewrap(t *testing.T) {
	t.Parallel()
	c := newCustodial(t)
	addr := c.wallet("acct-rotate", 1)
	before, err := c.store.WalletByAccount(c.ctx, "acct-rotate")
	if err != nil || before.KeyVersion != 1 {
		t.Fatalf("wallet version %d, %v; want 1", before.KeyVersion, err)
	}
	old, err := c.svc.Export(c.ctx, "acct-rotate", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	file, err := os.ReadFile(c.keyFile)
	if err != nil {
		t.Fatal(err)
	}
	v2 := "2:" + strings.Repeat("ab", 32)
	bc, err := evm.NewBroadcaster(evm.BroadcastConfig{Client: c.dev.Client})
	if err != nil {
		t.Fatal(err)
	}
	rotated, err := wallet.ParseKeyring(string(file) + v2)
	if err != nil {
		t.Fatal(err)
	}
	svc, err := wallet.New(wallet.Config{Store: c.store, Broadcaster: bc, Keys: rotated})
	if err != nil {
		t.Fatal(err)
	}
	if did, err := svc.Rewrap(c.ctx, "acct-rotate"); err != nil || !did {
		t.Fatalf("Rewrap = %v, %v; want done", did, err)
	}
	if did, err := svc.Rewrap(c.ctx, "acct-rotate"); err != nil || did {
		t.Fatalf("second Rewrap = %v, %v; want nothing to do", did, err)
	}
	after, err := c.store.WalletByAccount(c.ctx, "acct-rotate")
	if err != nil || after.KeyVersion != 2 || bytes.Equal(after.DataKey, before.DataKey) || after.Address != addr {
		t.Fatalf("after Rewrap: version %d, %v", after.KeyVersion, err)
	}
	// Only version 2 left in the keyring: the wallet opens and signs.
	onlyNew, err := wallet.ParseKeyring(v2)
	if err != nil {
		t.Fatal(err)
	}
	svc, err = wallet.New(wallet.Config{Store: c.store, Broadcaster: bc, Keys: onlyNew})
	if err != nil {
		t.Fatal(err)
	}
	if key, err := svc.Export(c.ctx, "acct-rotate", time.Now()); err != nil || key != old {
		t.Fatalf("export after rotation: %v (same key: %v)", err, key == old)
	}
	sub, err := svc.SignAndSubmit(c.ctx, wallet.SignParams{AccountID: "acct-rotate", Tx: c.transfer(c.dev.Accounts[4].Address, 1, 21_000)})
	if err != nil {
		t.Fatal(err)
	}
	c.mined(sub.Hash)
	// The first service, whose keyring lacks version 2, can no longer open it.
	if _, err := c.svc.Export(c.ctx, "acct-rotate", time.Now()); !errors.Is(err, wallet.ErrSealBroken) {
		t.Fatalf("export with the old keyring: %v, want ErrSealBroken", err)
	}
}

// BenchmarkCustodialSignAndSubmit measures one sign-and-submit on the devnet: nonce, fees,
// unsealing, signing, the store's reservation and the broadcast (mining excluded).
func BenchmarkCustodialSignAndSubmit(b *testing.B) {
	c := newCustodial(b)
	c.wallet("acct-bench", 1000)
	to := c.dev.Accounts[4].Address
	tx := c.transfer(to, 1, 21_000)
	b.ResetTimer()
	for i := range b.N {
		if _, err := c.svc.SignAndSubmit(c.ctx, wallet.SignParams{AccountID: "acct-bench", Tx: tx}); err != nil {
			b.Fatal(fmt.Errorf("op %d: %w", i, err))
		}
		if i%100 == 99 {
			b.StopTimer()
			c.dev.Mine()
			b.StartTimer()
		}
	}
}

// A transaction mined with status 0 is failed, its fee paid all the same.
func TestCustodialRevertedTransactionIsFailed(t *testing.T) {
	t.Parallel()
	c := newCustodial(t)
	c.wallet("acct-revert", 1)
	c.mined()
	// The gas is given, so nothing estimates (and refuses) the call that reverts.
	tx := wallet.Tx{To: c.dev.Addrs.Factory, Data: []byte{0xde, 0xad, 0xbe, 0xef}, ChainID: c.dev.ChainID.Uint64(), Gas: 100_000}
	sub, err := c.svc.SignAndSubmit(c.ctx, wallet.SignParams{AccountID: "acct-revert", Tx: tx})
	if err != nil {
		t.Fatal(err)
	}
	c.dev.Mine()
	if err := c.svc.TrackOnce(c.ctx); err != nil {
		t.Fatal(err)
	}
	page, err := c.svc.Transactions(c.ctx, "acct-revert", "", 10)
	if err != nil || len(page.Transactions) != 1 {
		t.Fatalf("Transactions = %+v, %v", page, err)
	}
	got := page.Transactions[0]
	if got.State != wallet.TxFailed || got.Hash != sub.Hash || got.GasUsed == 0 || got.GasPrice.IsZero() || got.Block == 0 {
		t.Fatalf("reverted transaction: %+v, want failed with its receipt", got)
	}
}

// A transaction sent before a restart is followed after it: the record, the nonce and the key
// are in the database and the key file, nothing in the process.
func TestCustodialTrackingSurvivesRestart(t *testing.T) {
	t.Parallel()
	c := newCustodial(t)
	dir := t.TempDir()
	open := func(underpriced int64) (*bunstore.DB, *wallet.Service) {
		db, err := bunstore.Open(c.ctx, bunstore.Config{DSN: filepath.Join(dir, "restart.db")})
		if err != nil {
			t.Fatal(err)
		}
		ring, err := wallet.OpenKeyring(wallet.KeyringConfig{File: filepath.Join(dir, "master.key"), Create: true})
		if err != nil {
			t.Fatal(err)
		}
		bc, err := evm.NewBroadcaster(evm.BroadcastConfig{Client: c.dev.Client})
		if err != nil {
			t.Fatal(err)
		}
		low := &lowFees{Broadcaster: bc}
		low.low.Store(underpriced)
		svc, err := wallet.New(wallet.Config{Store: db.Wallets(), Broadcaster: low, Keys: ring, ReplaceAfter: 1})
		if err != nil {
			t.Fatal(err)
		}
		return db, svc
	}
	db, before := open(1)
	addr, err := before.Create(c.ctx, "acct-restart")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.dev.Send(c.ctx, c.dev.Accounts[7].Key, &addr, wei(1), nil); err != nil {
		t.Fatal(err)
	}
	c.mined()
	sub, err := before.SignAndSubmit(c.ctx, wallet.SignParams{AccountID: "acct-restart", Tx: c.transfer(c.dev.Accounts[4].Address, 3, 21_000)})
	if err != nil {
		t.Fatal(err)
	}
	db.Close()

	db, after := open(0)
	defer db.Close()
	c.dev.Mine()
	if err := after.TrackOnce(c.ctx); err != nil {
		t.Fatal(err)
	}
	c.dev.Mine()
	if err := after.TrackOnce(c.ctx); err != nil {
		t.Fatal(err)
	}
	page, err := after.Transactions(c.ctx, "acct-restart", "", 10)
	if err != nil || len(page.Transactions) != 1 {
		t.Fatalf("Transactions = %+v, %v", page, err)
	}
	got := page.Transactions[0]
	if got.State != wallet.TxMined || len(got.Hashes) != 2 || got.Hashes[0] != sub.Hash || got.Hash != got.Hashes[1] {
		t.Fatalf("after the restart: %s under %s, hashes %v; want mined under the replacement", got.State, got.Hash, got.Hashes)
	}
	// The next send takes the next nonce.
	next, err := after.SignAndSubmit(c.ctx, wallet.SignParams{AccountID: "acct-restart", Tx: c.transfer(c.dev.Accounts[4].Address, 4, 21_000)})
	if err != nil || next.Nonce != 1 {
		t.Fatalf("send after the restart = nonce %d, %v; want 1", next.Nonce, err)
	}
}

// stale is the broadcaster with a simulation that saw the state before the chain moved: every
// transaction passes it. The wallet simulates before it signs, so a send the chain refuses or
// reverts needs this to reach the chain at all, as one does when the state changes between the
// simulation and the block.
type stale struct{ *evm.Broadcaster }

func (stale) Simulate(context.Context, common.Address, *wallet.Tx) (wallet.Simulation, error) {
	return wallet.Simulation{}, nil
}
