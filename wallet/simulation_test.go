package wallet_test

import (
	"fmt"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/curvekit/curvekit/contracts"
	"github.com/curvekit/curvekit/wallet"
)

func TestDecodeRevert(t *testing.T) {
	errData := func(name string, args ...any) []byte {
		t.Helper()
		for _, art := range []string{"BondingCurve", "Router", "CurveToken"} {
			a, err := contracts.Load(art)
			if err != nil {
				t.Fatal(err)
			}
			if e, ok := a.ABI.Errors[name]; ok {
				data, err := e.Inputs.Pack(args...)
				if err != nil {
					t.Fatal(err)
				}
				return append(e.ID[:4:4], data...)
			}
		}
		t.Fatalf("no error %s", name)
		return nil
	}
	str, _ := contracts.ERC20ABI.Methods["name"].Outputs.Pack("slippage too high")
	for _, tt := range []struct {
		data []byte
		want string
	}{
		{nil, ""},
		{append([]byte{0x08, 0xc3, 0x79, 0xa0}, str...), "slippage too high"},
		{append([]byte{0x4e, 0x48, 0x7b, 0x71}, common.LeftPadBytes([]byte{0x11}, 32)...), "panic 0x11: arithmetic overflow or underflow"},
		{errData("InsufficientOutput", big.NewInt(5), big.NewInt(7)), "InsufficientOutput(amountOut: 5, minAmountOut: 7)"},
		{errData("CurveGraduated"), "CurveGraduated()"},
		{errData("ERC20InsufficientAllowance", common.HexToAddress("0x01"), big.NewInt(0), big.NewInt(3)),
			"ERC20InsufficientAllowance(spender: 0x0000000000000000000000000000000000000001, allowance: 0, needed: 3)"},
		{[]byte{0xde, 0xad, 0xbe, 0xef}, "custom error 0xdeadbeef"},
	} {
		if got := wallet.DecodeRevert(tt.data); got != tt.want {
			t.Errorf("DecodeRevert(%x) = %q, want %q", tt.data, got, tt.want)
		}
	}
}

// Balance changes come from Transfer logs, the traced ETH ones included; what the wallet sends
// itself nets out.
func TestBalanceChanges(t *testing.T) {
	self, other := common.HexToAddress("0xbb"), common.HexToAddress("0xcc")
	token, eth := common.HexToAddress("0xaa"), common.HexToAddress("0xEeeeeEeeeEeEeeEeEeEeeEEEeeeeEeeeeeeeEEeE")
	topic := crypto.Keccak256Hash([]byte("Transfer(address,address,uint256)"))
	transfer := func(asset, from, to common.Address, v int64) types.Log {
		return types.Log{Address: asset, Topics: []common.Hash{topic, common.BytesToHash(from.Bytes()), common.BytesToHash(to.Bytes())},
			Data: common.LeftPadBytes(big.NewInt(v).Bytes(), 32)}
	}
	sim := wallet.Simulation{Traced: true, Logs: []types.Log{
		transfer(eth, self, other, 100), transfer(token, other, self, 7), transfer(token, self, self, 9), transfer(eth, other, self, 1),
		{Address: token, Topics: []common.Hash{topic}}, // not a Transfer of this layout
	}}
	if got := fmt.Sprint(sim.BalanceChanges(self, big.NewInt(100))); got != "[{0x0000000000000000000000000000000000000000 -99} {0x00000000000000000000000000000000000000AA 7}]" {
		t.Fatalf("traced: %s", got)
	}
	untraced := wallet.Simulation{Logs: []types.Log{transfer(token, other, self, 7)}}
	if got := fmt.Sprint(untraced.BalanceChanges(self, big.NewInt(100))); got != "[{0x0000000000000000000000000000000000000000 -100} {0x00000000000000000000000000000000000000AA 7}]" {
		t.Fatalf("untraced: %s", got)
	}
}
