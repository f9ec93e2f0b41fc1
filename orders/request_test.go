package orders

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/google/go-cmp/cmp"

	"github.com/curvekit/curvekit"
)

var (
	now   = time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	eth   = &Market{Decimals: 18, QuoteDecimals: 18}
	token = "0x00000000000000000000000000000000000000aA"
)

func num(f float64) *float64 { return &f }

func TestRequestOrders(t *testing.T) {
	for name, tc := range map[string]struct {
		req   Request
		check func(t *testing.T, o Order)
	}{
		"limit buy": {Request{Kind: "limit", Token: token, Side: "buy", Amount: "0.01", Price: "0.000000004", Slippage: num(1)}, func(t *testing.T, o Order) {
			if o.Side != curvekit.Buy || o.Amount.Dec() != "10000000000000000" || o.Price.Dec() != "4000000000000000000000000000" || o.SlippageBps != 100 {
				t.Errorf("%+v", o)
			}
		}},
		"stop-loss of half": {Request{Kind: "stop-loss", Token: token, Percent: num(50), Price: "0.000000002"}, func(t *testing.T, o Order) {
			if o.Side != curvekit.Sell || o.Percent != 5_000 || !o.Amount.IsZero() || o.SlippageBps != DefaultSlippageBps {
				t.Errorf("%+v", o)
			}
		}},
		"trailing stop": {Request{Kind: "trailing-stop", Token: token, Amount: "1000", Trail: num(12.5)}, func(t *testing.T, o Order) {
			if o.TrailBps != 1_250 || o.Amount.Dec() != "1000000000000000000000" {
				t.Errorf("%+v", o)
			}
		}},
		"dca": {Request{Kind: "dca", Token: token, Side: "buy", Amount: "0.001", Every: "1m", Times: 3}, func(t *testing.T, o Order) {
			if o.Every != time.Minute || o.Times != 3 || !o.NextAt.Equal(now) || o.Count() != 3 || !o.DueAt(2).Equal(now.Add(2*time.Minute)) {
				t.Errorf("%+v", o)
			}
		}},
		"twap": {Request{Kind: "twap", Token: token, Side: "buy", Total: "0.01", Over: "10m", Slices: 3, ExpiresAt: "2026-11-27T00:00:00Z"}, func(t *testing.T, o Order) {
			var sum = o.SliceAmount(0)
			for n := 1; n < 3; n++ {
				s := o.SliceAmount(n)
				sum.Add(&sum, &s)
			}
			first, last := o.SliceAmount(0), o.SliceAmount(2)
			if sum != o.Amount || first.Dec() != "3333333333333333" || last.Dec() != "3333333333333334" ||
				!o.DueAt(1).Equal(now.Add(200*time.Second)) || !o.ExpiresAt.Equal(now.Add(12*time.Hour)) {
				t.Errorf("%+v", o)
			}
		}},
		"expiry a year ahead": {Request{Kind: "limit", Token: token, Side: "buy", Amount: "1", Price: "1", ExpiresAt: "2027-11-26T12:00:00Z"}, func(t *testing.T, o Order) {
			if !o.ExpiresAt.Equal(now.Add(MaxExpiry)) {
				t.Errorf("%+v", o)
			}
		}},
		"twap of one base unit a slice": {Request{Kind: "twap", Token: token, Side: "buy", Total: "0.000000000000000002", Over: "1h", Slices: 2}, func(t *testing.T, o Order) {
			if a, b := o.SliceAmount(0), o.SliceAmount(1); a.Uint64() != 1 || b.Uint64() != 1 {
				t.Errorf("%+v", o)
			}
		}},
	} {
		t.Run(name, func(t *testing.T) {
			o, err := tc.req.Order(eth, now)
			if err != nil {
				t.Fatal(err)
			}
			if o.State != Open || o.Token != common.HexToAddress(token) || !o.CreatedAt.Equal(now) {
				t.Fatalf("%+v", o)
			}
			tc.check(t, o)
		})
	}
}

