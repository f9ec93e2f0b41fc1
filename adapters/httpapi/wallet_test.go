package httpapi

import (
	"context"
	"fmt"
	"log/slog"
	"math/big"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/curvekit/curvekit/adapters/bunstore"
	"github.com/curvekit/curvekit/adapters/evm"
	"github.com/curvekit/curvekit/adapters/evm/devnet"
	"github.com/curvekit/curvekit/auth"
	"github.com/curvekit/curvekit/market"
	"github.com/curvekit/curvekit/txbuild"
	"github.com/curvekit/curvekit/wallet"
)

// underpriced prices the first send at a quarter of the next base fee, so it waits unmined;
// after it, the node's price.
type underpriced struct {
	*evm.Broadcaster
	first atomic.Bool
}

func (u *underpriced) SuggestFees(ctx context.Context) (wallet.Fees, error) {
	fees, err := u.Broadcaster.SuggestFees(ctx)
	if err != nil || u.first.Swap(true) {
		return fees, err
	}
	feeCap := new(big.Int).Quo(fees.BaseFee, big.NewInt(4))
	return wallet.Fees{MaxFeePerGas: feeCap, MaxPriorityFeePerGas: new(big.Int).Quo(feeCap, big.NewInt(2))}, nil
}

type walletEnv struct {
	*testEnv
	dev    *devnet.Devnet
	svc    *wallet.Service
	wallet common.Address
}

