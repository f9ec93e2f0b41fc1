package httpapi

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/curvekit/curvekit/market"
)

func TestConfig(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	e.get(t, "/config").want(t, http.StatusOK, `{
		"chainId": 1337,
		"platform": {"rateLimit": {"requests": 100000, "windowSeconds": 60, "burst": 100000},
			"rateLimits": {
				"signIn": {"requests": 10, "windowSeconds": 900, "burst": 10},
				"signing": {"requests": 30, "windowSeconds": 60, "burst": 30},
				"orders": {"requests": 100, "windowSeconds": 10, "burst": 100},
				"keyExport": {"requests": 3, "windowSeconds": 3600, "burst": 3},
				"upload": {"requests": 60, "windowSeconds": 3600, "burst": 60},
				"export": {"requests": 60, "windowSeconds": 3600, "burst": 60}
			},
			"slippage": {"defaultBps": 100, "maxBps": 5000}},
		"subscription": {"tiers": {"free": {"launchesPerDay": 3}, "pro": {"launchesPerDay": 50}}},
		"fees": {"curveBps": 100, "creatorShareBps": 5000, "poolBps": 30},
		"contracts": {
			"factory": "0xFac7000000000000000000000000000000000001",
			"router": "0x7e70000000000000000000000000000000000002",
			"weth": "0xe7E7000000000000000000000000000000000003",
			"poolFactory": "0x9f00000000000000000000000000000000000004"
		},
		"quoteAssets": [
			{"address": null, "symbol": "ETH", "decimals": 18},
			{"address": "0x7D5D000000000000000000000000000000000005", "symbol": "TUSD", "decimals": 6}
		],
		"rpcUrl": null
	}`)
}

// The fixture tokens as GET /tokens/:address shows them.
const (
	ethTokenJSON = `{
		"address": "0xAAaA000000000000000000000000000000000001",
		"curve": "0xAaAa0000000000000000000000000000000000c1",
		"creator": "0xC4Ea000000000000000000000000000000000007",
		"name": "Frog Coin", "symbol": "FROG", "sameName": 0, "sameSymbol": 0, "uri": "ipfs://bafyfrog", "decimals": 18,
		"quote": {"address": null, "symbol": "ETH", "decimals": 18},
		"phase": "curve", "pool": null,
		"totalSupply": "1000000000",
		"price": 2.7958993476234855e-08,
		"marketCap": "27.958993476234855545", "liquidity": "0", "volume24h": "1.1",
		"buys24h": 1, "sells24h": 1, "progressBps": 0,
		"reserves": {"virtualQuote": "30", "virtualToken": "1073000000", "realQuote": "0", "realToken": "793100000"},
		"poolReserves": null,
		"createdAt": 1799740800, "lastTradeAt": 1799999400, "graduatedAt": null,
		"launchBlock": 100,
		"launchTx": "0x0000000000000000000000000000000000000000000000000000000000000001"
	}`
	tusdTokenJSON = `{
		"address": "0xBbbb000000000000000000000000000000000002",
		"curve": "0xBBbB0000000000000000000000000000000000C2",
		"creator": "0xC4Ea000000000000000000000000000000000007",
		"name": "Dollar Dog", "symbol": "DDOG", "sameName": 0, "sameSymbol": 0, "uri": "ipfs://bafydog", "decimals": 18,
		"quote": {"address": "0x7D5D000000000000000000000000000000000005", "symbol": "TUSD", "decimals": 6},
		"phase": "curve", "pool": null,
		"totalSupply": "1000000000",
		"price": 4.945911783100653e-08,
		"marketCap": "49.459117", "liquidity": "9.90099", "volume24h": "0",
		"buys24h": 0, "sells24h": 0, "progressBps": 1164,
		"reserves": {"virtualQuote": "39.90099", "virtualToken": "806746900.264880645818562397",
			"realQuote": "9.90099", "realToken": "526846900.264880645818562397"},
		"poolReserves": null,
		"createdAt": 1799827200, "lastTradeAt": 1799827260, "graduatedAt": null,
		"launchBlock": 200,
		"launchTx": "0x0000000000000000000000000000000000000000000000000000000000000002"
	}`
	gradTokenJSON = `{
		"address": "0xccCc000000000000000000000000000000000003",
		"curve": "0xcccc0000000000000000000000000000000000c3",
		"creator": "0xC4Ea000000000000000000000000000000000007",
		"name": "Graduate", "symbol": "GRAD", "sameName": 0, "sameSymbol": 0, "uri": "ipfs://bafygrad", "decimals": 18,
		"quote": {"address": null, "symbol": "ETH", "decimals": 18},
		"phase": "graduated", "pool": "0xccCC0000000000000000000000000000000000F3",
		"totalSupply": "1000000000",
		"price": 4.108264862252296e-07,
		"marketCap": "410.826486225229579507", "liquidity": "85", "volume24h": "0",
		"buys24h": 0, "sells24h": 0, "progressBps": 10000,
		"reserves": null,
		"poolReserves": {"quote": "85", "token": "206900000"},
		"createdAt": 1799913600, "lastTradeAt": 1799992800, "graduatedAt": null,
		"launchBlock": 300,
		"launchTx": "0x0000000000000000000000000000000000000000000000000000000000000003"
	}`
)

