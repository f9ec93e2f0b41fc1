// Package stream is the live side of the market API: the server-sent-event streams of SPEC section
// 6, fed by the indexer, with the same bars as the REST candles.
//
// Three parts, wired by hand (examples/server):
//
//   - Hub fans messages out per topic (GlobalTopic, TokenTopic). Each subscriber has a bounded
//     buffer (HubConfig.Buffer, 1000 messages by default) that grows only while it lags; Publish
//     never blocks, and a subscriber whose buffer is full is cut off with ErrSlow instead of
//     slowing anyone. The hub keeps no history: a client that missed something resumes from the
//     store.
//   - Feed turns each market.Sync into messages: per trade, in chain order, the raw trade and the
//     bar it moved at all six resolutions (with the flat bars of the quiet buckets it closed),
//     folded by candles.Folder from a state seeded in the store, so that each bar is what
//     market.Service.Candles returns for its bucket; per sync, a tick per token that traded and a
//     refresh; on a chain reorganization, a reset for every token it rewrote.
//   - Service opens a connection: it subscribes, replays from the store through
//     market.Service.Candles (the REST computation), then turns live messages into events, with a
//     heartbeat comment when idle. The HTTP adapter writes the events (adapters/httpapi).
//
// # Token stream protocol
//
// Events are reset, bar and trade. A client keeps a map of bars by time and a list of trades:
//
//   - reset {from, full, reason, resolution}: drop all bars and the trade list (SPEC 6.2). Only a
//     client that asked for partial resumes (TokenRequest.Partial) gets resets with full false:
//     it then drops only the bars at or after from. Then rebuild from the events that follow.
//   - bar: upsert by time (the current bucket's bar is sent again, updated in place, as trades
//     land; a quiet bucket arrives as a flat bar at the previous close).
//   - trade: append.
//
// A connection sends reset, then the replay (bars oldest first, then on a resume the trades after
// the Last-Event-ID), then live events. Between two resets bar times never decrease, and each trade
// is sent once. The replay reaches the bucket of the newest of the hub's time (the newest trade
// published, any token), the token's last trade and a resumed id's time, never past the present
// (Market.Now); no later trade can fall in an earlier bucket, so live bars continue where the
// replay ends. The replay's bars come with the newest trade they include (market.Series.Last):
// live messages up to it are skipped, later ones sent, so the replay/live boundary has no gap and
// no duplicate however the store and the hub raced.
//
// A Last-Event-ID the store vouches for resumes: a full reset, the whole window (the bars from
// From, or the latest market.MaxBars buckets), then the trades after the id; with Partial, a
// partial reset from the bucket of the id's time (not before From), the bars since and the same
// trades. Anything else is a full reset without trades: a connect replays from From or the
// current bucket; an id that is malformed, has a time after the present or before its trade,
// names a trade the store does not hold (a reorganization removed it), is followed by a trade
// older than its time, or lies further back than MaxResumeTrades trades (or, partial, a window)
// gets the window from From or the latest market.MaxBars buckets: never silence, never an error.
// Reorganizations, a quiet stretch longer than MaxQuiet buckets and a feed failure rebuild a
// running connection the same way.
//
// # Event ids
//
// See ID: "<block>-<logIndex>-<time>-<tag>", the newest trade the client holds and how far its
// bars reach. A live trade and its bar carry the trade's id; quiet bars carry none (the client
// keeps its last id); a full reset other than a resume carries an empty id field (Event.ClearID),
// so that a client cut off during the rebuild reconnects as new, while a resume's reset carries
// none (cut off, the client resumes from the same id again); the replay sets one on its last
// event and on each replayed trade only, so a client cut off in the middle resumes from where it
// was before.
//
// # Global stream
//
// tick (a token's price state after a sync, with the cursor of its last trade) and refresh (the
// token list changed: re-fetch it). Every connection starts with a refresh (reason connect), which
// covers whatever a resuming client missed.
//
// # Account streams
//
// Service.Account streams one account's events (push's envelope) from AccountTopic: whoever
// records them publishes nothing here; each replica's tail of the store (internal/app) publishes
// every account event, in the order of its number (Message.Seq), so ids are the same on every
// replica. A connection opens with ready (id: the newest number now), or with a Last-Event-ID
// the replay of the account's events after it; live events the replay included are skipped. An
// account has at most Config.MaxAccountStreams of them open in one process (Hub.SubscribeAtMost
// counts the topic's subscribers under the hub's lock).
package stream
