package httpapi

import (
	"net/http"
	"strings"

	"github.com/curvekit/curvekit/account"
	"github.com/curvekit/curvekit/agent"
	"github.com/curvekit/curvekit/candles"
	"github.com/curvekit/curvekit/launch"
	"github.com/curvekit/curvekit/market"
	"github.com/curvekit/curvekit/orders"
	"github.com/curvekit/curvekit/push"
	"github.com/curvekit/curvekit/stream"
	"github.com/curvekit/curvekit/wallet"
)

// apiVersion is the version of the API the document describes.
const apiVersion = "1.0.0"

// operations describe every route of the table for the OpenAPI document, by the route's method
// and full path. A route without one fails New (and so every test).
var operations = map[string]op{
	"GET /openapi.json": {id: "getOpenAPI", summary: "This document: OpenAPI 3.1, built from the route table", resp: openAPIDocument{}},
	"GET /config":       {id: "getConfig", summary: "Chain, contracts, platform settings, rate limit and tiers", resp: configJSON{}},
	"GET /healthz":      {id: "getHealth", summary: "Liveness: the process answers", resp: healthJSON{}},
	"GET /readyz": {id: "getReadiness", summary: "Readiness: every check of the server (503 with the failing ones)",
		resp: healthJSON{}, also: map[int]string{http.StatusServiceUnavailable: "Not ready: the checks object names what failed"}},

	"GET /tokens": {id: "listTokens", summary: "Launched tokens, newest first or by another order, a page at a time", resp: tokenListJSON{},
		query: []param{
			strParam("sort", "The order (default newest); trending, gainers and losers are described in docs/API.md.", "newest", "volume24h", "marketCap", "progress", "trending", "gainers1h", "gainers24h", "losers24h"),
			strParam("phase", "Only tokens in this phase.", "curve", "graduated"),
			strParam("progressMin", "Only tokens at least this far to graduation, in percent (at most two decimals); 80 with phase=curve is about to graduate."),
			strParam("progressMax", "Only tokens at most this far to graduation, in percent (at most two decimals)."),
			intParam("graduatedSince", "Only tokens that graduated at or after this block time (Unix seconds).", 1, maxUnixTime),
			strParam("quote", "Only tokens paired with this asset: ETH, or an ERC-20's address."),
			strParam("q", "A case-insensitive part of the name or symbol (at most 100 bytes)."),
			strParam("cursor", "The nextCursor of the previous page."),
			intParam("limit", "Tokens per page (default 50).", 1, market.MaxLimit),
		}},
	"GET /tokens/king": {id: "getKing", summary: "The king of the hill: the curve-phase token with the highest market cap, since when it holds the crown",
		resp: kingJSON{}, query: []param{strParam("quote", "The pairing asset: ETH (default) or an ERC-20's address.")}},
	"GET /tokens/:address": {id: "getToken", summary: "One token with its latest state", resp: tokenJSON{}},
	"GET /tokens/:address/quote": {id: "getQuote", summary: "An exact quote of a buy or sell; a refused input is {error} with 200",
		resp: quoteJSON{}, verdict: true, query: []param{
			strParam("type", "buy (default) or sell.", "buy", "sell"),
			strParam("amount", "Exact decimal amount in whole units: of the pairing asset for a buy, of the token for a sell (default 1)."),
		}},
	"POST /tokens/:address/build-tx": {id: "buildTx", summary: "An unsigned transaction (and its approval) for a buy or sell; a refused input is {error} with 200",
		body: buildTxRequest{}, resp: buildJSON{}, verdict: true, outage: true},
	"GET /tokens/:address/trades": {id: "listTrades", summary: "The token's trades, newest first, a page at a time", resp: tradeListJSON{},
		query: []param{
			strParam("cursor", "The nextCursor of the previous page."),
			intParam("limit", "Trades per page (default 50).", 1, market.MaxLimit),
		}},
	"GET /tokens/:address/candles": {id: "getCandles", summary: "OHLCV bars, quiet buckets flat at the previous close", resp: seriesJSON{},
		query: []param{
			strParam("res", "The resolution (default 5m).", resolutionNames()...),
			intParam("from", "Unix seconds; default a window of limit bars before to.", 1, maxUnixTime),
			intParam("to", "Unix seconds; default now.", 1, maxUnixTime),
			intParam("limit", "At most this many bars, the latest (default and most 1000).", 1, market.MaxBars),
		}},
	"GET /tokens/:address/stats": {id: "getStats", summary: "24-hour statistics of the token and how its supply is spread", resp: statsJSON{}},
	"GET /tokens/:address/trades.csv": {id: "exportTradesCSV", summary: "Every trade in a range, oldest first, as CSV streamed a chunk at a time; each line carries the cursor to resume after it",
		media: "text/csv", query: exportParams(false)},
	"GET /tokens/:address/trades.ndjson": {id: "exportTradesNDJSON", summary: "Every trade in a range, oldest first, one JSON object a line (a trade of GET /trades with its cursor)",
		media: "application/x-ndjson", query: exportParams(false)},
	"GET /tokens/:address/candles.csv": {id: "exportCandlesCSV", summary: "Every bar of a range at a resolution, oldest first, as CSV; a bar's time is the cursor to resume after it",
		media: "text/csv", query: exportParams(true)},
	"GET /tokens/:address/candles.ndjson": {id: "exportCandlesNDJSON", summary: "Every bar of a range at a resolution, oldest first, one JSON object a line (a bar of GET /candles)",
		media: "application/x-ndjson", query: exportParams(true)},
	"GET /tokens/:address/holders": {id: "listHolders", summary: "The token's holders, largest first, labelled (curve, pool, burn, creator, sniper), a page at a time",
		resp: holderListJSON{}, query: []param{
			strParam("cursor", "The nextCursor of the previous page."),
			intParam("limit", "Holders per page (default 50).", 1, market.MaxLimit),
		}},
	"GET /tokens/stream": {id: "streamTicks", summary: "Every token's price ticks, live (SSE)", media: "text/event-stream",
		events: []streamEvent{
			{name: "tick", desc: "A token's new price, after each trade.", data: tickJSON{}},
			{name: "refresh", desc: "The chain reorganised or the server restarted: refetch what you show.", data: refreshJSON{}},
			{name: "king", desc: "A new king of the hill of a pairing asset, as GET /tokens/king answers.", data: kingJSON{}},
		}},
	"GET /tokens/:address/stream": {id: "streamToken", summary: "The token's bars and trades from a time, then live; resumes gaplessly with Last-Event-ID (SSE)",
		media: "text/event-stream",
		query: []param{
			strParam("res", "The bars' resolution; any other value is 5m.", resolutionNames()...),
			intParam("from", "Unix seconds: replay bars and trades from here.", 1, maxUnixTime),
			strParam("resume", "How a resume rebuilds: full (default) or partial.", "full", "partial"),
		},
		events: []streamEvent{
			{name: "reset", desc: "Forget the bars you hold; the window follows.", data: resetJSON{}},
			{name: "bar", desc: "A bar, new or updated in place (same time).", data: barJSON{}},
			{name: "trade", desc: "A trade, once.", data: tradeJSON{}},
		}},
	"GET /tokens/:address/logo": {id: "getTokenLogo", summary: "The token's image, from its metadata", media: "*/*"},

	"GET /auth/login": {id: "login", summary: "Starts a sign-in: redirects to the identity provider", redirect: true,
		query: []param{
			strParam("returnTo", "A path of this server to return to (default /)."),
			strParam("login_hint", "Passed to the identity provider."),
		}},
	"GET /auth/callback": {id: "signInCallback", summary: "The identity provider's redirect: sets the session cookie and redirects to returnTo",
		redirect: true,
		query: []param{
			strParam("state", "The sign-in's state."),
			strParam("code", "The authorization code."),
			strParam("error", "The provider's refusal."),
		}},
	"GET /auth/me":           {id: "getMe", summary: "The signed-in user", resp: sessionJSON{}},
	"GET /auth/session":      {id: "getSession", summary: "The signed-in user, or user null for a visitor", resp: sessionJSON{}},
	"GET /auth/logout":       {id: "logout", summary: "Ends the session and clears its cookie", resp: loggedOutJSON{}},
	"GET /auth/user/:wallet": {id: "getProfile", summary: "A user's public profile", resp: profileJSON{}},
	"POST /api-keys": {id: "createApiKey", summary: "Creates an API key; the raw key is in this answer only", body: keyBody{},
		status: http.StatusCreated, resp: newKeyJSON{}},
	"GET /api-keys":        {id: "listApiKeys", summary: "The account's API keys (never the raw keys)", resp: keyListJSON{}},
	"DELETE /api-keys/:id": {id: "revokeApiKey", summary: "Revokes an API key at once", resp: keyRevokedJSON{}},

	"POST /wallet/sign-and-submit": {id: "signAndSubmit", summary: "Signs a transaction with the custodial wallet and broadcasts it, after the account's guard and a simulation; simulateOnly answers the simulation alone; Idempotency-Key makes retries safe",
		body: signBody{}, resp: submissionJSON{}, alt: simulationJSON{}, union: "SignResult", outage: true},
	"POST /wallet/export-key": {id: "exportKey", summary: "The custodial wallet's private key (a recent sign-in required)", body: emptyBody{},
		resp: exportedKeyJSON{}},
	"GET /wallet/transactions": {id: "listWalletTransactions", summary: "The custodial wallet's sent transactions with their hashes, state and fees paid, newest first, a page at a time",
		resp: walletTxListJSON{}, query: []param{
			strParam("cursor", "The nextCursor of the previous page."),
			intParam("limit", "Transactions per page (default 50).", 1, wallet.MaxTransactions),
		}},

	"GET /account/settings": {id: "getSettings", summary: "The account's settings: the wallet's guard (pause, caps, price impact, recipients, relaxation) and the agent profile",
		resp: account.Settings{}},
	"PATCH /account/settings": {id: "patchSettings", summary: "Changes the settings with a JSON Merge Patch (session only; loosening the guard needs a sign-in within 15 minutes)",
		body: settingsPatchBody{}, resp: account.Settings{}},
	"GET /account/activity": {id: "listActivity", summary: "Every change of the settings and every refusal of the wallet's guard, newest first, a page at a time",
		resp: activityListJSON{}, query: []param{
			strParam("cursor", "The nextCursor of the previous page."),
			intParam("limit", "Entries per page (default 50).", 1, account.MaxActivity),
		}},

	"GET /account/stream": {id: "streamAccount", summary: "The account's events, live: its wallet's transactions, its jobs' ends, its orders, its settings' changes, its webhooks disabled, its creator fees; resumes with Last-Event-ID (SSE)",
		media: "text/event-stream",
		events: []streamEvent{
			{name: "ready", desc: "The stream starts: its id is where a reconnect resumes from (reason connect or resume).", data: stream.Ready{}},
			{name: "reset", desc: "The Last-Event-ID is unknown or too far back (reason unknown-id or too-old): read what changed, then go on.", data: stream.Ready{}},
			{name: string(push.WalletTransaction), desc: "The custodial wallet sent a transaction, or it was mined, failed or dropped.", data: accountEventJSON{}},
			{name: string(push.JobCompleted), desc: "An agent job completed.", data: accountEventJSON{}},
			{name: string(push.JobFailed), desc: "An agent job failed.", data: accountEventJSON{}},
			{name: string(push.FeesClaimable), desc: "Creator fees of the account's wallet grew.", data: accountEventJSON{}},
			{name: string(push.OrderTriggered), desc: "One of the account's orders fired: its fire is recorded, its trade not yet sent.", data: accountEventJSON{}},
			{name: string(push.OrderSent), desc: "A fire of one of the account's orders sent its transaction.", data: accountEventJSON{}},
			{name: string(push.OrderFilled), desc: "A fire of one of the account's orders was filled on chain.", data: accountEventJSON{}},
			{name: string(push.OrderFailed), desc: "A fire of one of the account's orders was refused or could not be sent.", data: accountEventJSON{}},
			{name: string(push.OrderExpired), desc: "One of the account's orders expired.", data: accountEventJSON{}},
			{name: string(push.OrderCancelled), desc: "One of the account's orders was cancelled: by the account, or by the server when the API key that placed it was revoked or refused its trade (reason: the code).", data: accountEventJSON{}},
			{name: string(push.SettingsChanged), desc: "The account's settings changed (PATCH /account/settings, a relaxation's start among them): the settings after it and the change's activity entry.", data: accountEventJSON{}},
			{name: string(push.WebhookDisabled), desc: "The server disabled one of the account's webhooks.", data: accountEventJSON{}},
		}},
	"POST /webhooks": {id: "createWebhook", summary: "Subscribes a URL to events; the signing secret (whsec_…) is in this answer only", body: webhookBody{},
		status: http.StatusCreated, resp: webhookSecretJSON{}},
	"GET /webhooks":        {id: "listWebhooks", summary: "The account's webhooks (never their secrets)", resp: webhookListJSON{}},
	"GET /webhooks/:id":    {id: "getWebhook", summary: "One webhook", resp: webhookJSON{}},
	"PATCH /webhooks/:id":  {id: "updateWebhook", summary: "Changes the fields given; enabling clears why it was disabled", body: webhookPatch{}, resp: webhookJSON{}},
	"DELETE /webhooks/:id": {id: "deleteWebhook", summary: "Deletes a webhook and its delivery log", resp: webhookDeletedJSON{}},
	"POST /webhooks/:id/rotate": {id: "rotateWebhookSecret", summary: "A new signing secret, in this answer only; the old one signs beside it for 24 hours",
		body: emptyBody{}, resp: webhookSecretJSON{}},
	"POST /webhooks/:id/test": {id: "testWebhook", summary: "Sends a ping event now; its outcome appears in the delivery log", body: emptyBody{},
		status: http.StatusAccepted, resp: deliveryJSON{}},
	"GET /webhooks/:id/deliveries": {id: "listWebhookDeliveries", summary: "The delivery log, newest first: each attempt's status, latency and the start of the answer",
		resp: deliveryListJSON{}, query: []param{
			strParam("cursor", "The nextCursor of the previous page."),
			intParam("limit", "Deliveries per page (default 50).", 1, push.MaxDeliveries),
		}},
	"POST /webhooks/:id/deliveries/:delivery/replay": {id: "replayWebhookDelivery", summary: "Delivers one event again, with the same webhook-id", body: emptyBody{},
		status: http.StatusAccepted, resp: replayedJSON{}},
	"POST /webhooks/:id/replay": {id: "replayWebhook", summary: "Delivers again every event delivered (or not) since a time", body: replayBody{},
		status: http.StatusAccepted, resp: replayedJSON{}},

	"POST /orders": {id: "placeOrder", summary: "Places a standing order (limit, stop-loss, take-profit, trailing-stop, dca, twap) that the server fires through the custodial wallet",
		body: orderBody{}, status: http.StatusCreated, resp: orderJSON{}},
	"GET /orders": {id: "listOrders", summary: "The account's orders with their fires, newest first, a page at a time", resp: orderListJSON{},
		query: []param{
			strParam("token", "Only orders on this token."),
			strParam("state", "Only orders in this state.", "open", "triggered", "sent", "filled", "failed", "expired", "cancelled"),
			strParam("kind", "Only orders of this kind.", "limit", "stop-loss", "take-profit", "trailing-stop", "dca", "twap"),
			strParam("cursor", "The nextCursor of the previous page."),
			intParam("limit", "Orders per page (default 50).", 1, orders.MaxPage),
		}},
	"GET /orders/:id":    {id: "getOrder", summary: "One order with its fires", resp: orderJSON{}},
	"DELETE /orders/:id": {id: "cancelOrder", summary: "Cancels an order: nothing more of it fires (409 once it has ended)", resp: orderJSON{}},

	"POST /agent/job": {id: "submitAgentJob", summary: "Submits a prompt as a job; poll GET /agent/job/{id}", body: promptBody{},
		status: http.StatusAccepted, resp: jobAcceptedJSON{}},
	"GET /agent/job/:id":         {id: "getAgentJob", summary: "A job: status, response, composed transactions and proposed orders", resp: jobJSON{}},
	"POST /agent/job/:id/cancel": {id: "cancelAgentJob", summary: "Cancels a pending job", resp: jobJSON{}},
	"POST /agent/prompt": {id: "promptAgent", summary: "One turn of the agent, streamed (SSE)", body: promptBody{}, media: "text/event-stream",
		events: []streamEvent{
			{name: string(agent.EventUsage), desc: "Tokens used so far.", data: agent.UsageUpdate{}},
			{name: string(agent.EventText), desc: "The next piece of the answer.", data: agent.TextDelta{}},
			{name: string(agent.EventTransaction), desc: "An unsigned transaction for the wallet owner to confirm.", data: agent.Transaction{}},
			{name: string(agent.EventOrder), desc: "A standing order proposed for the wallet owner to place with POST /orders; nothing is armed.", data: agent.OrderProposal{}},
			{name: string(agent.EventDone), desc: "The turn succeeded.", data: agent.Done{}},
			{name: string(agent.EventError), desc: "The turn failed.", data: agent.TurnError{}},
		}},
	"GET /agent/memory":         {id: "listAgentMemory", summary: "What the agent remembers for the wallet", resp: memoriesJSON{}},
	"DELETE /agent/memory/:key": {id: "forgetAgentMemory", summary: "Forgets one remembered preference", resp: memoryDeletedJSON{}},
	"GET /agent/tools":          {id: "listAgentTools", summary: "The agent's tools with their JSON input schemas", resp: agentToolsJSON{}},
	"POST /agent/tools/:name": {id: "callAgentTool", summary: "Runs one tool with the arguments of its input schema", body: toolArguments{},
		resp: agentToolResultJSON{}},

	"POST /launch/metadata":     {id: "pinMetadata", summary: "Validates and pins a token's metadata document", body: metadataBody{}, resp: metadataJSON{}, outage: true},
	"POST /launch/upload-image": {id: "uploadImage", summary: "Pins a token image (PNG, JPEG, GIF or WebP, at most 5 MB)", upload: true, resp: imageJSON{}, outage: true},
	"GET /launch/estimate-fee": {id: "estimateLaunchFee", summary: "The gas and fee a launch would cost now", resp: estimateJSON{},
		query: []param{func() param {
			p := required(strParam("from", "The wallet that would launch."))
			p.schema = addressSchema()
			return p
		}()}, outage: true},
	"GET /launch/daily-limit/:wallet": {id: "getDailyLimit", summary: "The wallet's launches today against its tier's limit", resp: dailyLimitJSON{}},
	"GET /launch/fees/:wallet":        {id: "getCreatorFees", summary: "Creator fees: claimable, earned and claimed, per pairing asset and token", resp: feesJSONBody{}},
	"GET /launch/earnings/:wallet": {id: "getCreatorEarnings", summary: "Creator fees earned per day", resp: earningsJSON{},
		query: []param{intParam("days", "How many days back (default 30).", 1, launch.MaxDays)}},
	"POST /launch/build-tx": {id: "buildLaunchTx", summary: "Composes a launch for the wallet owner to confirm: the factory call (and an approval for an ERC-20 first buy)", body: launchTxBody{}, resp: launchTxJSON{}, outage: true},
	"POST /launch/claim-tx": {id: "buildClaimTx", summary: "Composes the creator's fee claim of one token", body: claimTxBody{}, resp: claimTxJSON{}, outage: true},
	"GET /udf/config":       {id: "udfConfig", summary: "TradingView UDF: the datafeed's configuration", resp: udfConfigJSON{}},
	"GET /udf/time":         {id: "udfTime", summary: "TradingView UDF: the server's clock, Unix seconds, as text", media: "text/plain"},
	"GET /udf/symbols": {id: "udfSymbol", summary: "TradingView UDF: a symbol's information (a token by address or symbol)",
		resp: udfSymbolJSON{}, verdict: true, query: []param{required(strParam("symbol", "A token's address (or curvekit:address), or a symbol only one token has."))}},
	"GET /udf/search": {id: "udfSearch", summary: "TradingView UDF: the tokens of a list (the symbol type) whose name or symbol holds the query, in the list's order",
		resp: udfSearchJSON{}, verdict: true, query: []param{
			strParam("query", "A part of the name or symbol (at most 100 bytes), or an address."),
			strParam("type", "The list, one of the configuration's symbols_types: empty (every token, trending first), graduating (about to graduate, closest first), graduated, gainers1h, gainers24h, losers24h; crypto, every symbol's type, is every token.", udfTypeValues()...),
			strParam("exchange", "curvekit, or empty.", "", udfExchange),
			intParam("limit", "At most this many (default 30).", 1, market.MaxLimit),
		}},
	"GET /udf/history": {id: "udfHistory", summary: "TradingView UDF: the bars of a range, as /tokens/{address}/candles computes them",
		resp: udfHistoryJSON{}, verdict: true, query: []param{
			required(strParam("symbol", "A token's address (or curvekit:address), or a symbol only one token has.")),
			required(strParam("resolution", "The bars' resolution, one of the configuration's supported_resolutions (D is 1D).", append(udfResolutionNames(false), "D")...)),
			intParam("from", "Unix seconds: the first bar's bucket holds it.", 0, maxUnixTime),
			required(intParam("to", "Unix seconds, exclusive.", 1, maxUnixTime)),
			intParam("countback", "The latest this many bars before to (at most 1000), instead of from.", 0, maxUnixTime),
		}},
	"GET /ipfs/:cid": {id: "getPinnedContent", summary: "Content this server pinned, by CID (images, metadata documents)", media: "*/*", outage: true},
}

