package main

import (
	"context"
	"encoding/json"
	"math/big"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/curvekit/curvekit/contracts/bindings"
)

// agentTx is one transaction of a job's richData.
type agentTx struct {
	Kind     string `json:"kind"`
	To       string `json:"to"`
	Data     string `json:"data"`
	Value    string `json:"value"`
	ChainID  uint64 `json:"chainId"`
	Approval *struct {
		To, Data, Value string
		ChainID         uint64 `json:"chainId"`
	} `json:"approval"`
}

// ask submits prompt as a job with key, waits for it and returns its transactions.
func (s *testServer) ask(t *testing.T, key, prompt string) (jobView, []agentTx) {
	t.Helper()
	j := s.pollJob(t, key, s.submitJob(t, key, prompt))
	if j.Status != "completed" {
		t.Fatalf("%q: job %s: %q", prompt, j.Status, j.Error)
	}
	txs := make([]agentTx, len(j.RichData))
	for i, raw := range j.RichData {
		if err := json.Unmarshal(raw, &txs[i]); err != nil {
			t.Fatal(err)
		}
	}
	return j, txs
}

// confirm signs and sends to, data, value with the signed-in person's wallet, as the person
// confirming the agent's transaction does, and returns the mined receipt.
func (s *testServer) confirm(t *testing.T, b *browser, chainID uint64, to, data, value string) *types.Receipt {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"to": to, "data": data, "value": value, "chainId": chainID})
	a := b.do(http.MethodPost, "/wallet/sign-and-submit", string(body))
	if a.status != http.StatusOK {
		t.Fatalf("sign-and-submit: %d %s", a.status, a.body)
	}
	var sub submission
	a.decode(t, &sub)
	r := s.receipt(t, sub.Hash)
	if r.Status != types.ReceiptStatusSuccessful {
		t.Fatalf("transaction %s reverted", sub.Hash)
	}
	return r
}

func (s *testServer) tokenBalance(t *testing.T, token common.Address, owner string) *big.Int {
	t.Helper()
	b, err := s.app.chain.Balance(context.Background(), token, common.HexToAddress(owner))
	if err != nil {
		t.Fatal(err)
	}
	return b.ToBig()
}

