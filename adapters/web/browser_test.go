package web_test

import (
	"bufio"
	"context"
	"crypto/ecdsa"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/curvekit/curvekit/internal/app"
	"github.com/curvekit/curvekit/internal/app/apptest"
)

// The page is tested in Debian's Chromium, driven over the DevTools protocol, against the
// reference server on its devnet. A wallet injected into the page speaks EIP-1193 and signs on
// the Go side with a devnet key, sending through the devnet's JSON-RPC as a browser wallet would.
//
// Without chromium on the PATH the tests skip, unless CURVEKIT_TEST_BROWSER=1 (CI sets it), where
// a missing browser is a failure. Under -race they skip (see raceDetector).

func chromiumPath(t *testing.T) string {
	t.Helper()
	if raceDetector {
		t.Skip("the browser tests run in the suite without -race")
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CURVEKIT_TEST_BROWSER") == "1" {
		t.Fatal("CURVEKIT_TEST_BROWSER=1 but no chromium on the PATH (apt-get install chromium)")
	}
	t.Skip("no chromium on the PATH; set CURVEKIT_TEST_BROWSER=1 to require it")
	return ""
}

// site is a reference server with a browser tab open on it.
type site struct {
	t      *testing.T
	srv    *apptest.Server
	tab    context.Context
	wallet *testWallet
	cuts   *streamCutter
	dialog chan string
	csp    chan string
	asked  *requestLog

	consoleMu sync.Mutex
	console   []string // errors the page logged, its failed loads included
}

// requestLog records the path of every request the server was sent.
type requestLog struct {
	mu    sync.Mutex
	paths []string
}

func (l *requestLog) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		l.mu.Lock()
		l.paths = append(l.paths, r.URL.Path)
		l.mu.Unlock()
		h.ServeHTTP(w, r)
	})
}

// count says how many requests asked for path.
func (l *requestLog) count(path string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, p := range l.paths {
		if p == path {
			n++
		}
	}
	return n
}

// consoleErrors returns the errors the page has logged so far.
func (s *site) consoleErrors() []string {
	s.consoleMu.Lock()
	defer s.consoleMu.Unlock()
	return append([]string(nil), s.console...)
}

func (s *site) noteConsole(msg string) {
	s.consoleMu.Lock()
	s.console = append(s.console, msg)
	s.consoleMu.Unlock()
}

// streamCutter ends the token streams being served when asked: the server side of a dropped
// connection, which the page must resume from its Last-Event-ID.
type streamCutter struct {
	mu     sync.Mutex
	conns  map[net.Conn]bool // the token streams' connections, open or cut
	served int
}

// wrap records the connection of each token stream: the server takes it from net/http once
// the stream's headers are out (a stream runs on its connection alone), and cut closes it, as a
// dropped network would.
func (c *streamCutter) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasSuffix(r.URL.Path, "/stream") || !strings.HasPrefix(r.URL.Path, "/tokens/0x") {
			h.ServeHTTP(w, r)
			return
		}
		c.mu.Lock()
		c.served++
		c.mu.Unlock()
		h.ServeHTTP(&cutWriter{ResponseWriter: w, cutter: c}, r)
	})
}

// cutWriter hands the cutter the connection the server hijacks.
type cutWriter struct {
	http.ResponseWriter
	cutter *streamCutter
}

func (w *cutWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (w *cutWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	nc, buf, err := http.NewResponseController(w.ResponseWriter).Hijack()
	if err == nil {
		w.cutter.mu.Lock()
		w.cutter.conns[nc] = true
		w.cutter.mu.Unlock()
	}
	return nc, buf, err
}

// cut ends every token stream open now and says how many it ended.
func (c *streamCutter) cut() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for nc, open := range c.conns {
		if open {
			nc.Close()
			c.conns[nc] = false
			n++
		}
	}
	return n
}

func (c *streamCutter) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.served
}

