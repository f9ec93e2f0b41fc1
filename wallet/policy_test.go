package wallet_test

import (
	"bytes"
	"errors"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/google/go-cmp/cmp"
	"github.com/holiman/uint256"

	"github.com/curvekit/curvekit/contracts"
	"github.com/curvekit/curvekit/txbuild"
	"github.com/curvekit/curvekit/wallet"
)

var (
	router   = common.HexToAddress("0x00000000000000000000000000000000000000a1")
	tusd     = common.HexToAddress("0x00000000000000000000000000000000000000a2")
	factory  = common.HexToAddress("0x00000000000000000000000000000000000000a3")
	weth     = common.HexToAddress("0x00000000000000000000000000000000000000a4")
	curveC   = common.HexToAddress("0x00000000000000000000000000000000000000a5")
	stranger = common.HexToAddress("0x1111111111111111111111111111111111111111")
	self     = common.HexToAddress("0x00000000000000000000000000000000000000bb")
)

func builder(t testing.TB) *txbuild.Builder {
	t.Helper()
	b, err := txbuild.New(txbuild.Config{ChainID: 1337, Router: router, Factory: factory, WETH: weth})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func mustPack(t testing.TB, method string, args ...any) []byte {
	t.Helper()
	for _, a := range []string{"Router", "CurveToken", "BondingCurve", "LaunchFactory", "WETH9"} {
		art, err := contracts.Load(a)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := art.ABI.Methods[method]; ok {
			data, err := art.ABI.Pack(method, args...)
			if err != nil {
				t.Fatal(err)
			}
			return data
		}
	}
	t.Fatalf("no method %s", method)
	return nil
}

// TestReadCallFindsEveryBeneficiary reads each call curvekit composes and the asset calls
// around them.
func TestReadCallFindsEveryBeneficiary(t *testing.T) {
	b := builder(t)
	one := uint256.NewInt(1)
	swapETH, err := b.Swap(txbuild.Swap{From: self, Path: []common.Address{weth, tusd}, AmountIn: *one, Recipient: stranger})
	if err != nil {
		t.Fatal(err)
	}
	swapToETH, err := b.Swap(txbuild.Swap{From: self, Path: []common.Address{tusd, weth}, AmountIn: *one, Recipient: stranger})
	if err != nil {
		t.Fatal(err)
	}
	swapTokens, err := b.Swap(txbuild.Swap{From: self, Path: []common.Address{tusd, curveC}, AmountIn: *one, Recipient: stranger})
	if err != nil {
		t.Fatal(err)
	}
	buy, err := b.CurveBuy(txbuild.CurveBuy{From: self, Curve: curveC, AmountIn: *one})
	if err != nil {
		t.Fatal(err)
	}
	sell, err := b.CurveSell(txbuild.CurveSell{From: self, Curve: curveC, Token: tusd, TokenAmount: *one})
	if err != nil {
		t.Fatal(err)
	}
	launch, err := b.Launch(txbuild.Launch{From: self, Name: "Cat", Symbol: "CAT", URI: "ipfs://x", Quote: tusd, InitialBuy: *one})
	if err != nil {
		t.Fatal(err)
	}
	claim, err := b.ClaimCreatorFees(self, curveC)
	if err != nil {
		t.Fatal(err)
	}
	approve, err := b.Approve(self, tusd, stranger, uint256.NewInt(0).SetAllOne())
	if err != nil {
		t.Fatal(err)
	}
	to := func(a common.Address) wallet.Beneficiary { return wallet.Beneficiary{Address: a, Role: "to"} }
	tests := []struct {
		name string
		to   common.Address
		data []byte
		want wallet.Call
	}{
		{"plain value transfer", stranger, nil, wallet.Call{Beneficiaries: []wallet.Beneficiary{to(stranger)}}},
		{"swapExactETHForTokens", router, swapETH.Tx.Data, wallet.Call{Method: "swapExactETHForTokens", Beneficiaries: []wallet.Beneficiary{to(router), {stranger, "the to argument of swapExactETHForTokens"}}}},
		{"swapExactTokensForETH", router, swapToETH.Tx.Data, wallet.Call{Method: "swapExactTokensForETH", Beneficiaries: []wallet.Beneficiary{to(router), {stranger, "the to argument of swapExactTokensForETH"}}}},
		{"swapExactTokensForTokens", router, swapTokens.Tx.Data, wallet.Call{Method: "swapExactTokensForTokens", Beneficiaries: []wallet.Beneficiary{to(router), {stranger, "the to argument of swapExactTokensForTokens"}}}},
		{"curve buy", curveC, buy.Tx.Data, wallet.Call{Method: "buy", Beneficiaries: []wallet.Beneficiary{to(curveC)}}},
		{"curve sell", curveC, sell.Tx.Data, wallet.Call{Method: "sell", Beneficiaries: []wallet.Beneficiary{to(curveC)}}},
		{"its approval", tusd, sell.Approval.Data, wallet.Call{Method: "approve", Beneficiaries: []wallet.Beneficiary{to(tusd), {curveC, "the spender argument of approve"}}}},
		{"launch", factory, launch.Tx.Data, wallet.Call{Method: "launch", Beneficiaries: []wallet.Beneficiary{to(factory)}}},
		{"claimCreatorFees", curveC, claim.Data, wallet.Call{Method: "claimCreatorFees", Beneficiaries: []wallet.Beneficiary{to(curveC)}}},
		{"approve max to a stranger", tusd, approve.Data, wallet.Call{Method: "approve", Beneficiaries: []wallet.Beneficiary{to(tusd), {stranger, "the spender argument of approve"}}}},
		{"transfer", tusd, mustPack(t, "transfer", stranger, big.NewInt(5)), wallet.Call{Method: "transfer", Beneficiaries: []wallet.Beneficiary{to(tusd), {stranger, "the to argument of transfer"}}}},
		{"transferFrom", tusd, mustPack(t, "transferFrom", self, stranger, big.NewInt(5)), wallet.Call{Method: "transferFrom", Beneficiaries: []wallet.Beneficiary{to(tusd), {stranger, "the to argument of transferFrom"}}}},
		{"initialBuy", curveC, mustPack(t, "initialBuy", stranger, big.NewInt(1), big.NewInt(0)), wallet.Call{Method: "initialBuy", Beneficiaries: []wallet.Beneficiary{to(curveC), {stranger, "the recipient argument of initialBuy"}}}},
		{"WETH deposit", weth, mustPack(t, "deposit"), wallet.Call{Method: "deposit", Beneficiaries: []wallet.Beneficiary{to(weth)}}},
		{"WETH withdraw", weth, mustPack(t, "withdraw", big.NewInt(7)), wallet.Call{Method: "withdraw", Beneficiaries: []wallet.Beneficiary{to(weth)}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := wallet.ReadCall(tt.to, tt.data)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ReadCall (-want +got):\n%s", diff)
			}
		})
	}
}