// openAPIDocument is GET /openapi.json's body: an OpenAPI 3.1 document.
type openAPIDocument map[string]any

// op is the operation of a mounted handler for method.
func (d MountDoc) op(method string) op {
	o := op{id: d.ID + string(method[0]) + strings.ToLower(method[1:]), summary: d.Summary, consumes: d.Consumes,
		produces: d.Produces, redirect: d.Redirects}
	if d.ID == "" {
		o.id = ""
	}
	if method != http.MethodPost {
		o.consumes = nil
	}
	return o
}

// buildTxRequest is POST /tokens/:address/build-tx's body as clients send it (buildBody reads
// each field raw to name its own problem).
type buildTxRequest struct {
	Type   string `json:"type" openapi:"required" enum:"buy,sell"`
	Amount string `json:"amount" openapi:"required"`
	// Slippage is percent, as a string or a number (default 1).
	Slippage  slippage `json:"slippage"`
	Recipient string   `json:"recipient"`
	// From is the sending wallet: with it the answer carries issues.
	From string `json:"from"`
}

// slippage is a percentage, a string or a number.
type slippage any

// toolArguments are a tool's arguments, as its input schema says.
type toolArguments map[string]any

// required marks p required.
func required(p param) param {
	p.required = true
	return p
}

// resolutionNames are the wire forms of the candles' resolutions, shortest first.
func resolutionNames() []string {
	var out []string
	for _, r := range candles.Resolutions() {
		out = append(out, r.String())
	}
	return out
}

// exportParams are the query of the exports, of bars or of trades.
func exportParams(bars bool) []param {
	ps := []param{
		intParam("from", "Unix seconds: the first time covered (default the first trade).", 1, maxUnixTime),
		intParam("to", "Unix seconds: covered up to, not including, this time (default now).", 1, maxUnixTime),
	}
	if bars {
		return append(ps, strParam("res", "The resolution (default 5m).", resolutionNames()...),
			strParam("cursor", "The time of the last bar received: resume after it."))
	}
	return append(ps, strParam("cursor", "The cursor of the last line received: resume after it."))
}
