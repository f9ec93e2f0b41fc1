package evm_test

import (
	"context"
	"crypto/ecdsa"
	"errors"
	"math/big"
	"math/rand/v2"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/holiman/uint256"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/adapters/evm"
	"github.com/curvekit/curvekit/contracts"
	"github.com/curvekit/curvekit/txbuild"
	"github.com/curvekit/curvekit/wallet"
)

// errCounted stops a signature after the signer has counted it: the property is about what
// reaches the signer, and nothing needs to be sent.
var errCounted = errors.New("counted")

type refusingSigner struct{ n atomic.Int64 }

func (s *refusingSigner) SignTx(context.Context, *types.Transaction, *ecdsa.PrivateKey) (*types.Transaction, error) {
	s.n.Add(1)
	return nil, errCounted
}

// TestSigningPolicyProperty composes random calls of every kind the policy reads (and call data
// it cannot read) with random recipients and beneficiaries: the listed ones, the wallet itself
// and strangers. A key restricted to allowedRecipients reaches the signer exactly when the
// transaction's `to` and every beneficiary of its call are the wallet or listed, and call data
// the policy cannot read never does; a key without the restriction signs all of them.
func TestSigningPolicyProperty(t *testing.T) {
	t.Parallel()
	c := newCustodial(t)
	self := c.wallet("acct-policy", 0)
	bc, err := evm.NewBroadcaster(evm.BroadcastConfig{Client: c.dev.Client})
	if err != nil {
		t.Fatal(err)
	}
	signer := &refusingSigner{}
	svc, err := wallet.New(wallet.Config{Store: c.store, Broadcaster: stale{bc}, Keys: c.keys, Signer: signer})
	if err != nil {
		t.Fatal(err)
	}
	a := c.dev.Addrs
	friend := c.dev.Accounts[5].Address
	allowed := []common.Address{a.Router, a.USD, a.Factory, a.WETH, c.dev.ETHToken.Curve, friend}
	strangers := []common.Address{c.dev.Accounts[6].Address, common.HexToAddress("0x1111111111111111111111111111111111111111")}
	rng := rand.New(rand.NewPCG(1, 2))
	pick := func() common.Address { // a beneficiary: listed, the wallet, or a stranger
		switch rng.IntN(3) {
		case 0:
			return allowed[rng.IntN(len(allowed))]
		case 1:
			return self
		}
		return strangers[rng.IntN(len(strangers))]
	}
	ok := func(addrs ...common.Address) bool {
		for _, x := range addrs {
			if x != self && !slices.Contains(allowed, x) {
				return false
			}
		}
		return true
	}
	one := uint256.NewInt(1_000)
	erc20, _ := contracts.Load("CurveToken")
	weth, _ := contracts.Load("WETH9")
	type composed struct {
		name string
		tx   txbuild.Tx
		want bool
	}
	compose := func() composed {
		to := pick()
		b := c.builder
		switch k := rng.IntN(12); k {
		case 0:
			return composed{"plain transfer", txbuild.Tx{To: to}, ok(to)}
		case 1, 2, 3:
			path := [][]common.Address{{a.WETH, a.USD}, {a.USD, a.WETH}, {a.USD, c.dev.ETHToken.Token}}[k-1]
			recipient := pick()
			p, err := b.Swap(txbuild.Swap{From: self, Path: path, AmountIn: *one, Recipient: recipient})
			if err != nil {
				t.Fatal(err)
			}
			p.Tx.To = to
			return composed{"swap", p.Tx, ok(to, recipient)}
		case 4:
			p, err := b.CurveBuy(txbuild.CurveBuy{From: self, Curve: to, AmountIn: *one})
			if err != nil {
				t.Fatal(err)
			}
			return composed{"curve buy", p.Tx, ok(to)}
		case 5:
			p, err := b.CurveSell(txbuild.CurveSell{From: self, Curve: to, Token: a.USD, TokenAmount: *one, Allowance: one})
			if err != nil {
				t.Fatal(err)
			}
			return composed{"curve sell", p.Tx, ok(to)}
		case 6:
			p, err := b.Launch(txbuild.Launch{From: self, Name: "Squat", Symbol: "DETH", URI: "ipfs://x"})
			if err != nil {
				t.Fatal(err)
			}
			p.Tx.To = to
			return composed{"launch", p.Tx, ok(to)}
		case 7:
			tx, err := b.ClaimCreatorFees(self, to)
			if err != nil {
				t.Fatal(err)
			}
			return composed{"claim", tx, ok(to)}
		case 8:
			spender := pick()
			tx, err := b.Approve(self, to, spender, new(uint256.Int).SetAllOne())
			if err != nil {
				t.Fatal(err)
			}
			return composed{"approve", tx, ok(to, spender)}
		case 9:
			dst := pick()
			var data []byte
			if rng.IntN(2) == 0 {
				data, err = erc20.ABI.Pack("transfer", dst, big.NewInt(5))
			} else {
				data, err = erc20.ABI.Pack("transferFrom", pick(), dst, big.NewInt(5))
			}
			if err != nil {
				t.Fatal(err)
			}
			return composed{"transfer", txbuild.Tx{To: to, Data: data}, ok(to, dst)}
		case 10:
			data, err := weth.ABI.Pack("withdraw", big.NewInt(5))
			if rng.IntN(2) == 0 {
				data, err = weth.ABI.Pack("deposit")
			}
			if err != nil {
				t.Fatal(err)
			}
			return composed{"weth", txbuild.Tx{To: to, Data: data}, ok(to)}
		default:
			data := make([]byte, rng.IntN(100))
			for i := range data {
				data[i] = byte(rng.IntN(256))
			}
			_, readErr := wallet.ReadCall(to, data)
			return composed{"random data", txbuild.Tx{To: to, Data: data}, readErr == nil && ok(to)}
		}
	}
	var wantSigned, refused int64
	for i := range 400 {
		cp := compose()
		tx := wallet.Tx{To: cp.tx.To, Data: cp.tx.Data, ChainID: c.dev.ChainID.Uint64(), Gas: 200_000}
		before := signer.n.Load()
		_, err := svc.SignAndSubmit(c.ctx, wallet.SignParams{AccountID: "acct-policy", AllowedRecipients: allowed, Tx: tx})
		signed := signer.n.Load() - before
		switch {
		case cp.want && (signed != 1 || !errors.Is(err, errCounted)):
			t.Fatalf("call %d (%s to %s, data %x): allowed, but signer saw %d (%v)", i, cp.name, tx.To, tx.Data, signed, err)
		case !cp.want && (signed != 0 || !errors.Is(err, curvekit.ErrForbidden) || !strings.Contains(err.Error(), "allowedRecipients")):
			t.Fatalf("call %d (%s to %s, data %x): not allowed, but signer saw %d (%v)", i, cp.name, tx.To, tx.Data, signed, err)
		}
		if cp.want {
			wantSigned++
		} else {
			refused++
		}
		// Without the restriction the same call reaches the signer.
		if _, err := svc.SignAndSubmit(c.ctx, wallet.SignParams{AccountID: "acct-policy", Tx: tx}); !errors.Is(err, errCounted) {
			t.Fatalf("call %d (%s) without allowedRecipients: %v", i, cp.name, err)
		}
	}
	if wantSigned < 50 || refused < 50 {
		t.Fatalf("the draw is lopsided: %d allowed, %d refused", wantSigned, refused)
	}
}