// TestReadCallRefusesWhatItCannotRead: unknown selectors and every non-canonical encoding of a
// known call are ErrNotUnderstood, so no encoding a contract could read differently passes.
func TestReadCallRefusesWhatItCannotRead(t *testing.T) {
	transfer := mustPack(t, "transfer", stranger, big.NewInt(5))
	dirty := bytes.Clone(transfer)
	dirty[4] = 0x01 // a high byte of the address word
	swap := mustPack(t, "swapExactETHForTokens", big.NewInt(1), []common.Address{weth, tusd}, self, big.NewInt(9))
	offset := bytes.Clone(swap)
	offset[4+32+31] += 0x20 // the path's offset points one word further
	tests := map[string][]byte{
		"short":                        {0xa9, 0x05},
		"unknown selector":             {0xde, 0xad, 0xbe, 0xef},
		"claimProtocolFees (not ours)": mustPack(t, "claimProtocolFees"),
		"setFeeRecipient (not ours)":   mustPack(t, "setFeeRecipient", stranger),
		"truncated arguments":          transfer[:len(transfer)-1],
		"trailing bytes":               append(bytes.Clone(transfer), 0),
		"trailing word":                append(bytes.Clone(transfer), make([]byte, 32)...),
		"dirty address bits":           dirty,
		"moved offset":                 offset,
	}
	for name, data := range tests {
		t.Run(name, func(t *testing.T) {
			if got, err := wallet.ReadCall(tusd, data); !errors.Is(err, wallet.ErrNotUnderstood) {
				t.Errorf("ReadCall = %+v, %v; want ErrNotUnderstood", got, err)
			}
		})
	}
}

// FuzzReadCall: arbitrary call data never panics, and whatever the policy reads is the
// canonical encoding of the call it names, with `to` first among the beneficiaries.
func FuzzReadCall(f *testing.F) {
	f.Add(mustPack(f, "transfer", stranger, big.NewInt(5)))
	f.Add(mustPack(f, "approve", stranger, big.NewInt(5)))
	f.Add(mustPack(f, "swapExactTokensForTokens", big.NewInt(1), big.NewInt(2), []common.Address{weth, tusd}, self, big.NewInt(9)))
	f.Add(mustPack(f, "launch", "Cat", "CAT", "ipfs://x", tusd, big.NewInt(1), big.NewInt(0)))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		call, err := wallet.ReadCall(tusd, data)
		if err != nil {
			if !errors.Is(err, wallet.ErrNotUnderstood) {
				t.Fatalf("error %v is not ErrNotUnderstood", err)
			}
			return
		}
		if len(call.Beneficiaries) == 0 || call.Beneficiaries[0] != (wallet.Beneficiary{Address: tusd, Role: "to"}) {
			t.Fatalf("beneficiaries %v do not start with to", call.Beneficiaries)
		}
		if len(data) == 0 {
			return
		}
		for _, a := range []string{"Router", "CurveToken", "BondingCurve", "LaunchFactory", "WETH9"} {
			art, _ := contracts.Load(a)
			m, err := art.ABI.MethodById(data[:4])
			if err != nil {
				continue
			}
			args, err := m.Inputs.Unpack(data[4:])
			if err != nil {
				t.Fatalf("read %s, but it does not decode: %v", m.Sig, err)
			}
			again, err := art.ABI.Pack(m.Name, args...)
			if err != nil || !bytes.Equal(again, data) {
				t.Fatalf("read %s, but it is not canonical", m.Sig)
			}
			return
		}
		t.Fatalf("read %x, which no contract has", data[:4])
	})
}