func TestToken(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	for _, tc := range []struct {
		path, want string
	}{
		{"/tokens/" + ethToken.Hex(), ethTokenJSON},
		{"/tokens/" + tusdToken.Hex(), tusdTokenJSON},
		{"/tokens/" + gradToken.Hex(), gradTokenJSON},
		// Any case is accepted; the answer is checksummed.
		{"/tokens/" + strings.ToLower(ethToken.Hex()), ethTokenJSON},
		{"/tokens/0X" + strings.ToUpper(ethToken.Hex()[2:]), ethTokenJSON},
	} {
		t.Run(tc.path, func(t *testing.T) {
			// The token alone shows how its supply is spread (the fake store knows no holders).
			want := strings.TrimSuffix(strings.TrimSpace(tc.want), "}") + `, "holders": 0, "top10Share": 0, "creatorShare": 0, "creatorBalance": "0"}`
			e.get(t, tc.path).want(t, http.StatusOK, want)
		})
	}
}

// listed is a token's JSON as a list shows it: with its discovery values (0 in the fake store).
func listed(token string) string {
	return strings.TrimSuffix(strings.TrimSpace(token), "}") + `, "trendScore": 0, "change1h": 0, "change24h": 0}`
}

func TestTokenList(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	all := `{"tokens": [` + listed(gradTokenJSON) + `,` + listed(tusdTokenJSON) + `,` + listed(ethTokenJSON) + `], "nextCursor": null}`
	e.get(t, "/tokens").want(t, http.StatusOK, all)
	for _, sort := range []string{"newest", "volume24h", "marketCap", "progress"} {
		// The fake store orders every sort newest first; what matters here is that each is accepted.
		e.get(t, "/tokens?sort="+sort).want(t, http.StatusOK, all)
	}
	e.get(t, "/tokens?phase=graduated").want(t, http.StatusOK, `{"tokens": [`+listed(gradTokenJSON)+`], "nextCursor": null}`)
	e.get(t, "/tokens?phase=curve&q=frog").want(t, http.StatusOK, `{"tokens": [`+listed(ethTokenJSON)+`], "nextCursor": null}`)
	e.get(t, "/tokens?q=nothing-like-it").want(t, http.StatusOK, `{"tokens": [], "nextCursor": null}`)
	e.get(t, "/tokens?quote="+tusdAddr.Hex()).want(t, http.StatusOK, `{"tokens": [`+listed(tusdTokenJSON)+`], "nextCursor": null}`)
	e.get(t, "/tokens?quote=eth&phase=curve").want(t, http.StatusOK, `{"tokens": [`+listed(ethTokenJSON)+`], "nextCursor": null}`)

	// Paging: two, then the last one.
	e.get(t, "/tokens?limit=2").want(t, http.StatusOK, `{"tokens": [`+listed(gradTokenJSON)+`,`+listed(tusdTokenJSON)+`], "nextCursor": "newest:2"}`)
	e.get(t, "/tokens?limit=2&cursor=newest:2").want(t, http.StatusOK, `{"tokens": [`+listed(ethTokenJSON)+`], "nextCursor": null}`)
	e.get(t, "/tokens?limit=100").want(t, http.StatusOK, all)

	for _, tc := range []struct{ query, message string }{
		{"sort=oldest", "sort must be one of newest, volume24h, marketCap, progress, trending, gainers1h, gainers24h, losers24h"},
		{"sort=", "sort must be one of newest, volume24h, marketCap, progress, trending, gainers1h, gainers24h, losers24h"},
		{"phase=pool", "phase must be curve or graduated"},
		{"quote=USD", "quote must be ETH or a pairing asset's address"},
		{"quote=0x12", "quote must be ETH or a pairing asset's address"},
		{"phase=", "phase must be curve or graduated"},
		{"limit=0", "limit must be an integer from 1 to 100"},
		{"limit=101", "limit must be an integer from 1 to 100"},
		{"limit=-1", "limit must be an integer from 1 to 100"},
		{"limit=%2B5", "limit must be an integer from 1 to 100"},
		{"limit=ten", "limit must be an integer from 1 to 100"},
		{"limit=1e1", "limit must be an integer from 1 to 100"},
		{"limit=10&limit=20", "limit given more than once"},
		{"q=" + strings.Repeat("a", 101), "q must be at most 100 bytes"},
		{"cursor=bogus", "unknown cursor"},
		{"q=%zz", "malformed query string"},
	} {
		t.Run(tc.query, func(t *testing.T) {
			e.get(t, "/tokens?"+tc.query).want(t, http.StatusBadRequest, `{"statusCode": 400, "message": "`+tc.message+`", "code": "VALIDATION_FAILED"}`)
		})
	}
}

