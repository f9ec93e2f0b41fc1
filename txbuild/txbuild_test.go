package txbuild

import (
	"errors"
	"math/big"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/google/go-cmp/cmp"
	"github.com/holiman/uint256"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/contracts"
	"github.com/curvekit/curvekit/curve"
)

var (
	factory = common.HexToAddress("0x00000000000000000000000000000000000000fa")
	router  = common.HexToAddress("0x0000000000000000000000000000000000000001")
	weth    = common.HexToAddress("0x00000000000000000000000000000000000000e7")
	usd     = common.HexToAddress("0x0000000000000000000000000000000000000005")
	token   = common.HexToAddress("0x00000000000000000000000000000000000000a1")
	curveA  = common.HexToAddress("0x00000000000000000000000000000000000000c1")
	alice   = common.HexToAddress("0x00000000000000000000000000000000000a11ce")
	now     = time.Unix(1_700_000_000, 0)
)

func builder(t *testing.T) *Builder {
	t.Helper()
	b, err := New(Config{ChainID: 1337, Factory: factory, Router: router, WETH: weth, Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// decode splits calldata into the method name and its arguments.
func decode(t *testing.T, a *abi.ABI, data []byte) (string, []any) {
	t.Helper()
	m, err := a.MethodById(data[:4])
	if err != nil {
		t.Fatalf("unknown selector %x: %v", data[:4], err)
	}
	args, err := m.Inputs.Unpack(data[4:])
	if err != nil {
		t.Fatal(err)
	}
	return m.Name, args
}

var bigCmp = cmp.Comparer(func(a, b *big.Int) bool { return a.Cmp(b) == 0 })

func TestCurveBuyETH(t *testing.T) {
	t.Parallel()
	b := builder(t)
	p, err := b.CurveBuy(CurveBuy{From: alice, Curve: curveA, AmountIn: *uint256.NewInt(1e18), MinTokensOut: *uint256.NewInt(5)})
	if err != nil {
		t.Fatal(err)
	}
	if p.Approval != nil {
		t.Fatal("an ETH buy needs no approval")
	}
	if p.Tx.To != curveA || p.Tx.Value.Uint64() != 1e18 || p.Tx.ChainID != 1337 || p.Tx.From != alice {
		t.Fatalf("tx = %+v", p.Tx)
	}
	name, args := decode(t, contracts.BondingCurveABI, p.Tx.Data)
	want := []any{big.NewInt(1e18), big.NewInt(5), big.NewInt(now.Add(30 * time.Minute).Unix())}
	if name != "buy" || !cmp.Equal(args, want, bigCmp) {
		t.Fatalf("%s%v, want buy%v", name, args, want)
	}
}

func TestApprovalOnlyWhenShort(t *testing.T) {
	t.Parallel()
	b := builder(t)
	amount := uint256.NewInt(1_000_000)
	for _, tt := range []struct {
		name      string
		allowance *uint256.Int
		want      bool
	}{
		{"unknown", nil, true},
		{"zero", uint256.NewInt(0), true},
		{"one short", uint256.NewInt(999_999), true},
		{"exact", uint256.NewInt(1_000_000), false},
		{"more", uint256.NewInt(5_000_000), false},
	} {
		p, err := b.CurveBuy(CurveBuy{From: alice, Curve: curveA, Quote: usd, AmountIn: *amount, Allowance: tt.allowance})
		if err != nil {
			t.Fatal(err)
		}
		if got := p.Approval != nil; got != tt.want {
			t.Errorf("%s: approval %v, want %v", tt.name, got, tt.want)
		}
		if !p.Tx.Value.IsZero() {
			t.Errorf("%s: an ERC-20 buy sends value %s", tt.name, p.Tx.Value.Dec())
		}
		if p.Approval != nil {
			name, args := decode(t, contracts.ERC20ABI, p.Approval.Data)
			if p.Approval.To != usd || name != "approve" || !cmp.Equal(args, []any{curveA, amount.ToBig()}, bigCmp) {
				t.Errorf("%s: approval %s%v to %s", tt.name, name, args, p.Approval.To)
			}
		}
	}
}

func TestCurveSellApprovesTheToken(t *testing.T) {
	t.Parallel()
	b := builder(t)
	p, err := b.CurveSell(CurveSell{From: alice, Curve: curveA, Token: token, TokenAmount: *uint256.NewInt(7), MinQuoteOut: *uint256.NewInt(3), Deadline: 99})
	if err != nil {
		t.Fatal(err)
	}
	if p.Approval == nil || p.Approval.To != token {
		t.Fatalf("approval = %+v, want approve on the token", p.Approval)
	}
	name, args := decode(t, contracts.BondingCurveABI, p.Tx.Data)
	if name != "sell" || !cmp.Equal(args, []any{big.NewInt(7), big.NewInt(3), big.NewInt(99)}, bigCmp) {
		t.Fatalf("%s%v", name, args)
	}
}

func TestSwapSelectsRouterMethod(t *testing.T) {
	t.Parallel()
	b := builder(t)
	for _, tt := range []struct {
		path      []common.Address
		method    string
		value     bool
		approveOn common.Address
	}{
		{[]common.Address{weth, token}, "swapExactETHForTokens", true, common.Address{}},
		{[]common.Address{token, weth}, "swapExactTokensForETH", false, token},
		{[]common.Address{usd, token}, "swapExactTokensForTokens", false, usd},
	} {
		p, err := b.Swap(Swap{From: alice, Path: tt.path, AmountIn: *uint256.NewInt(100), MinOut: *uint256.NewInt(90), Recipient: alice, Deadline: 42})
		if err != nil {
			t.Fatal(err)
		}
		name, args := decode(t, contracts.RouterABI, p.Tx.Data)
		if name != tt.method || p.Tx.To != router {
			t.Errorf("%v: %s to %s", tt.path, name, p.Tx.To)
		}
		if got := !p.Tx.Value.IsZero(); got != tt.value {
			t.Errorf("%s: value %s", name, p.Tx.Value.Dec())
		}
		if (p.Approval != nil) != (tt.approveOn != common.Address{}) || (p.Approval != nil && p.Approval.To != tt.approveOn) {
			t.Errorf("%s: approval %+v", name, p.Approval)
		}
		if args[len(args)-2] != alice || args[len(args)-1].(*big.Int).Int64() != 42 {
			t.Errorf("%s: recipient/deadline %v", name, args)
		}
	}
}

func TestSwapNeedsRecipient(t *testing.T) {
	t.Parallel()
	_, err := builder(t).Swap(Swap{Path: []common.Address{weth, token}, AmountIn: *uint256.NewInt(1)})
	if !errors.Is(err, ErrRecipientRequired) {
		t.Fatalf("err = %v, want ErrRecipientRequired", err)
	}
}

func TestLaunchValue(t *testing.T) {
	t.Parallel()
	b := builder(t)
	p, err := b.Launch(Launch{From: alice, Name: "Dog", Symbol: "DOG", URI: "ipfs://x", InitialBuy: *uint256.NewInt(5), LaunchFee: *uint256.NewInt(2)})
	if err != nil {
		t.Fatal(err)
	}
	if p.Tx.Value.Uint64() != 7 || p.Approval != nil || p.Tx.To != factory {
		t.Fatalf("ETH launch = %+v", p)
	}
	name, args := decode(t, contracts.LaunchFactoryABI, p.Tx.Data)
	want := []any{"Dog", "DOG", "ipfs://x", common.Address{}, big.NewInt(5), big.NewInt(0)}
	if name != "launch" || !cmp.Equal(args, want, bigCmp) {
		t.Fatalf("%s%v", name, args)
	}
	p, err = b.Launch(Launch{From: alice, Name: "Dog", Symbol: "DOG", Quote: usd, InitialBuy: *uint256.NewInt(5), LaunchFee: *uint256.NewInt(2)})
	if err != nil {
		t.Fatal(err)
	}
	if p.Tx.Value.Uint64() != 2 || p.Approval == nil || p.Approval.To != usd {
		t.Fatalf("ERC-20 launch = %+v", p)
	}
	if _, err := b.Launch(Launch{Symbol: "X"}); !errors.Is(err, curvekit.ErrInvalid) {
		t.Fatalf("launch without name: %v", err)
	}
}

func TestMinOut(t *testing.T) {
	t.Parallel()
	max := new(uint256.Int).SetAllOne()
	for _, tt := range []struct {
		quoted string
		bps    uint16
		want   string
	}{
		{"10000", 100, "9900"},
		{"9999", 100, "9899"}, // 9899.01 rounds down
		{"1", 100, "0"},
		{"12345", 0, "12345"},
		{"12345", 10_000, "0"},
		{max.Dec(), 1, new(uint256.Int).Sub(max, new(uint256.Int).Div(max, uint256.NewInt(10_000))).Dec()},
	} {
		q := uint256.MustFromDecimal(tt.quoted)
		got := MinOut(q, tt.bps)
		// Cross-check with math/big.
		ref := new(big.Int).Mul(q.ToBig(), big.NewInt(int64(10_000-min(tt.bps, 10_000))))
		ref.Div(ref, big.NewInt(10_000))
		if got.Dec() != ref.String() {
			t.Errorf("MinOut(%s, %d) = %s, math/big says %s", tt.quoted, tt.bps, got.Dec(), ref)
		}
		if tt.bps != 1 && got.Dec() != tt.want {
			t.Errorf("MinOut(%s, %d) = %s, want %s", tt.quoted, tt.bps, got.Dec(), tt.want)
		}
	}
}

func TestParseSlippage(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]int{"1": 100, "0.5": 50, "0": 0, "50": 5000, "2.25": 225, "50.01": -1, "-1": -1, "0.001": -1, "abc": -1, "": -1, "1e1": -1} {
		got, err := ParseSlippage(in)
		if want < 0 {
			if err == nil || !errors.Is(err, curvekit.ErrInvalid) {
				t.Errorf("ParseSlippage(%q) = %d, %v; want ErrInvalid", in, got, err)
			}
			continue
		}
		if err != nil || int(got) != want {
			t.Errorf("ParseSlippage(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
}

func testMarket(t *testing.T) Market {
	t.Helper()
	p, err := curve.DefaultParams(18)
	if err != nil {
		t.Fatal(err)
	}
	return Market{Token: token, Curve: curveA, Params: p, State: p.Initial()}
}

func TestTradeOnCurveUsesTheQuote(t *testing.T) {
	t.Parallel()
	b := builder(t)
	m := testMarket(t)
	amount := uint256.NewInt(1e18)
	q, plan, err := b.Trade(&m, Trade{Side: curvekit.Buy, Amount: *amount, SlippageBps: 100, From: alice})
	if err != nil {
		t.Fatal(err)
	}
	want, err := curve.QuoteBuy(&m.Params, &m.State, amount)
	if err != nil {
		t.Fatal(err)
	}
	if !q.Out.Eq(&want.TokensOut) || q.Venue != curvekit.VenueCurve {
		t.Fatalf("quote out %s, curve says %s", q.Out.Dec(), want.TokensOut.Dec())
	}
	_, args := decode(t, contracts.BondingCurveABI, plan.Tx.Data)
	minOut := MinOut(&want.TokensOut, 100)
	if args[1].(*big.Int).Cmp(minOut.ToBig()) != 0 {
		t.Fatalf("minTokensOut %v, want %s", args[1], minOut.Dec())
	}
}

func TestTradeOnPool(t *testing.T) {
	t.Parallel()
	b := builder(t)
	m := testMarket(t)
	m.State.Graduated = true
	m.Pool = curve.Pool{ReserveQuote: *uint256.MustFromDecimal("85000000000000000000"), ReserveToken: *uint256.MustFromDecimal("206900000000000000000000000"), FeeBps: 30}
	if _, _, err := b.Trade(&m, Trade{Side: curvekit.Buy, Amount: *uint256.NewInt(1e18)}); !errors.Is(err, ErrRecipientRequired) {
		t.Fatalf("pool trade without recipient: %v", err)
	}
	q, plan, err := b.Trade(&m, Trade{Side: curvekit.Sell, Amount: *uint256.MustFromDecimal("1000000000000000000000"), Recipient: alice})
	if err != nil {
		t.Fatal(err)
	}
	name, args := decode(t, contracts.RouterABI, plan.Tx.Data)
	if name != "swapExactTokensForETH" || q.Venue != curvekit.VenuePool {
		t.Fatalf("%s on %s", name, q.Venue)
	}
	if path := args[2].([]common.Address); path[0] != token || path[1] != weth {
		t.Fatalf("path %v", path)
	}
	if _, _, err := b.Trade(&m, Trade{Side: "hold", Amount: *uint256.NewInt(1), Recipient: alice}); !errors.Is(err, curvekit.ErrInvalid) {
		t.Fatalf("side hold: %v", err)
	}
}