// newWalletEnv is the API with custodial wallets on bunstore (SQLite) and the devnet, whose
// first send is underpriced; the trader's wallet holds 1 ETH, nobody has no wallet.
func newWalletEnv(t *testing.T) *walletEnv {
	t.Helper()
	ctx := context.Background()
	dev, err := devnet.Start(devnet.Config{Accounts: 4})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { dev.Close() })
	dir := t.TempDir()
	db, err := bunstore.Open(ctx, bunstore.Config{DSN: filepath.Join(dir, "wallets.db")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	quiet := slog.New(slog.DiscardHandler)
	ring, err := wallet.OpenKeyring(wallet.KeyringConfig{File: filepath.Join(dir, "master.key"), Create: true, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	bc, err := evm.NewBroadcaster(evm.BroadcastConfig{Client: dev.Client})
	if err != nil {
		t.Fatal(err)
	}
	svc, err := wallet.New(wallet.Config{Store: db.Wallets(), Broadcaster: &underpriced{Broadcaster: bc}, Keys: ring, ReplaceAfter: 2, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	addr, err := svc.Create(ctx, "acc-trader")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := dev.Send(ctx, dev.Accounts[1].Key, &addr, big.NewInt(1e18), nil); err != nil {
		t.Fatal(err)
	}
	dev.Mine()
	b, err := txbuild.New(txbuild.Config{ChainID: dev.ChainID.Uint64(), Factory: factoryAddr, Router: routerAddr, WETH: wethAddr})
	if err != nil {
		t.Fatal(err)
	}
	mkt, err := market.NewService(market.ServiceConfig{Store: newFakeStore(), Builder: b})
	if err != nil {
		t.Fatal(err)
	}
	nobody := common.HexToAddress("0x00000000000000000000000000000000000000d0")
	who := principals{
		traderKey:     {AccountID: "acc-trader", Wallet: addr, Kind: auth.KindKey, KeyID: "k1"},
		readOnlyKey:   {AccountID: "acc-trader", Wallet: addr, Kind: auth.KindKey, KeyID: "k2", ReadOnly: true},
		traderSession: {AccountID: "acc-trader", Wallet: addr, Kind: auth.KindSession, SessionID: "s1"},
		nobodyKey:     {AccountID: "acc-nobody", Wallet: nobody, Kind: auth.KindKey, KeyID: "k3"},
	}
	s, err := newServer(Config{
		Market: mkt, Wallet: svc, Auth: who, Limiter: newCountLimiter(), Policy: auth.DefaultPolicy(auth.Every(100_000, time.Minute)),
		Terms: fixedTerms{}, Settings: Settings{QuoteAssets: []market.Asset{{Symbol: "ETH", Decimals: 18}}}, Logger: quiet,
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s.Handler())
	t.Cleanup(srv.Close)
	return &walletEnv{testEnv: &testEnv{srv: srv}, dev: dev, svc: svc, wallet: addr}
}

// list is GET /wallet/transactions as the read-only key sees it.
func (e *walletEnv) list(t *testing.T, query string) walletTxListJSON {
	t.Helper()
	r := e.get(t, "/wallet/transactions"+query, "X-API-Key", readOnlyKey)
	if r.status != http.StatusOK {
		t.Fatalf("GET /wallet/transactions%s = %d %s", query, r.status, r.body)
	}
	var out walletTxListJSON
	r.decode(t, &out)
	return out
}

// A transfer sent underpriced is listed pending, then replaced (two hashes, higher fees), then
// mined under the replacement with its fee paid: one transaction throughout.
func TestWalletTransactionsReplacedThenMined(t *testing.T) {
	t.Parallel()
	e := newWalletEnv(t)
	ctx := context.Background()
	to := e.dev.Accounts[2].Address
	r := e.do(t, http.MethodPost, "/wallet/sign-and-submit", fmt.Sprintf(`{"to":%q,"value":"5","chainId":1337,"gas":"21000"}`, to.Hex()), "X-API-Key", traderKey)
	if r.status != http.StatusOK {
		t.Fatalf("sign-and-submit = %d %s", r.status, r.body)
	}
	var sub submissionJSON
	r.decode(t, &sub)

	pending := e.list(t, "")
	if len(pending.Transactions) != 1 || pending.NextCursor != nil {
		t.Fatalf("listed %d transactions (next %v), want 1", len(pending.Transactions), pending.NextCursor)
	}
	first := pending.Transactions[0]
	if first.State != "pending" || first.Hash != sub.Hash || len(first.Hashes) != 1 || first.Nonce != 0 || first.To != to.Hex() ||
		first.Value != "5" || first.MaxFeePerGas != sub.MaxFeePerGas || first.BlockNumber != nil || first.FeePaid != nil {
		t.Fatalf("pending transaction %+v, submission %+v", first, sub)
	}

	for range 2 {
		e.dev.Mine()
	}
	if err := e.svc.TrackOnce(ctx); err != nil {
		t.Fatal(err)
	}
	replaced := e.list(t, "").Transactions
	if len(replaced) != 1 || replaced[0].State != "replaced" || len(replaced[0].Hashes) != 2 || replaced[0].Hashes[0] != sub.Hash || replaced[0].Hash != replaced[0].Hashes[1] {
		t.Fatalf("after 2 blocks: %+v, want one transaction replaced, two hashes", replaced)
	}
	if old, now := decimalInt(t, first.MaxFeePerGas), decimalInt(t, replaced[0].MaxFeePerGas); now.Cmp(new(big.Int).Quo(new(big.Int).Mul(old, big.NewInt(110)), big.NewInt(100))) < 0 {
		t.Fatalf("replacement fee cap %s, not 10%% above %s", now, old)
	}

	e.dev.Mine()
	if err := e.svc.TrackOnce(ctx); err != nil {
		t.Fatal(err)
	}
	mined := e.list(t, "?limit=1").Transactions
	if len(mined) != 1 || mined[0].State != "mined" || mined[0].Hash != replaced[0].Hash || len(mined[0].Hashes) != 2 || mined[0].BlockNumber == nil {
		t.Fatalf("after mining: %+v, want mined under the replacement", mined)
	}
	m := mined[0]
	want := new(big.Int).Mul(decimalInt(t, *m.GasUsed), decimalInt(t, *m.EffectiveGasPrice))
	if *m.GasUsed != "21000" || decimalInt(t, *m.FeePaid).Cmp(want) != 0 {
		t.Fatalf("gas used %s at %s, fee paid %s; want %s", *m.GasUsed, *m.EffectiveGasPrice, *m.FeePaid, want)
	}
	receipt, err := e.dev.Client.TransactionReceipt(ctx, common.HexToHash(m.Hash))
	if err != nil || receipt.BlockNumber.Uint64() != *m.BlockNumber {
		t.Fatalf("receipt of the listed hash: %v, %v", receipt, err)
	}
	if n, err := e.dev.Client.NonceAt(ctx, e.wallet, nil); err != nil || n != 1 {
		t.Fatalf("chain nonce %d, %v; want 1: mined once", n, err)
	}

	// A session reads it too; an account without a wallet, no one, or a bad cursor does not.
	if r := e.get(t, "/wallet/transactions", "Cookie", "svc_session="+traderSession); r.status != http.StatusOK {
		t.Errorf("with a session: %d %s", r.status, r.body)
	}
	e.get(t, "/wallet/transactions", "X-API-Key", nobodyKey).want(t, http.StatusNotFound, `{"statusCode":404,"message":"this account has no custodial wallet"}`)
	if r := e.get(t, "/wallet/transactions"); r.status != http.StatusUnauthorized {
		t.Errorf("without credentials: %d", r.status)
	}
	if r := e.get(t, "/wallet/transactions?cursor=nonsense", "X-API-Key", traderKey); r.status != http.StatusBadRequest {
		t.Errorf("a cursor not returned: %d %s", r.status, r.body)
	}
}

func decimalInt(t *testing.T, s string) *big.Int {
	t.Helper()
	v, ok := new(big.Int).SetString(s, 10)
	if !ok {
		t.Fatalf("%q is not a decimal", s)
	}
	return v
}