func TestTrades(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	base := "/tokens/" + ethToken.Hex() + "/trades"
	sell := `{"txHash": "0x000000000000000000000000000000000000000000000000000000000001d8aa", "logIndex": 2,
		"block": 121, "time": 1799999400, "side": "sell", "venue": "curve",
		"trader": "0x7ade000000000000000000000000000000000008", "recipient": "0x7ade000000000000000000000000000000000008",
		"quoteAmount": "0.1", "tokenAmount": "3000000", "fee": "0.001", "creatorFee": "0.0005", "refund": "0",
		"price": 3.3333333333333334e-08}`
	buy := `{"txHash": "0x000000000000000000000000000000000000000000000000000000000001d4c4", "logIndex": 4,
		"block": 120, "time": 1799996400, "side": "buy", "venue": "curve",
		"trader": "0x7ade000000000000000000000000000000000008", "recipient": "0x7ade000000000000000000000000000000000008",
		"quoteAmount": "1", "tokenAmount": "30000000", "fee": "0.01", "creatorFee": "0.005", "refund": "0",
		"price": 3.3333333333333334e-08}`
	old := `{"txHash": "0x000000000000000000000000000000000000000000000000000000000001adb1", "logIndex": 1,
		"block": 110, "time": 1799827200, "side": "buy", "venue": "curve",
		"trader": "0x7ade000000000000000000000000000000000008", "recipient": "0x7ade000000000000000000000000000000000008",
		"quoteAmount": "2", "tokenAmount": "60000000", "fee": "0.02", "creatorFee": "0.01", "refund": "0",
		"price": 3.3333333333333334e-08}`
	e.get(t, base).want(t, http.StatusOK, `{"trades": [`+sell+`,`+buy+`,`+old+`], "nextCursor": null}`)
	e.get(t, base+"?limit=2").want(t, http.StatusOK, `{"trades": [`+sell+`,`+buy+`], "nextCursor": "trades:2"}`)
	e.get(t, base+"?limit=2&cursor=trades:2").want(t, http.StatusOK, `{"trades": [`+old+`], "nextCursor": null}`)
	e.get(t, "/tokens/"+tusdToken.Hex()+"/trades").want(t, http.StatusOK, `{"trades": [], "nextCursor": null}`)

	for _, tc := range []struct{ query, message string }{
		{"limit=0", "limit must be an integer from 1 to 100"},
		{"limit=101", "limit must be an integer from 1 to 100"},
		{"cursor=nope", "unknown cursor"},
		{"cursor=a&cursor=b", "cursor given more than once"},
	} {
		e.get(t, base+"?"+tc.query).want(t, http.StatusBadRequest, `{"statusCode": 400, "message": "`+tc.message+`", "code": "VALIDATION_FAILED"}`)
	}
}

