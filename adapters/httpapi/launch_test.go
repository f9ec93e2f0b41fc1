package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/holiman/uint256"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/adapters/evm"
	"github.com/curvekit/curvekit/adapters/evm/devnet"
	"github.com/curvekit/curvekit/adapters/ipfs"
	"github.com/curvekit/curvekit/auth"
	"github.com/curvekit/curvekit/internal/testworld"
	"github.com/curvekit/curvekit/launch"
	"github.com/curvekit/curvekit/market"
	"github.com/curvekit/curvekit/txbuild"
)

// launchEnv is the API with the launch service on real parts: a devnet, its indexer on SQLite,
// the local IPFS store, on a real socket.
type launchEnv struct {
	srv     *httptest.Server
	dev     *devnet.Devnet
	chain   *evm.Chain
	ix      *market.Indexer
	svc     *launch.Service
	limiter *countLimiter
}

func newLaunchEnv(t testing.TB, policy auth.Policy) *launchEnv {
	t.Helper()
	w := testworld.New(t)
	dev, chain, db, ix, mkt, b, clock := w.Dev, w.Chain, w.DB, w.Indexer, w.Market, w.Builder, w.Clock
	quiet := slog.New(slog.DiscardHandler)
	pins, err := ipfs.NewStore(ipfs.StoreConfig{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	svc, err := launch.New(launch.Config{Store: db.Launch(), Pinner: pins, Builder: b, Chain: chain,
		LaunchesPerDay: map[curvekit.Tier]int{curvekit.TierFree: 1, curvekit.TierPro: 5}, Gateway: "https://gw.example/ipfs/", Now: clock})
	if err != nil {
		t.Fatal(err)
	}
	if policy == nil {
		policy = auth.DefaultPolicy(auth.Every(100_000, time.Minute))
	}
	lim := newCountLimiter()
	s, err := newServer(Config{Market: mkt, Launch: svc, Limiter: lim, Policy: policy, Logger: quiet}, nil)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s.Handler())
	t.Cleanup(srv.Close)
	return &launchEnv{srv: srv, dev: dev, chain: chain, ix: ix, svc: svc, limiter: lim}
}

func (e *launchEnv) do(t *testing.T, method, path, body string, header ...string) response {
	t.Helper()
	return (&testEnv{srv: e.srv}).do(t, method, path, body, header...)
}

// multipartBody is a form with the given file content in field, as a browser sends it.
func multipartBody(t testing.TB, field, filename string, content []byte) (string, []byte) {
	t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	if field != "" {
		fw, err := mw.CreateFormFile(field, filename)
		if err != nil {
			t.Fatal(err)
		}
		fw.Write(content)
	} else {
		mw.WriteField("name", "no file here")
	}
	mw.Close()
	return mw.FormDataContentType(), buf.Bytes()
}

func (e *launchEnv) upload(t *testing.T, field, filename string, content []byte) response {
	t.Helper()
	ct, body := multipartBody(t, field, filename, content)
	req, err := http.NewRequest(http.MethodPost, e.srv.URL+"/launch/upload-image", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", ct)
	return send(t, e.srv.Client(), req)
}

func send(t *testing.T, c *http.Client, req *http.Request) response {
	t.Helper()
	res, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return response{status: res.StatusCode, header: res.Header, body: b}
}

var pngMagic = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")

func pngOf(n int) []byte {
	out := make([]byte, n)
	copy(out, pngMagic)
	for i := len(pngMagic); i < n; i++ {
		out[i] = byte(i * 7)
	}
	return out
}

// A whole launch over real sockets: upload an image, post metadata naming it, compose the launch,
// sign and send it; the indexer sees it with the metadata URI; /ipfs serves the document and the
// logo route the image's exact bytes; daily-limit counts the launch and the next one is refused
// when composed. Then trades accrue creator fees that /launch/fees reports to the wei.
func TestLaunchWholeFlow(t *testing.T) {
	e := newLaunchEnv(t, nil)
	ctx := context.Background()
	creator := e.dev.Accounts[6]
	img := pngOf(300_000) // more than one chunk: a dag-pb root

	r := e.upload(t, "file", "logo.svg", img) // the name says SVG, the bytes say PNG
	if r.status != http.StatusOK {
		t.Fatalf("upload: %d %s", r.status, r.body)
	}
	var up imageJSON
	r.decode(t, &up)
	cid, _, _ := launch.CID(bytes.NewReader(img))
	if up.CID != cid || up.ImageURL != "ipfs://"+cid || up.ContentType != launch.PNG || up.Size != int64(len(img)) || up.GatewayURL != "https://gw.example/ipfs/"+cid {
		t.Fatalf("upload answer %+v, want CID %s", up, cid)
	}

	r = e.do(t, http.MethodPost, "/launch/metadata", `{"name":"Flow Cat","symbol":"FLOW","description":"launched over sockets","imageUrl":"`+up.ImageURL+`","website":"https://flow.example"}`)
	if r.status != http.StatusOK {
		t.Fatalf("metadata: %d %s", r.status, r.body)
	}
	var meta metadataJSON
	r.decode(t, &meta)
	if !strings.HasPrefix(meta.URI, "ipfs://bafkrei") || meta.Metadata.Image != up.ImageURL || !meta.Metadata.ShowName {
		t.Fatalf("metadata answer %s", r.body)
	}

	r = e.do(t, http.MethodGet, "/launch/daily-limit/"+creator.Address.Hex(), "")
	r.want(t, http.StatusOK, `{"wallet":"`+creator.Address.Hex()+`","tier":"free","limit":1,"used":0,"remaining":1,"canLaunch":true,"resetsAt":"`+nextMidnight(e)+`"}`)

	plan, err := e.svc.ComposeLaunch(ctx, launch.LaunchParams{From: creator.Address, Name: "Flow Cat", Symbol: "FLOW", URI: meta.URI})
	if err != nil {
		t.Fatal(err)
	}
	rcpt, err := e.dev.Send(ctx, creator.Key, &plan.Tx.To, plan.Tx.Value.ToBig(), plan.Tx.Data)
	if err != nil {
		t.Fatalf("send launch: %v", err)
	}
	if _, err := e.ix.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	evs, err := e.chain.Events(ctx, market.EventQuery{From: rcpt.BlockNumber.Uint64(), To: rcpt.BlockNumber.Uint64(), Kinds: []market.EventKind{market.EventLaunched}, Addresses: []common.Address{e.dev.Addrs.Factory}})
	if err != nil || len(evs) != 1 {
		t.Fatalf("launched events: %v %d", err, len(evs))
	}
	tokenAddr := evs[0].Launched.Token

	var tok struct {
		URI string `json:"uri"`
	}
	r = e.do(t, http.MethodGet, "/tokens/"+tokenAddr.Hex(), "")
	r.decode(t, &tok)
	if r.status != http.StatusOK || tok.URI != meta.URI {
		t.Fatalf("token: %d uri %q, want %s (%s)", r.status, tok.URI, meta.URI, r.body)
	}

	r = e.do(t, http.MethodGet, "/ipfs/"+meta.CID, "")
	if r.status != http.StatusOK || r.header.Get("Content-Type") != "application/json" || string(r.body) != string(meta.Metadata.Encode()) {
		t.Fatalf("/ipfs/<metadata>: %d %s %s", r.status, r.header.Get("Content-Type"), r.body)
	}
	for k, v := range map[string]string{"Cache-Control": "public, max-age=31536000, immutable", "X-Content-Type-Options": "nosniff", "ETag": `"` + meta.CID + `"`} {
		if r.header.Get(k) != v {
			t.Fatalf("/ipfs %s = %q, want %q", k, r.header.Get(k), v)
		}
	}

	r = e.do(t, http.MethodGet, "/tokens/"+tokenAddr.Hex()+"/logo", "")
	if r.status != http.StatusOK || !bytes.Equal(r.body, img) || r.header.Get("Content-Type") != launch.PNG || r.header.Get("X-Content-Type-Options") != "nosniff" {
		t.Fatalf("logo: %d %s, %d bytes (want the image's %d exact bytes)", r.status, r.header.Get("Content-Type"), len(r.body), len(img))
	}

	r = e.do(t, http.MethodGet, "/launch/daily-limit/"+creator.Address.Hex(), "")
	r.want(t, http.StatusOK, `{"wallet":"`+creator.Address.Hex()+`","tier":"free","limit":1,"used":1,"remaining":0,"canLaunch":false,"resetsAt":"`+nextMidnight(e)+`"}`)
	if _, err := e.svc.ComposeLaunch(ctx, launch.LaunchParams{From: creator.Address, Name: "Again", Symbol: "AGN", URI: meta.URI}); !errors.Is(err, curvekit.ErrLimited) {
		t.Fatalf("second launch composed: %v, want the daily limit", err)
	}

	// A buy accrues creator fees; /launch/fees reports what the curve holds.
	trader := e.dev.Accounts[4]
	buy, err := txbuild.New(txbuild.Config{ChainID: e.dev.ChainID.Uint64(), Factory: e.dev.Addrs.Factory, Router: e.dev.Addrs.Router, WETH: e.dev.Addrs.WETH})
	if err != nil {
		t.Fatal(err)
	}
	head, err := e.chain.Head(ctx)
	if err != nil {
		t.Fatal(err)
	}
	tx, err := buy.CurveBuy(txbuild.CurveBuy{From: trader.Address, Curve: evs[0].Launched.Curve, AmountIn: *uint256.NewInt(123_456_789_012_345_678), Deadline: head.Time + 3600})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.dev.Send(ctx, trader.Key, &tx.Tx.To, tx.Tx.Value.ToBig(), tx.Tx.Data); err != nil {
		t.Fatalf("buy: %v", err)
	}
	if _, err := e.ix.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	accrued, err := e.chain.CreatorFeesAccrued(ctx, evs[0].Launched.Curve)
	if err != nil || accrued.IsZero() {
		t.Fatalf("accrued %s, %v", accrued.Dec(), err)
	}
	want := amount(&accrued, 18)
	r = e.do(t, http.MethodGet, "/launch/fees/"+creator.Address.Hex(), "")
	r.want(t, http.StatusOK, fmt.Sprintf(`{"wallet":%q,"assets":[{"asset":{"address":null,"symbol":"ETH","decimals":18},"claimable":%q,"earned":%q,"claimed":"0",
		"tokens":[{"address":%q,"curve":%q,"name":"Flow Cat","symbol":"FLOW","claimable":%q,"earned":%q,"claimed":"0"}]}]}`,
		creator.Address.Hex(), want, want, tokenAddr.Hex(), evs[0].Launched.Curve.Hex(), want, want))

	var ern earningsJSON
	r = e.do(t, http.MethodGet, "/launch/earnings/"+creator.Address.Hex()+"?days=7", "")
	r.decode(t, &ern)
	if r.status != http.StatusOK || ern.Days != 7 || len(ern.Assets) != 1 || ern.Assets[0].Earned != want || ern.Assets[0].Claimed != "0" || len(ern.Assets[0].Series) != 7 || ern.Assets[0].Series[6].Earned != want {
		t.Fatalf("earnings: %d %s", r.status, r.body)
	}

	r = e.do(t, http.MethodGet, "/launch/estimate-fee?from="+creator.Address.Hex(), "")
	var est estimateJSON
	r.decode(t, &est)
	if r.status != http.StatusOK || est.From != creator.Address.Hex() || est.Gas == "" || est.Gas == "0" || est.LaunchFee != "0" || est.Total != est.GasCost {
		t.Fatalf("estimate: %d %s", r.status, r.body)
	}
}

func nextMidnight(e *launchEnv) string {
	h, err := e.chain.Head(context.Background())
	now := time.Now().UTC()
	if err == nil && time.Unix(h.Time, 0).After(now) {
		now = time.Unix(h.Time, 0).UTC()
	}
	return time.Date(now.Year(), now.Month(), now.Day()+1, 0, 0, 0, 0, time.UTC).Format(time.RFC3339)
}

func TestLaunchUploadRules(t *testing.T) {
	e := newLaunchEnv(t, nil)
	exact := pngOf(launch.MaxImage)
	r := e.upload(t, "file", "big.png", exact)
	if r.status != http.StatusOK {
		t.Fatalf("exactly 5 MB: %d %s", r.status, r.body)
	}
	r = e.upload(t, "file", "big.png", pngOf(launch.MaxImage+1))
	r.want(t, http.StatusRequestEntityTooLarge, `{"statusCode":413,"message":"image is larger than 5 MB"}`)

	// Chunked (no Content-Length): the reader decides on the byte after 5 MB.
	ct, body := multipartBody(t, "file", "big.png", pngOf(launch.MaxImage+1))
	req, _ := http.NewRequest(http.MethodPost, e.srv.URL+"/launch/upload-image", io.MultiReader(bytes.NewReader(body)))
	req.Header.Set("Content-Type", ct)
	req.ContentLength = -1
	send(t, e.srv.Client(), req).want(t, http.StatusRequestEntityTooLarge, `{"statusCode":413,"message":"image is larger than 5 MB"}`)

	for _, c := range []struct {
		name, field, file string
		content           []byte
		want              string
	}{
		{"svg named png", "file", "cat.png", []byte(`<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>`), "image must be PNG, JPEG, GIF or WebP"},
		{"html", "file", "cat.gif", []byte("<!DOCTYPE html><script>alert(1)</script>"), "image must be PNG, JPEG, GIF or WebP"},
		{"empty", "file", "cat.png", nil, "image must be PNG, JPEG, GIF or WebP"},
		{"no file field", "", "", nil, "multipart field file is required"},
		{"other field", "image", "cat.png", pngOf(100), "multipart field file is required"},
	} {
		r := e.upload(t, c.field, c.file, c.content)
		r.want(t, http.StatusBadRequest, fmt.Sprintf(`{"statusCode":400,"message":%q,"code":"VALIDATION_FAILED"}`, c.want))
	}
	for _, ct := range []string{"application/json", "", "multipart/form-data"} {
		req, _ := http.NewRequest(http.MethodPost, e.srv.URL+"/launch/upload-image", strings.NewReader(`{"file":"x"}`))
		if ct != "" {
			req.Header.Set("Content-Type", ct)
		}
		send(t, e.srv.Client(), req).want(t, http.StatusBadRequest, `{"statusCode":400,"message":"body must be multipart/form-data with the image in field file","code":"VALIDATION_FAILED"}`)
	}
	// JPEG, GIF and WebP by content, whatever the name.
	for _, head := range [][]byte{{0xFF, 0xD8, 0xFF, 0xE0}, []byte("GIF89a"), []byte("RIFF\x10\x00\x00\x00WEBPVP8 ")} {
		r := e.upload(t, "file", "x.bin", append(head, make([]byte, 100)...))
		var up imageJSON
		r.decode(t, &up)
		if r.status != http.StatusOK || !strings.HasPrefix(up.ContentType, "image/") {
			t.Fatalf("upload %q: %d %s", head, r.status, r.body)
		}
	}
}

// zeroReader is an endless body of zero bytes, after a PNG header.
type zeroReader struct{ sent atomic.Int64 }

func (z *zeroReader) Read(p []byte) (int, error) {
	clear(p)
	z.sent.Add(int64(len(p)))
	return len(p), nil
}

// A 50 MB upload attempt, sent chunked so that only the body's content can decide, is refused with
// 413 and the server's heap never grows by the upload: the peak heap in use during the attempt
// stays within a few megabytes of where it started. The figure is logged.
func TestLaunchUploadMemoryBounded(t *testing.T) {
	e := newLaunchEnv(t, nil)
	const attempt = 50 << 20
	pr, pw := io.Pipe()
	mw := multipart.NewWriter(pw)
	zr := &zeroReader{}
	go func() {
		fw, _ := mw.CreateFormFile("file", "huge.png")
		fw.Write(pngMagic)
		_, err := io.Copy(fw, io.LimitReader(zr, attempt))
		if err == nil {
			err = mw.Close()
		}
		pw.CloseWithError(err)
	}()
	req, _ := http.NewRequest(http.MethodPost, e.srv.URL+"/launch/upload-image", pr)
	req.Header.Set("Content-Type", mw.FormDataContentType())

	runtime.GC()
	var base runtime.MemStats
	runtime.ReadMemStats(&base)
	var peak atomic.Uint64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		var m runtime.MemStats
		for {
			runtime.ReadMemStats(&m)
			if m.HeapInuse > peak.Load() {
				peak.Store(m.HeapInuse)
			}
			select {
			case <-stop:
				return
			case <-time.After(2 * time.Millisecond):
			}
		}
	})
	res, err := e.srv.Client().Do(req)
	close(stop)
	wg.Wait()
	if err != nil {
		t.Fatalf("50 MB attempt: %v", err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusRequestEntityTooLarge {
		t.Fatalf("50 MB attempt: %d %s", res.StatusCode, body)
	}
	grew := int64(peak.Load()) - int64(base.HeapInuse)
	t.Logf("50 MB upload attempt: refused after the client sent %d bytes; peak heap in use %.1f MiB above the start (%.1f MiB at start)",
		zr.sent.Load(), float64(grew)/(1<<20), float64(base.HeapInuse)/(1<<20))
	if grew > 16<<20 {
		t.Fatalf("heap grew by %d bytes during a 50 MB upload attempt", grew)
	}
}

func TestLaunchValidationOverHTTP(t *testing.T) {
	e := newLaunchEnv(t, nil)
	w := e.dev.Accounts[0].Address.Hex()
	idle := e.dev.Accounts[9].Address.Hex() // launched nothing
	for _, c := range []struct {
		method, path, body string
		status             int
		want               string
	}{
		{"POST", "/launch/metadata", `{"name":"Cat","symbol":"CAT"}`, 200, ""},
		{"POST", "/launch/metadata", `{}`, 400, `{"statusCode":400,"message":["name is required","symbol is required"],"code":"VALIDATION_FAILED"}`},
		{"POST", "/launch/metadata", `{"name":"` + strings.Repeat("n", 33) + `","symbol":"C-T","description":"` + strings.Repeat("d", 1001) + `","imageUrl":"http://x.example/a.png","twitter":"javascript:alert(1)","telegram":"t.me/x","website":"ftp://x","subjectHandle":"a b"}`, 400,
			`{"statusCode":400,"message":["name must be at most 32 characters","symbol must be letters and digits only","description must be at most 1000 characters","imageUrl must be an ipfs:// or https URL","twitter must be an http(s) URL with a host","telegram must be an http(s) URL with a host","website must be an http(s) URL with a host","subjectHandle must be a handle: letters, digits, _ and ., optionally after @"],"code":"VALIDATION_FAILED"}`},
		{"POST", "/launch/metadata", `{"name":"Cat","symbol":"CAT","Name":"Dog"}`, 400, ""},
		{"POST", "/launch/metadata", `{"name":"Cat","symbol":"CAT","extra":1}`, 400, ""},
		{"POST", "/launch/metadata", `null`, 400, `{"statusCode":400,"message":"body must be a JSON object","code":"VALIDATION_FAILED"}`},
		{"GET", "/launch/estimate-fee", "", 400, `{"statusCode":400,"message":"from is required: the wallet that would launch","code":"VALIDATION_FAILED"}`},
		{"GET", "/launch/estimate-fee?from=0x123", "", 400, `{"statusCode":400,"message":"from must be an address: 0x followed by 40 hex digits","code":"VALIDATION_FAILED"}`},
		{"GET", "/launch/estimate-fee?from=" + w + "&from=" + w, "", 400, `{"statusCode":400,"message":"from given more than once","code":"VALIDATION_FAILED"}`},
		{"GET", "/launch/daily-limit/0xnope", "", 400, `{"statusCode":400,"message":"malformed wallet address: want 0x followed by 40 hex digits","code":"VALIDATION_FAILED"}`},
		{"GET", "/launch/fees/" + w + "x", "", 400, `{"statusCode":400,"message":"malformed wallet address: want 0x followed by 40 hex digits","code":"VALIDATION_FAILED"}`},
		{"GET", "/launch/earnings/" + w + "?days=0", "", 400, `{"statusCode":400,"message":"days must be an integer from 1 to 365","code":"VALIDATION_FAILED"}`},
		{"GET", "/launch/earnings/" + w + "?days=366", "", 400, `{"statusCode":400,"message":"days must be an integer from 1 to 365","code":"VALIDATION_FAILED"}`},
		{"GET", "/launch/earnings/" + w + "?days=junk", "", 400, `{"statusCode":400,"message":"days must be an integer from 1 to 365","code":"VALIDATION_FAILED"}`},
		{"GET", "/launch/earnings/" + w + "?days=-5", "", 400, `{"statusCode":400,"message":"days must be an integer from 1 to 365","code":"VALIDATION_FAILED"}`},
		{"GET", "/launch/earnings/" + w + "?days=365", "", 200, ""},
		{"GET", "/launch/fees/" + idle, "", 200, `{"wallet":"` + idle + `","assets":[]}`},
		{"GET", "/ipfs/not-a-cid", "", 400, `{"statusCode":400,"message":"malformed CID: want a CIDv1 in base32 (bafy…, bafk…)","code":"VALIDATION_FAILED"}`},
		{"GET", "/ipfs/bafkreibm6jg3ux5qumhcn2b3flc3tyu6dmlb4xa7u5bf44yegnrjhc4yeq", "", 404, `{"statusCode":404,"message":"no content bafkreibm6jg3ux5qumhcn2b3flc3tyu6dmlb4xa7u5bf44yegnrjhc4yeq"}`},
		{"GET", "/tokens/0x000000000000000000000000000000000000dEaD/logo", "", 404, `{"statusCode":404,"message":"token not found"}`},
		{"GET", "/tokens/0xdead/logo", "", 400, `{"statusCode":400,"message":"malformed token address: want 0x followed by 40 hex digits","code":"VALIDATION_FAILED"}`},
		{"GET", "/launch/metadata", "", 405, ""},
	} {
		r := e.do(t, c.method, c.path, c.body)
		if r.status != c.status {
			t.Errorf("%s %s: %d, want %d: %s", c.method, c.path, r.status, c.status, r.body)
			continue
		}
		if c.want != "" {
			r.want(t, c.status, c.want)
		}
	}
	var d struct {
		Days   int               `json:"days"`
		Assets []json.RawMessage `json:"assets"`
	}
	e.do(t, "GET", "/launch/earnings/"+w, "").decode(t, &d)
	if d.Days != 30 {
		t.Fatalf("default days %d", d.Days)
	}
}

// Logo reads are never throttled (SPEC 8); the other launch routes are, in the default class.
func TestLaunchLogoExemptFromThrottling(t *testing.T) {
	e := newLaunchEnv(t, auth.DefaultPolicy(auth.Every(3, time.Minute)))
	logo := "/tokens/" + e.dev.ETHToken.Token.Hex() + "/logo"
	for i := range 20 {
		if r := e.do(t, "GET", logo, ""); r.status != http.StatusNotFound {
			t.Fatalf("logo read %d: %d %s (want 404: the devnet token's URI is not pinned here)", i, r.status, r.body)
		}
	}
	statuses := []int{}
	for range 5 {
		statuses = append(statuses, e.do(t, "GET", "/launch/daily-limit/"+e.dev.Accounts[0].Address.Hex(), "").status)
	}
	if fmt.Sprint(statuses) != "[200 200 200 429 429]" {
		t.Fatalf("daily-limit under a limit of 3: %v", statuses)
	}
}

// BenchmarkUploadRoundTrip measures POST /launch/upload-image of a 1 MB PNG over a socket, pinned
// to the local store, and its answer.
func BenchmarkUploadRoundTrip(b *testing.B) {
	e := newLaunchEnv(b, nil)
	img := pngOf(1 << 20)
	b.SetBytes(int64(len(img)))
	i := 0
	for b.Loop() {
		i++
		img[len(img)-1] = byte(i) // a new object each time
		ct, body := multipartBody(b, "file", "x.png", img)
		req, _ := http.NewRequest(http.MethodPost, e.srv.URL+"/launch/upload-image", bytes.NewReader(body))
		req.Header.Set("Content-Type", ct)
		res, err := e.srv.Client().Do(req)
		if err != nil {
			b.Fatal(err)
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
		if res.StatusCode != http.StatusOK {
			b.Fatalf("status %d", res.StatusCode)
		}
	}
}