// newSite starts the server (with the devnet's JSON-RPC for the wallet) and a headless Chromium
// whose pages get the test wallet, signing as key.
func newSite(t *testing.T, walletAccount int) *site {
	t.Helper()
	bin := chromiumPath(t)
	cuts := &streamCutter{conns: map[net.Conn]bool{}}
	asked := &requestLog{}
	srv := apptest.Start(t, []string{"--devnet-rpc-addr", "127.0.0.1:0", "--webhook-allow-loopback"}, app.WithMiddleware(cuts.wrap), app.WithMiddleware(asked.wrap))
	dn := srv.App.Devnet
	acc := dn.Accounts[walletAccount]
	w, err := newTestWallet(srv.App.DevnetRPCURL(), acc.Key, dn.ChainID)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.close)

	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(bin),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.WindowSize(1440, 900),
		chromedp.UserDataDir(t.TempDir()),
	)
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	tab, cancelTab := chromedp.NewContext(actx)
	t.Cleanup(func() {
		cancelTab()
		cancelAlloc()
	})
	s := &site{t: t, srv: srv, tab: tab, wallet: w, cuts: cuts, dialog: make(chan string, 16), csp: make(chan string, 16), asked: asked}
	// The first call starts the browser; the listener sees every event after it.
	if _, err := chromedp.Call(tab, runtime.AddBinding, runtime.AddBindingParams{Name: "__curvekitWallet"}); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Listen(tab, func(ev any) {
		switch e := ev.(type) {
		case *runtime.EventBindingCalled:
			switch e.Name {
			case "__curvekitWallet":
				go s.answerWallet(e.Payload)
			case "__curvekitCSP":
				select {
				case s.csp <- e.Payload:
				default:
				}
			}
		case *cdplog.EventEntryAdded:
			if e.Entry.Level == cdplog.EntryLevelError {
				s.noteConsole(e.Entry.Text + " " + e.Entry.URL)
			}
		case *runtime.EventConsoleAPICalled:
			if e.Type == runtime.ConsoleAPICalledTypeError {
				var args []string
				for _, a := range e.Args {
					args = append(args, string(a.Value)+a.Description)
				}
				s.noteConsole("console.error " + strings.Join(args, " "))
			}
		case *runtime.EventExceptionThrown:
			s.noteConsole("uncaught " + e.ExceptionDetails.Text)
		case *page.EventJavascriptDialogOpening:
			// A dialog the page did not mean to open is script a stranger ran.
			select {
			case s.dialog <- e.Message:
			default:
			}
			go func() {
				_, _ = chromedp.Call(tab, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: false})
			}()
		}
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Call(tab, runtime.AddBinding, runtime.AddBindingParams{Name: "__curvekitCSP"}); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Call(tab, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: injected}); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Call(tab, page.Enable, page.EnableParams{}); err != nil {
		t.Fatal(err)
	}
	return s
}

// injected runs before the page's own script: the EIP-1193 provider, whose requests go to the
// Go side through a DevTools binding, and a listener that reports Content-Security-Policy
// violations.
const injected = `(() => {
  const pending = new Map(); let n = 0; const listeners = {};
  window.__curvekitWalletReply = (id, result, error) => {
    const p = pending.get(id); if (!p) return; pending.delete(id);
    if (error) { const e = new Error(error.message); e.code = error.code; p.reject(e); } else p.resolve(result);
  };
  window.ethereum = {
    request({ method, params }) {
      return new Promise((resolve, reject) => {
        const id = ++n; pending.set(id, { resolve, reject });
        window.__curvekitWallet(JSON.stringify({ id, method, params: params ?? [] }));
      });
    },
    on(ev, f) { (listeners[ev] ??= []).push(f); },
    removeListener() {},
  };
  document.addEventListener('securitypolicyviolation', (e) =>
    window.__curvekitCSP(e.violatedDirective + ' ' + e.blockedURI));
})();`

func (s *site) answerWallet(payload string) {
	var req struct {
		ID     int               `json:"id"`
		Method string            `json:"method"`
		Params []json.RawMessage `json:"params"`
	}
	if err := json.Unmarshal([]byte(payload), &req); err != nil {
		s.t.Errorf("wallet request %q: %v", payload, err)
		return
	}
	res, rerr := s.wallet.handle(req.Method, req.Params)
	resJSON, _ := json.Marshal(res)
	errJSON := []byte("null")
	if rerr != nil {
		errJSON, _ = json.Marshal(rerr)
	}
	js := fmt.Sprintf("window.__curvekitWalletReply(%d, %s, %s)", req.ID, resJSON, errJSON)
	if _, err := chromedp.Run(s.tab, chromedp.Evaluate[chromedp.Void](js)); err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, chromedp.ErrJSUndefined) {
		s.t.Logf("wallet reply: %v", err)
	}
}

// testWallet is a browser wallet's behaviour on the Go side: one account, a current chain that
// starts elsewhere (so the page must switch, and add the devnet first), eth_sendTransaction signed
// with the account's key, and every other call passed to the chain's node.
type testWallet struct {
	key     *ecdsa.PrivateKey
	addr    common.Address
	chainID *big.Int
	rpc     *rpc.Client
	eth     *ethclient.Client

	mu      sync.Mutex
	current int64
	added   map[int64]string // chain id → the RPC URL the page gave
	sent    []*types.Transaction
	calls   []string
}