func TestCandles(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	base := "/tokens/" + ethToken.Hex() + "/candles"
	const p = `3.3333333333333334e-08`
	flat := func(at string) string {
		return `{"time": ` + at + `, "open": ` + p + `, "high": ` + p + `, "low": ` + p + `, "close": ` + p + `, "volume": "0", "trades": 0}`
	}
	// The last three hours: a quiet bucket flat at the previous close (the trade two days ago),
	// the bucket with two trades, and the current one. History exists before, so prev is set.
	e.get(t, base+"?res=1h&limit=3").want(t, http.StatusOK, `{
		"resolution": "1h", "from": 1799992800, "to": 1800000000,
		"bars": [`+flat("1799992800")+`,
			{"time": 1799996400, "open": `+p+`, "high": `+p+`, "low": `+p+`, "close": `+p+`, "volume": "1.1", "trades": 2},
			`+flat("1800000000")+`],
		"prev": 1799989200, "noData": false}`)

	// The same window by from and to.
	e.get(t, base+"?res=1h&from=1799992800&to=1800000000").want(t, http.StatusOK, `{
		"resolution": "1h", "from": 1799992800, "to": 1800000000,
		"bars": [`+flat("1799992800")+`,
			{"time": 1799996400, "open": `+p+`, "high": `+p+`, "low": `+p+`, "close": `+p+`, "volume": "1.1", "trades": 2},
			`+flat("1800000000")+`],
		"prev": 1799989200, "noData": false}`)

	// Before the first trade there is nothing, and nothing before that either.
	e.get(t, base+"?res=1d&from=1799000000&to=1799700000").want(t, http.StatusOK, `{
		"resolution": "1d", "from": 1798934400, "to": 1799625600, "bars": [], "prev": null, "noData": true}`)

	// A window that starts before the first trade starts at its bucket, with nothing before.
	e.get(t, base+"?res=1d&from=1799000000&to=1799900000").want(t, http.StatusOK, `{
		"resolution": "1d", "from": 1798934400, "to": 1799884800,
		"bars": [{"time": 1799798400, "open": `+p+`, "high": `+p+`, "low": `+p+`, "close": `+p+`, "volume": "2", "trades": 1},
			`+flat("1799884800")+`],
		"prev": null, "noData": false}`)

	// A token without trades has no history at all; the default resolution is 5m.
	e.get(t, "/tokens/"+tusdToken.Hex()+"/candles?limit=2").want(t, http.StatusOK, `{
		"resolution": "5m", "from": 1799999700, "to": 1800000000, "bars": [], "prev": null, "noData": true}`)

	// At most 1000 bars by default.
	var s struct {
		Bars []struct{ Time int64 }
	}
	e.get(t, base+"?res=1m").decode(t, &s)
	if len(s.Bars) != 1000 || s.Bars[999].Time != 1800000000 || s.Bars[0].Time != 1800000000-999*60 {
		t.Errorf("default window: %d bars from %d", len(s.Bars), s.Bars[0].Time)
	}

	for _, tc := range []struct{ query, message string }{
		{"res=2m", "res must be one of 1m, 5m, 15m, 1h, 4h, 1d"},
		{"res=", "res must be one of 1m, 5m, 15m, 1h, 4h, 1d"},
		{"res=5M", "res must be one of 1m, 5m, 15m, 1h, 4h, 1d"},
		{"limit=1001", "limit must be an integer from 1 to 1000"},
		{"limit=0", "limit must be an integer from 1 to 1000"},
		{"from=abc", "from must be an integer from 1 to 1000000000000"},
		{"from=-5", "from must be an integer from 1 to 1000000000000"},
		{"to=1.5", "to must be an integer from 1 to 1000000000000"},
		{"from=1800000000&to=1799999999", "from must not be after to"},
		{"from=1900000000", "from is after to"},
	} {
		t.Run(tc.query, func(t *testing.T) {
			e.get(t, base+"?"+tc.query).want(t, http.StatusBadRequest, `{"statusCode": 400, "message": "`+tc.message+`", "code": "VALIDATION_FAILED"}`)
		})
	}
}

func TestStats(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	e.get(t, "/tokens/"+ethToken.Hex()+"/stats").want(t, http.StatusOK, `{
		"token": "0xAAaA000000000000000000000000000000000001", "phase": "curve",
		"price": 2.7958993476234855e-08, "price24hAgo": 3.3333333333333334e-08, "change24h": -0.16123019571295438,
		"volume24h": "1.1", "buys24h": 1, "sells24h": 1, "trades24h": 2,
		"marketCap": "27.958993476234855545", "liquidity": "0", "progressBps": 0,
		"holders": 0, "top10Share": 0, "creatorShare": 0, "creatorBalance": "0"}`)
	// A young token without trades compares with its opening price.
	e.get(t, "/tokens/"+gradToken.Hex()+"/stats").want(t, http.StatusOK, `{
		"token": "0xccCc000000000000000000000000000000000003", "phase": "graduated",
		"price": 4.108264862252296e-07, "price24hAgo": 2.7958993476234855e-08, "change24h": 13.693893990655713,
		"volume24h": "0", "buys24h": 0, "sells24h": 0, "trades24h": 0,
		"marketCap": "410.826486225229579507", "liquidity": "85", "progressBps": 10000,
		"holders": 0, "top10Share": 0, "creatorShare": 0, "creatorBalance": "0"}`)
}

