package orders_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/google/go-cmp/cmp"
	"github.com/holiman/uint256"

	"github.com/curvekit/curvekit"
	. "github.com/curvekit/curvekit/orders"
)

// model is the reference the index must agree with: every open order checked against every
// price, the obvious way.
type model struct {
	orders []*Order
	high   map[string]uint256.Int
	last   map[common.Address]uint256.Int
}

func (m *model) add(o *Order) {
	if o.Kind == TrailingStop && o.High.IsZero() {
		if last, ok := m.last[o.Token]; ok {
			m.high[o.ID] = last
		}
	}
	m.orders = append(m.orders, o)
}

func (m *model) price(token common.Address, p *uint256.Int) []string {
	m.last[token] = *p
	var fired []string
	keep := m.orders[:0]
	for _, o := range m.orders {
		if o.Token != token {
			keep = append(keep, o)
			continue
		}
		var fire bool
		switch {
		case o.Kind == TrailingStop:
			h := m.high[o.ID]
			if p.Cmp(&h) > 0 {
				h = *p
				m.high[o.ID] = h
			}
			stop := Stop(&h, o.TrailBps)
			fire = p.Cmp(&stop) <= 0
		case o.Kind == StopLoss, o.Kind == Limit && o.Side == curvekit.Buy:
			fire = p.Cmp(&o.Price) <= 0
		default:
			fire = p.Cmp(&o.Price) >= 0
		}
		if fire {
			fired = append(fired, o.ID)
		} else {
			keep = append(keep, o)
		}
	}
	m.orders = keep
	return fired
}

func randomOrder(r *rand.Rand, i int, tokens []common.Address) *Order {
	o := &Order{ID: fmt.Sprintf("o%04d", i), Token: tokens[r.IntN(len(tokens))], State: Open, Side: curvekit.Sell}
	switch r.IntN(5) {
	case 0:
		o.Kind, o.Side = Limit, curvekit.Buy
	case 1:
		o.Kind = Limit
	case 2:
		o.Kind = StopLoss
	case 3:
		o.Kind = TakeProfit
	default:
		o.Kind, o.TrailBps = TrailingStop, uint32(1+r.IntN(3_000))
	}
	o.Price.SetUint64(uint64(500 + r.IntN(1_000)))
	return o
}

// Random price paths and orders placed along them: the index fires exactly the orders the
// reference model fires, at the same price, in an order that is the model's up to ties.
func TestIndexAgreesWithModel(t *testing.T) {
	for seed := range uint64(200) {
		r := rand.New(rand.NewPCG(seed, 33))
		tokens := []common.Address{common.HexToAddress("0x01"), common.HexToAddress("0x02"), common.HexToAddress("0x03")}
		x, m := NewIndex(), &model{high: map[string]uint256.Int{}, last: map[common.Address]uint256.Int{}}
		price := map[common.Address]uint64{}
		n := 0
		for step := range 300 {
			if r.IntN(3) == 0 {
				o := randomOrder(r, n, tokens)
				n++
				m.add(o)
				x.Add(o, uint64(n))
			}
			if r.IntN(10) == 0 && len(m.orders) > 0 {
				gone := m.orders[r.IntN(len(m.orders))]
				x.Remove(gone.ID)
				m.orders = slices.DeleteFunc(m.orders, func(o *Order) bool { return o == gone })
			}
			tok := tokens[r.IntN(len(tokens))]
			p := price[tok]
			if p == 0 {
				p = 1_000
			}
			p = uint64(int64(p) + int64(r.IntN(201)) - 100)
			p = max(p, 1)
			price[tok] = p
			pv := uint256.NewInt(p)
			want := m.price(tok, pv)
			hits, _ := x.Price(tok, pv, nil, nil)
			var got []string
			for _, h := range hits {
				if h.Price != *pv {
					t.Fatalf("seed %d step %d: hit at %s, price %d", seed, step, h.Price.Dec(), p)
				}
				got = append(got, h.OrderID)
			}
			slices.Sort(want)
			slices.Sort(got)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("seed %d step %d price %d: fired (-model +index):\n%s", seed, step, p, diff)
			}
			if x.Len() != len(m.orders) {
				t.Fatalf("seed %d step %d: index holds %d, model %d", seed, step, x.Len(), len(m.orders))
			}
		}
	}
}