// The three calls that passed a key limited to the router and TUSD before the policy read call
// data: a router swap paying a stranger, an unlimited approval to a stranger, and a transfer to
// one. Each is refused naming the stranger and its role; nothing reaches the signer.
func TestSigningPolicyRefusesStrangersInCallData(t *testing.T) {
	t.Parallel()
	c := newCustodial(t)
	self := c.wallet("acct-attack", 0)
	stranger := common.HexToAddress("0x1111111111111111111111111111111111111111")
	a := c.dev.Addrs
	swap, err := c.builder.Swap(txbuild.Swap{From: self, Path: []common.Address{a.WETH, a.USD}, AmountIn: *uint256.NewInt(1e15), Recipient: stranger})
	if err != nil {
		t.Fatal(err)
	}
	approve, err := c.builder.Approve(self, a.USD, stranger, new(uint256.Int).SetAllOne())
	if err != nil {
		t.Fatal(err)
	}
	erc20, _ := contracts.Load("CurveToken")
	transfer, _ := erc20.ABI.Pack("transfer", stranger, big.NewInt(1_000_000))
	for _, tt := range []struct {
		name string
		tx   txbuild.Tx
		role string
	}{
		{"swap to a stranger", swap.Tx, "the to argument of swapExactETHForTokens"},
		{"approve max to a stranger", approve, "the spender argument of approve"},
		{"transfer to a stranger", txbuild.Tx{To: a.USD, Data: transfer}, "the to argument of transfer"},
	} {
		_, err := c.svc.SignAndSubmit(c.ctx, wallet.SignParams{
			AccountID: "acct-attack", AllowedRecipients: []common.Address{a.Router, a.USD},
			Tx: wallet.Tx{To: tt.tx.To, Data: tt.tx.Data, Value: tt.tx.Value, ChainID: c.dev.ChainID.Uint64(), Gas: 200_000},
		})
		if !errors.Is(err, curvekit.ErrForbidden) || !strings.Contains(err.Error(), stranger.Hex()) || !strings.Contains(err.Error(), tt.role) {
			t.Errorf("%s: %v; want forbidden naming %s (%s)", tt.name, err, stranger.Hex(), tt.role)
		}
	}
	if n, u := c.signer.n.Load(), c.keys.unwraps.Load(); n != 0 || u != 0 {
		t.Fatalf("refused calls reached the signer %d times, unsealed %d keys", n, u)
	}
}