// Requests that miss the same discovery answer at once wait for one computation of it: a burst
// of list requests after a sync asks the store once.
func TestConcurrentMissesComputeOnce(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{cacheTokens: 100})
	e.store.mu.Lock()
	e.store.tokensDelay = 200 * time.Millisecond
	e.store.mu.Unlock()
	const clients = 8
	var wg sync.WaitGroup
	for range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, err := http.Get(e.srv.URL + "/tokens?sort=trending")
			if err != nil {
				t.Error(err)
				return
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				t.Errorf("status %d", resp.StatusCode)
			}
		}()
	}
	wg.Wait()
	e.store.mu.Lock()
	defer e.store.mu.Unlock()
	if n := e.store.tokensCalls[market.SortTrending]; n != 1 {
		t.Fatalf("%d concurrent misses asked the store %d times", clients, n)
	}
}

// A discovery answer is kept by the parameters its handler reads: the same list asked with
// another cache-buster or in another order is answered from memory, and a parameter that changes
// the list is not.
func TestAnswersKeyedByReadParameters(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{cacheTokens: 100})
	for _, path := range []string{
		"/tokens?sort=trending&limit=2&_=1",
		"/tokens?_=2&limit=2&sort=trending",
		"/tokens?limit=2&sort=trending&utm_source=x",
		"/tokens?sort=trending&limit=3",
		"/tokens?sort=trending&limit=2&phase=curve",
	} {
		if r := e.get(t, path); r.status != http.StatusOK {
			t.Fatalf("%s: %d %s", path, r.status, r.body)
		}
	}
	e.store.mu.Lock()
	defer e.store.mu.Unlock()
	if n := e.store.tokensCalls[market.SortTrending]; n != 3 {
		t.Fatalf("the store was asked %d times for 3 different lists", n)
	}
}

// The answers kept stay within maxAnswerBytes however many different queries come: those no
// request may be given any more (of an earlier sync or older than market.MemoTTL) go first, and
// a store still full starts over.
func TestAnswersBounded(t *testing.T) {
	t.Parallel()
	var a answers
	body := make([]byte, 100_000)
	at := time.Unix(1_800_000_000, 0)
	for i := range 1000 {
		a.keep(fmt.Sprintf("/tokens?q=%d", i), answer{body: body, gen: 1, at: at})
		if a.bytes > maxAnswerBytes {
			t.Fatalf("after %d answers %d bytes kept", i+1, a.bytes)
		}
	}
	if len(a.m) == 0 || len(a.m) > maxAnswerBytes/len(body) {
		t.Fatalf("%d answers kept", len(a.m))
	}
	// The answers of an earlier sync go before the store starts over: the new ones stay.
	a.keep("/tokens?sort=trending", answer{body: body, gen: 2, at: at})
	for i := range maxAnswerBytes/len(body) - 2 {
		a.keep(fmt.Sprintf("/tokens?q=new%d", i), answer{body: body, gen: 2, at: at})
	}
	if _, ok := a.m["/tokens?sort=trending"]; !ok {
		t.Fatal("an answer of the current sync was let go while stale ones were kept")
	}
	sum := 0
	for k, v := range a.m {
		if v.gen != 2 {
			t.Fatalf("%s of an earlier sync still kept", k)
		}
		sum += len(k) + len(v.body)
	}
	if sum != a.bytes {
		t.Fatalf("counted %d bytes, hold %d", a.bytes, sum)
	}
	// An answer larger than the budget is not kept.
	a.keep("/tokens?huge", answer{body: make([]byte, maxAnswerBytes+1), gen: 2, at: at})
	if _, ok := a.m["/tokens?huge"]; ok {
		t.Fatal("an answer over the budget was kept")
	}
}

// canonical keeps the parameters read, sorted and escaped, and the whole query when one read
// lies past the 64th.
func TestQueryCanonical(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ raw, want string }{
		{"sort=trending&_=1&limit=2", "/tokens?limit=2&sort=trending"},
		{"limit=2&sort=trending", "/tokens?limit=2&sort=trending"},
		{"q=a%26b%3Dc&x=1", "/tokens?q=a%26b%3Dc"},
		{"", "/tokens"},
		{strings.Repeat("x=1&", 70) + "sort=trending", "/tokens?" + strings.Repeat("x=1&", 70) + "sort=trending"},
	} {
		u := &url.URL{Path: "/tokens", RawQuery: c.raw}
		q := newQuery(u)
		q.str("sort", "")
		q.str("limit", "")
		q.str("q", "")
		if got := q.canonical(u); got != c.want {
			t.Errorf("%q: %q, want %q", c.raw, got, c.want)
		}
	}
}