type walletError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

func newTestWallet(url string, key *ecdsa.PrivateKey, chainID *big.Int) (*testWallet, error) {
	c, err := rpc.Dial(url)
	if err != nil {
		return nil, err
	}
	return &testWallet{key: key, addr: addrOf(key), chainID: chainID, rpc: c, eth: ethclient.NewClient(c), current: 1, added: map[int64]string{1: ""}}, nil
}

func addrOf(k *ecdsa.PrivateKey) common.Address { return crypto.PubkeyToAddress(k.PublicKey) }

func (w *testWallet) close() { w.rpc.Close() }

// sentTxs are the transactions the wallet signed and sent, in order.
func (w *testWallet) sentTxs() []*types.Transaction {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]*types.Transaction(nil), w.sent...)
}

func (w *testWallet) handle(method string, params []json.RawMessage) (any, *walletError) {
	w.mu.Lock()
	w.calls = append(w.calls, method)
	w.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	switch method {
	case "eth_requestAccounts", "eth_accounts":
		return []string{w.addr.Hex()}, nil
	case "eth_chainId":
		w.mu.Lock()
		defer w.mu.Unlock()
		return hexutil.EncodeBig(big.NewInt(w.current)), nil
	case "wallet_switchEthereumChain", "wallet_addEthereumChain":
		var p struct {
			ChainID hexutil.Big `json:"chainId"`
			RPCURLs []string    `json:"rpcUrls"`
		}
		if len(params) != 1 || json.Unmarshal(params[0], &p) != nil {
			return nil, &walletError{-32602, "invalid params"}
		}
		id := p.ChainID.ToInt().Int64()
		w.mu.Lock()
		defer w.mu.Unlock()
		if method == "wallet_addEthereumChain" {
			if len(p.RPCURLs) == 0 {
				return nil, &walletError{-32602, "rpcUrls required"}
			}
			w.added[id] = p.RPCURLs[0]
		}
		if _, ok := w.added[id]; !ok {
			return nil, &walletError{4902, "Unrecognized chain ID. Try adding the chain using wallet_addEthereumChain first."}
		}
		w.current = id
		return nil, nil
	case "eth_sendTransaction":
		return w.send(ctx, params)
	}
	var raw json.RawMessage
	args := make([]any, len(params))
	for i, p := range params {
		args[i] = p
	}
	if err := w.rpc.CallContext(ctx, &raw, method, args...); err != nil {
		return nil, &walletError{-32603, err.Error()}
	}
	return raw, nil
}

func (w *testWallet) send(ctx context.Context, params []json.RawMessage) (any, *walletError) {
	var p struct {
		From  common.Address  `json:"from"`
		To    *common.Address `json:"to"`
		Data  hexutil.Bytes   `json:"data"`
		Value *hexutil.Big    `json:"value"`
		Gas   *hexutil.Uint64 `json:"gas"`
	}
	if len(params) != 1 || json.Unmarshal(params[0], &p) != nil {
		return nil, &walletError{-32602, "invalid params"}
	}
	w.mu.Lock()
	onChain := w.current == w.chainID.Int64()
	w.mu.Unlock()
	if !onChain {
		return nil, &walletError{4901, "the wallet is on another chain"}
	}
	if p.From != w.addr {
		return nil, &walletError{4100, "from is not this wallet's account"}
	}
	value := new(big.Int)
	if p.Value != nil {
		value = p.Value.ToInt()
	}
	nonce, err := w.eth.PendingNonceAt(ctx, w.addr)
	if err != nil {
		return nil, &walletError{-32603, err.Error()}
	}
	head, err := w.eth.HeaderByNumber(ctx, nil)
	if err != nil {
		return nil, &walletError{-32603, err.Error()}
	}
	tip := big.NewInt(1_000_000_000)
	feeCap := new(big.Int).Add(new(big.Int).Mul(head.BaseFee, big.NewInt(2)), tip)
	var gas uint64
	if p.Gas != nil {
		gas = uint64(*p.Gas)
	} else {
		msg := ethereum.CallMsg{From: w.addr, To: p.To, Value: value, Data: p.Data}
		if gas, err = w.eth.EstimateGas(ctx, msg); err != nil {
			return nil, &walletError{-32603, "gas estimation failed: " + err.Error()}
		}
	}
	tx := types.NewTx(&types.DynamicFeeTx{ChainID: w.chainID, Nonce: nonce, GasTipCap: tip, GasFeeCap: feeCap, Gas: gas, To: p.To, Value: value, Data: p.Data})
	signed, err := types.SignTx(tx, types.LatestSignerForChainID(w.chainID), w.key)
	if err != nil {
		return nil, &walletError{-32603, err.Error()}
	}
	if err := w.eth.SendTransaction(ctx, signed); err != nil {
		return nil, &walletError{-32603, err.Error()}
	}
	w.mu.Lock()
	w.sent = append(w.sent, signed)
	w.mu.Unlock()
	return signed.Hash().Hex(), nil
}