// The agent's flows over real sockets, offline: a job composes a buy, a sell, a launch and a fee
// claim; the person confirms each with their wallet and it executes as composed. The buy delivers
// the quoted tokens, the launched token appears in /tokens with its metadata URI, the creator's
// claim empties the curve's accrued fees, and someone else asking to claim is refused in text.
func TestAgentFlowsOverHTTP(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	b, m := s.signIn(t, "flows")
	wallet := m.User.Wallet
	s.fund(t, wallet, 50)
	key := b.newKey(`{"readOnly":true}`).Key // the agent plans with a read-only key too
	deth := s.app.dev.ETHToken.Token

	// Buy: the quote just before equals what the confirmed transaction delivers.
	var quote struct {
		AmountOut string `json:"amountOut"`
	}
	s.get("/tokens/"+deth.Hex()+"/quote?type=buy&amount=0.01", &quote)
	_, txs := s.ask(t, key, "buy 0.01 ETH of DETH")
	if len(txs) != 1 || txs[0].Kind != "buy" {
		t.Fatalf("buy: %+v", txs)
	}
	before := s.tokenBalance(t, deth, wallet)
	s.confirm(t, b, txs[0].ChainID, txs[0].To, txs[0].Data, txs[0].Value)
	got := new(big.Int).Sub(s.tokenBalance(t, deth, wallet), before)
	if want := decimalUnits(t, quote.AmountOut, 18); got.Cmp(want) != 0 {
		t.Fatalf("the buy delivered %s base units; quoted %s (%s)", got, want, quote.AmountOut)
	}

	// Sell: its approval first when it has one, then the sell.
	_, txs = s.ask(t, key, "sell 1000 DETH")
	if len(txs) != 1 || txs[0].Kind != "sell" {
		t.Fatalf("sell: %+v", txs)
	}
	if ap := txs[0].Approval; ap != nil {
		s.confirm(t, b, ap.ChainID, ap.To, ap.Data, ap.Value)
	}
	before = s.tokenBalance(t, deth, wallet)
	s.confirm(t, b, txs[0].ChainID, txs[0].To, txs[0].Data, txs[0].Value)
	if sold := new(big.Int).Sub(before, s.tokenBalance(t, deth, wallet)); sold.Cmp(decimalUnits(t, "1000", 18)) != 0 {
		t.Fatalf("the sell took %s base units, want 1000 tokens", sold)
	}

	// Launch: the token appears in /tokens with its metadata URI.
	_, txs = s.ask(t, key, "launch a token named Flow Cat with symbol FCAT")
	if len(txs) != 1 || txs[0].Kind != "launch" {
		t.Fatalf("launch: %+v", txs)
	}
	s.confirm(t, b, txs[0].ChainID, txs[0].To, txs[0].Data, txs[0].Value)
	var list struct {
		Tokens []struct {
			Address, Symbol, URI string
			Creator              string `json:"creator"`
		} `json:"tokens"`
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		s.get("/tokens?q=FCAT", &list)
		if len(list.Tokens) == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the launched token never reached /tokens: %+v", list)
		}
		time.Sleep(50 * time.Millisecond)
	}
	fcat := list.Tokens[0]
	if fcat.Symbol != "FCAT" || !strings.HasPrefix(fcat.URI, "ipfs://") || !strings.EqualFold(fcat.Creator, wallet) {
		t.Fatalf("launched token %+v, creator want %s", fcat, wallet)
	}
	var doc struct{ Name, Symbol string }
	s.get("/ipfs/"+strings.TrimPrefix(fcat.URI, "ipfs://"), &doc)
	if doc.Name != "Flow Cat" || doc.Symbol != "FCAT" {
		t.Fatalf("metadata document %+v", doc)
	}

	// Someone buys the new token: its creator earns fees, and claims them through the agent.
	other := s.app.dev.Accounts[8]
	bt := s.build(t, common.HexToAddress(fcat.Address), other.Address.Hex(), "buy", "1", "1")
	to := common.HexToAddress(bt.To)
	value, _ := new(big.Int).SetString(bt.Value, 10)
	if _, err := s.app.dev.Send(context.Background(), other.Key, &to, value, common.FromHex(bt.Data)); err != nil {
		t.Fatal(err)
	}
	// The agent reads claimable fees from the index: wait for the trade to be indexed.
	deadline = time.Now().Add(20 * time.Second)
	for {
		var page tradePage
		s.get("/tokens/"+fcat.Address+"/trades", &page)
		if len(page.Trades) > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the buy of the launched token was never indexed")
		}
		time.Sleep(50 * time.Millisecond)
	}
	tokenCurve := s.curveOf(t, common.HexToAddress(fcat.Address))
	accrued := s.accrued(t, tokenCurve)
	if accrued.Sign() == 0 {
		t.Fatal("no creator fees accrued")
	}
	j, txs := s.ask(t, key, "claim fees for FCAT")
	if len(txs) != 1 || txs[0].Kind != "claim_fees" {
		t.Fatalf("claim: %+v (%s)", txs, j.Response)
	}
	s.confirm(t, b, txs[0].ChainID, txs[0].To, txs[0].Data, txs[0].Value)
	if left := s.accrued(t, tokenCurve); left.Sign() != 0 {
		t.Fatalf("after the claim %s wei still accrued", left)
	}

	// Another account asking to claim the creator's fees is refused in text, with nothing to sign.
	b2, _ := s.signIn(t, "stranger")
	key2 := b2.newKey(`{}`).Key
	j, txs = s.ask(t, key2, "claim fees for FCAT")
	if len(txs) != 0 || !strings.Contains(strings.ToLower(j.Response), "creator") {
		t.Fatalf("a stranger's claim: %q %+v", j.Response, txs)
	}
}

// curveOf is the bonding curve of token, as the API reports it.
func (s *testServer) curveOf(t *testing.T, token common.Address) common.Address {
	t.Helper()
	var tok struct {
		Curve string `json:"curve"`
	}
	s.get("/tokens/"+token.Hex(), &tok)
	if !common.IsHexAddress(tok.Curve) {
		t.Fatalf("token %s has no curve: %+v", token.Hex(), tok)
	}
	return common.HexToAddress(tok.Curve)
}

// accrued reads the curve's unclaimed creator fees from the chain.
func (s *testServer) accrued(t *testing.T, curveAddr common.Address) *big.Int {
	t.Helper()
	c := bindings.NewBondingCurve()
	out, err := s.app.dev.Client.CallContract(context.Background(), ethereum.CallMsg{To: &curveAddr, Data: c.PackCreatorFeesAccrued()}, nil)
	if err != nil {
		t.Fatal(err)
	}
	v, err := c.UnpackCreatorFeesAccrued(out)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// decimalUnits converts an exact decimal string of an asset with the given decimals to base units.
func decimalUnits(t *testing.T, s string, decimals int) *big.Int {
	t.Helper()
	whole, frac, _ := strings.Cut(s, ".")
	frac += strings.Repeat("0", decimals-len(frac))
	v, ok := new(big.Int).SetString(whole+frac, 10)
	if !ok {
		t.Fatalf("amount %q", s)
	}
	return v
}