// Price orders at equal triggers fire oldest first; a fired order is gone from the index.
func TestIndexOrderAndRemoval(t *testing.T) {
	tok := common.HexToAddress("0x01")
	x := NewIndex()
	for i, id := range []string{"c", "a", "b"} {
		o := &Order{ID: id, Kind: StopLoss, Token: tok, State: Open, Side: curvekit.Sell}
		o.Price.SetUint64(100)
		x.Add(o, uint64(i))
	}
	hits, _ := x.Price(tok, uint256.NewInt(90), nil, nil)
	if len(hits) != 3 || hits[0].OrderID != "c" || hits[1].OrderID != "a" || hits[2].OrderID != "b" {
		t.Errorf("hits = %+v", hits)
	}
	if hits, _ := x.Price(tok, uint256.NewInt(80), nil, nil); len(hits) != 0 || x.Len() != 0 {
		t.Errorf("fired again: %+v (len %d)", hits, x.Len())
	}
	// A trailing stop placed after a price starts from it, rises with the price, and reports
	// the new high to be stored.
	o := &Order{ID: "t", Kind: TrailingStop, Token: tok, State: Open, TrailBps: 1_000, Side: curvekit.Sell}
	x.Add(o, 9)
	if h, _ := x.High("t"); h.Uint64() != 80 {
		t.Errorf("high at placement = %d, want the last price 80", h.Uint64())
	}
	if hits, raised := x.Price(tok, uint256.NewInt(200), nil, nil); len(hits) != 0 || len(raised) != 1 {
		t.Errorf("new high: hits %v raised %v", hits, raised)
	}
	if hits, _ := x.Price(tok, uint256.NewInt(181), nil, nil); len(hits) != 0 {
		t.Errorf("above the stop (180): %v", hits)
	}
	if hits, _ := x.Price(tok, uint256.NewInt(180), nil, nil); len(hits) != 1 {
		t.Errorf("at the stop: %v", hits)
	}
}

// BenchmarkIndexSync is the cost the issue bounds: 10,000 open price orders across 100 tokens,
// one sync of 50 trades evaluated against them (prices moving within a few percent, as a busy
// minute does, firing some). Reported per sync.
func BenchmarkIndexSync(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	tokens := make([]common.Address, 100)
	for i := range tokens {
		tokens[i] = common.BigToAddress(uint256.NewInt(uint64(i + 1)).ToBig())
	}
	build := func() *Index {
		x := NewIndex()
		for i := range 10_000 {
			o := randomOrder(r, i, tokens)
			o.Price.SetUint64(uint64(1_000_000 + r.IntN(2_000_000)))
			o.Price.Mul(&o.Price, uint256.NewInt(1e18))
			x.Add(o, uint64(i))
		}
		for _, tok := range tokens {
			x.Price(tok, new(uint256.Int).Mul(uint256.NewInt(2_000_000), uint256.NewInt(1e18)), nil, nil)
		}
		return x
	}
	prices := make([]uint256.Int, 50)
	toks := make([]common.Address, 50)
	for i := range prices {
		prices[i].Mul(uint256.NewInt(uint64(1_960_000+r.IntN(80_000))), uint256.NewInt(1e18))
		toks[i] = tokens[r.IntN(len(tokens))]
	}
	x := build()
	hits, raised := make([]Hit, 0, 64), make([]string, 0, 64)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if x.Len() < 9_000 {
			b.StopTimer()
			x = build()
			b.StartTimer()
		}
		hits, raised = hits[:0], raised[:0]
		for j := range prices {
			hits, raised = x.Price(toks[j], &prices[j], hits, raised)
		}
	}
}
