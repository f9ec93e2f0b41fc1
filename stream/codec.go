package stream

import (
	"github.com/ethereum/go-ethereum/common"

	"github.com/curvekit/curvekit/candles"
	"github.com/curvekit/curvekit/market"
)

// Codec encodes event payloads. The wire format belongs to the HTTP adapter (adapters/httpapi
// implements Codec with the same JSON shapes as its REST answers); the feed calls it once per
// message, so every subscriber shares the bytes.
type Codec interface {
	// Trade encodes a trade event: the raw trade, as GET /tokens/:address/trades lists it.
	Trade(t *market.Token, tr *market.Trade) ([]byte, error)
	// Bar encodes a bar event, as GET /tokens/:address/candles lists it.
	Bar(t *market.Token, b *candles.Bar) ([]byte, error)
	// Tick encodes a tick event (SPEC 2.6 PriceTick).
	Tick(t *Tick) ([]byte, error)
	// Reset encodes a reset event.
	Reset(r *Reset) ([]byte, error)
	// Refresh encodes a refresh event.
	Refresh(r *Refresh) ([]byte, error)
	// King encodes a king event: the new king of the hill, as GET /tokens/king answers.
	King(k *market.KingView) ([]byte, error)
}

// Tick is a token's price state after a sync that saw it trade.
type Tick struct {
	// Stats is the token's state after the sync, as GET /tokens/:address/stats computes it.
	Stats market.Stats
	// Last is the token's last trade in the sync: the tick's chain cursor.
	Last *market.Trade
}

// Reasons carried by reset and refresh events.
const (
	// ReasonConnect: a connection without Last-Event-ID.
	ReasonConnect = "connect"
	// ReasonResume: a connection that resumes from its Last-Event-ID: a full reset (a partial
	// one when the client asked for it), the window, then the trades after the id.
	ReasonResume = "resume"
	// ReasonUnknownID: the Last-Event-ID is malformed, names a trade the store does not hold
	// (a chain reorganization removed it, or it belongs to another chain or token), or has a
	// time after the present or before its trade.
	ReasonUnknownID = "unknown-id"
	// ReasonTooOld: the Last-Event-ID is further back than a resume replays (more trades than
	// MaxResumeTrades, or, for a partial resume, more bars than a window holds).
	ReasonTooOld = "too-old"
	// ReasonReorg: a chain reorganization rewrote the token's history.
	ReasonReorg = "reorg"
	// ReasonGap: the token was quiet for more buckets than a live message carries.
	ReasonGap = "gap"
	// ReasonFeed: the live feed lost track of the token (a store read failed); the store is
	// authoritative and the stream rebuilds from it.
	ReasonFeed = "feed"
	// ReasonTrades: a sync wrote trades (refresh).
	ReasonTrades = "trades"
)

// Reset is the payload of a reset event. A client drops every bar at or after From (all of them
// and its trade list when Full) and rebuilds from the events that follow.
type Reset struct {
	Token      common.Address
	Resolution candles.Resolution
	Reason     string
	// From is the first bucket the replay that follows covers.
	From int64
	// Full says that history before From may have changed too: the client drops everything.
	Full bool
}

// Refresh is the payload of a refresh event: the token list changed; re-fetch GET /tokens.
type Refresh struct {
	Reason string
	// Block is the sync's cursor, 0 on connect.
	Block uint64
}