// Bad params are refused with every failing field listed at once.
func TestRequestListsEveryProblem(t *testing.T) {
	for name, tc := range map[string]struct {
		req  Request
		want []string // field prefixes, in order
	}{
		"empty":           {Request{}, []string{"token", "kind"}},
		"unknown kind":    {Request{Kind: "market", Token: token}, []string{"kind"}},
		"limit, all bad":  {Request{Kind: "limit", Token: "0x12", Side: "hold", Amount: "-1", Price: "0", Slippage: num(51), ExpiresAt: "tomorrow", Every: "1m"}, []string{"token", "side", "amount", "price", "every", "slippage", "expiresAt"}},
		"buy by percent":  {Request{Kind: "limit", Token: token, Side: "buy", Percent: num(50), Price: "1"}, []string{"percent"}},
		"both amounts":    {Request{Kind: "stop-loss", Token: token, Amount: "1", Percent: num(10), Price: "1"}, []string{"amount, percent"}},
		"stop buys":       {Request{Kind: "stop-loss", Token: token, Side: "buy", Amount: "1", Price: "1"}, []string{"side"}},
		"too fine":        {Request{Kind: "limit", Token: token, Side: "buy", Amount: "0.0000000000000000001", Price: "1.0000000000000000000000000000000000001"}, []string{"amount", "price"}},
		"percent range":   {Request{Kind: "take-profit", Token: token, Percent: num(100.5), Price: "1"}, []string{"percent"}},
		"percent digits":  {Request{Kind: "take-profit", Token: token, Percent: num(33.333), Price: "1"}, []string{"percent"}},
		"trail missing":   {Request{Kind: "trailing-stop", Token: token, Amount: "1", Price: "1"}, []string{"price", "trail"}},
		"trail 100":       {Request{Kind: "trailing-stop", Token: token, Amount: "1", Trail: num(100)}, []string{"trail"}},
		"dca bad":         {Request{Kind: "dca", Token: token, Side: "buy", Amount: "1", Every: "30s", Times: 0, Over: "1h"}, []string{"every", "times", "over"}},
		"twap bad":        {Request{Kind: "twap", Token: token, Side: "buy", Amount: "1", Over: "1m", Slices: 7, Trail: num(3)}, []string{"amount", "total", "trail", "slices"}},
		"twap too many":   {Request{Kind: "twap", Token: token, Side: "sell", Total: "1", Over: "1m", Slices: 1001}, []string{"slices"}},
		"past expiry":     {Request{Kind: "dca", Token: token, Side: "buy", Amount: "1", Every: "1h", Times: 2, ExpiresAt: "2026-11-26T11:00:00Z"}, []string{"expiresAt"}},
		"year 9999":       {Request{Kind: "limit", Token: token, Side: "buy", Amount: "1", Price: "1", ExpiresAt: "9999-12-31T23:59:59Z"}, []string{"expiresAt"}},
		"beyond a year":   {Request{Kind: "limit", Token: token, Side: "buy", Amount: "1", Price: "1", ExpiresAt: "2027-11-26T12:00:01Z"}, []string{"expiresAt"}},
		"twap of 1 wei":   {Request{Kind: "twap", Token: token, Side: "buy", Total: "0.000000000000000001", Over: "1h", Slices: 2}, []string{"slices"}},
		"twap of dust":    {Request{Kind: "twap", Token: token, Side: "sell", Total: "0.000000000000000009", Over: "1h", Slices: 10}, []string{"slices"}},
		"negative slip":   {Request{Kind: "dca", Token: token, Side: "buy", Amount: "1", Every: "1h", Times: 2, Slippage: num(-1)}, []string{"slippage"}},
		"zero amount":     {Request{Kind: "dca", Token: token, Side: "sell", Amount: "0", Every: "1h", Times: 2}, []string{"amount"}},
		"sell no amount":  {Request{Kind: "limit", Token: token, Side: "sell", Price: "1"}, []string{"amount"}},
		"twap percent":    {Request{Kind: "twap", Token: token, Side: "sell", Percent: num(5), Total: "1", Over: "1h", Slices: 2}, []string{"percent"}},
		"limit with high": {Request{Kind: "limit", Token: token, Side: "sell", Amount: "1", Price: "1", Times: 3, Slices: 2, Over: "1h", Total: "2"}, []string{"total", "times", "over", "slices"}},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := tc.req.Order(eth, now)
			var p curvekit.Problems
			if !errors.As(err, &p) || !errors.Is(err, curvekit.ErrInvalid) {
				t.Fatalf("err = %v, want Problems", err)
			}
			var got []string
			for _, s := range p {
				field, _, _ := strings.Cut(s, ": ")
				got = append(got, field)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("fields (-want +got):\n%s\n%v", diff, p)
			}
		})
	}
}

// A well-formed order for a token the market does not know is a 404 once nothing else fails.
func TestRequestUnknownToken(t *testing.T) {
	r := Request{Kind: "dca", Token: token, Side: "buy", Amount: "1", Every: "1h", Times: 2}
	if _, err := r.Order(nil, now); !errors.Is(err, curvekit.ErrNotFound) {
		t.Errorf("unknown token: %v, want ErrNotFound", err)
	}
	r.Times = 0
	if _, err := r.Order(nil, now); !errors.Is(err, curvekit.ErrInvalid) {
		t.Errorf("unknown token with a bad field: %v, want ErrInvalid", err)
	}
}

// The state machine: final states are final; every state reaches a final one.
func TestStateMachine(t *testing.T) {
	for _, from := range States {
		for _, to := range States {
			ok := CanMove(from, to)
			if from.Final() && ok {
				t.Errorf("%s → %s allowed from a final state", from, to)
			}
			if _, err := Move(from, to); (err == nil) != ok || (err != nil && !errors.Is(err, curvekit.ErrConflict)) {
				t.Errorf("Move(%s, %s) = %v, CanMove %v", from, to, err, ok)
			}
		}
		if !from.Final() && !CanMove(from, Cancelled) {
			t.Errorf("a %s order cannot be cancelled", from)
		}
	}
	for _, path := range [][]State{{Open, Triggered, Sent, Filled}, {Open, Triggered, Failed}, {Open, Expired}, {Open, Triggered, Sent, Open, Triggered, Sent, Filled}} {
		for i := 1; i < len(path); i++ {
			if !CanMove(path[i-1], path[i]) {
				t.Errorf("path %v: %s → %s refused", path, path[i-1], path[i])
			}
		}
	}
	if CanMove(Open, Filled) || CanMove(Open, Sent) || CanMove(Expired, Open) {
		t.Error("a shortcut is allowed")
	}
}