// screenshot writes the page at both widths as name-390.png and name-1440.png into
// CURVEKIT_SCREENSHOTS (docs/screenshots in CI runs that refresh them), else the test's temp dir.
func (s *site) screenshot(name string) {
	s.t.Helper()
	dir := os.Getenv("CURVEKIT_SCREENSHOTS")
	if dir == "" {
		dir = s.t.TempDir()
	}
	for _, width := range []int64{390, 1440} {
		if _, err := chromedp.Call(s.tab, emulation.SetDeviceMetricsOverride, emulation.SetDeviceMetricsOverrideParams{
			Width: width, Height: 900, DeviceScaleFactor: 1, Mobile: width < 600}); err != nil {
			s.t.Fatal(err)
		}
		time.Sleep(500 * time.Millisecond)
		png, err := chromedp.Run(s.tab, chromedp.FullScreenshot(100))
		if err != nil {
			s.t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("%s-%d.png", name, width)), png, 0o644); err != nil {
			s.t.Fatal(err)
		}
	}
	if _, err := chromedp.Call(s.tab, emulation.ClearDeviceMetricsOverride, struct{}{}); err != nil {
		s.t.Fatal(err)
	}
}

// do runs actions with a deadline, failing the test with what timed out and the page's text.
func (s *site) do(what string, actions ...chromedp.Action[chromedp.Void]) {
	s.t.Helper()
	ctx, cancel := context.WithTimeout(s.tab, 90*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		s.fail(what, err)
	}
}

func (s *site) fail(what string, err error) {
	s.t.Helper()
	text, _ := chromedp.Run(s.tab, chromedp.Evaluate[string](`document.querySelector('main')?.innerText ?? ''`))
	s.t.Fatalf("%s: %v\npage text: %.3000s", what, err, text)
}

// eval evaluates expr in the page and decodes its value.
func eval[T any](s *site, expr string) T {
	s.t.Helper()
	v, err := chromedp.Run(s.tab, chromedp.Evaluate[T](expr, chromedp.EvalAwaitPromise))
	if err != nil {
		s.fail("eval "+expr, err)
	}
	return v
}

// until waits for the JavaScript expression to be truthy.
func (s *site) until(what, expr string) {
	s.t.Helper()
	s.do(what, void(chromedp.Poll[bool](expr, chromedp.WithPollingInterval(100*time.Millisecond), chromedp.WithPollingTimeout(60*time.Second))))
}

func void[T any](a chromedp.Action[T]) chromedp.Action[chromedp.Void] {
	return func(ctx context.Context, t *chromedp.Target) (chromedp.Void, error) {
		_, err := a(ctx, t)
		return chromedp.Void{}, err
	}
}

// open navigates to the page's route (#/…) and waits for the element sel.
func (s *site) open(hash, sel string) {
	s.t.Helper()
	s.do("open "+hash, chromedp.Navigate(s.srv.Base+"/"+hash), chromedp.WaitVisible(chromedp.CSS(sel)))
}

// click clicks the element sel; typeIn types into it.
func (s *site) click(sel string) {
	s.t.Helper()
	s.do("click "+sel, chromedp.Click(chromedp.CSS(sel)))
}

// clear empties an input as a person deleting its text would, firing its input event.
func (s *site) clear(sel string) {
	s.t.Helper()
	eval[bool](s, fmt.Sprintf(`(() => { const e = document.querySelector(%q); e.value = ''; e.dispatchEvent(new Event('input', { bubbles: true })); return true })()`, sel))
}

func (s *site) typeIn(sel, text string) {
	s.t.Helper()
	s.do("type into "+sel, chromedp.SendKeys(chromedp.CSS(sel), text))
}

// noStrangeScript fails the test if the page opened a dialog or broke its CSP.
func (s *site) noStrangeScript() {
	s.t.Helper()
	for {
		select {
		case m := <-s.dialog:
			s.t.Errorf("the page opened a dialog: %q", m)
		case v := <-s.csp:
			s.t.Errorf("Content-Security-Policy violation: %s", v)
		default:
			return
		}
	}
}
