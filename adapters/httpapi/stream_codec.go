package httpapi

import (
	"bytes"
	"encoding/json"

	"github.com/curvekit/curvekit/candles"
	"github.com/curvekit/curvekit/market"
	"github.com/curvekit/curvekit/stream"
)

// StreamCodec returns the JSON of the SSE payloads (docs/API.md, Streams). Bars and trades have
// exactly the shapes of GET /tokens/:address/candles and /trades; give the same codec to
// stream.NewFeed and stream.New.
func StreamCodec() stream.Codec { return streamCodec{} }

type streamCodec struct{}

var _ stream.Codec = streamCodec{}

// compact encodes v as one line of JSON (a data field may not hold a newline).
func compact(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte{'\n'}), nil
}

func (streamCodec) King(k *market.KingView) ([]byte, error) {
	return compact(kingJSON{Since: k.Since, Token: tokenOf(&k.Token)})
}

func (streamCodec) Trade(t *market.Token, tr *market.Trade) ([]byte, error) {
	return compact(tradeOf(t, tr))
}

func (streamCodec) Bar(t *market.Token, b *candles.Bar) ([]byte, error) {
	return compact(barOf(b, t.Quote.Decimals))
}

// tickJSON is the PriceTick of SPEC 2.6.
type tickJSON struct {
	Token        string             `json:"token"`
	Phase        market.Phase       `json:"phase"`
	Price        number             `json:"price"`
	Change24h    number             `json:"change24h"`
	MarketCap    string             `json:"marketCap"`
	Liquidity    string             `json:"liquidity"`
	ProgressBps  uint16             `json:"progressBps"`
	Volume24h    string             `json:"volume24h"`
	Reserves     *curveReservesJSON `json:"reserves"`
	PoolReserves *poolReservesJSON  `json:"poolReserves"`
	Block        uint64             `json:"block"`
	LogIndex     uint               `json:"logIndex"`
	Time         int64              `json:"time"`
}

func (streamCodec) Tick(t *stream.Tick) ([]byte, error) {
	v := &t.Stats.Token
	tok := tokenOf(v) // reserves formatted as in the token
	return compact(tickJSON{
		Token: tok.Address, Phase: tok.Phase, Price: tok.Price, Change24h: number(t.Stats.Change24h),
		MarketCap: tok.MarketCap, Liquidity: tok.Liquidity, ProgressBps: tok.ProgressBps, Volume24h: tok.Volume24h,
		Reserves: tok.Reserves, PoolReserves: tok.PoolReserves,
		Block: t.Last.Block, LogIndex: t.Last.LogIndex, Time: t.Last.Time,
	})
}

type resetJSON struct {
	Token      string             `json:"token"`
	Resolution candles.Resolution `json:"resolution"`
	Reason     string             `json:"reason"`
	From       int64              `json:"from"`
	Full       bool               `json:"full"`
}

func (streamCodec) Reset(r *stream.Reset) ([]byte, error) {
	return compact(resetJSON{Token: r.Token.Hex(), Resolution: r.Resolution, Reason: r.Reason, From: r.From, Full: r.Full})
}

type refreshJSON struct {
	Reason string  `json:"reason"`
	Block  *uint64 `json:"block"`
}

func (streamCodec) Refresh(r *stream.Refresh) ([]byte, error) {
	out := refreshJSON{Reason: r.Reason}
	if r.Block != 0 {
		b := r.Block
		out.Block = &b
	}
	return compact(out)
}
