package evm

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"syscall"
	"testing"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/rpc"
)

// rpcErr is a JSON-RPC error as go-ethereum's client returns it.
type rpcErr struct {
	code int
	msg  string
}

func (e rpcErr) Error() string  { return e.msg }
func (e rpcErr) ErrorCode() int { return e.code }

var _ rpc.Error = rpcErr{}

// TestProviderErrors: every row of providerErrors is recognised in the words its node or
// provider really answers (from their issue trackers and docs), with the range a refusal names.
func TestProviderErrors(t *testing.T) {
	httpErr := func(status int, body string) error {
		return rpc.HTTPError{StatusCode: status, Status: fmt.Sprint(status), Body: []byte(body)}
	}
	for _, c := range []struct {
		who  string
		err  error
		want failure
		hint uint64
	}{
		{"geth", rpcErr{-32602, "exceed maximum block range 2000"}, failRange, 2000},
		{"geth", rpcErr{-32602, "block range extends beyond current head block"}, failBehind, 0},
		{"geth", rpcErr{-32000, "header not found"}, failBehind, 0},
		{"geth", rpcErr{-32000, "unknown block"}, failBehind, 0},
		{"erigon", rpcErr{-32602, "query block range exceeds server limit, narrow your filter: 1000"}, failRange, 1000},
		{"erigon", rpcErr{-32000, "query returns too many logs, narrow your filter: 20000"}, failResults, 0},
		{"erigon (cdk)", rpcErr{-32005, "block range too large, max range: 1000"}, failRange, 1000},
		{"reth", rpcErr{-32602, "query exceeds max block range 100000"}, failRange, 100000},
		{"reth", rpcErr{-32602, "query exceeds max results 20000, retry with the range 23879634-23879696"}, failResults, 63},
		{"nethermind", rpcErr{-32005, "Too many logs requested. Max logs per response is 20000."}, failResults, 0},
		{"nethermind", rpcErr{-32001, "8633830 could not be found"}, failBehind, 0},
		{"alchemy", rpcErr{-32602, "Log response size exceeded. You can make eth_getLogs requests with up to a 2K block range and no limit on the response size, or you can request any block range with a cap of 10K logs in the response. Based on your parameters and the response size limit, this block range should work: [0xc5dc00, 0xc614a7]"}, failResults, 0xc614a7 - 0xc5dc00 + 1},
		{"alchemy", rpcErr{-32600, "You can make eth_getLogs requests with up to a 500 block range. Based on your parameters, this block range should work: [0x123c9b2, 0x123cba5]"}, failRange, 0x123cba5 - 0x123c9b2 + 1},
		{"alchemy", rpcErr{429, "Your app has exceeded its compute units per second capacity. If you have retries enabled, you can safely ignore this message."}, failThrottled, 0},
		{"alchemy", httpErr(403, `{"jsonrpc":"2.0","id":6570,"error":{"code":-32600,"message":"Monthly capacity limit exceeded. Visit https://dashboard.alchemyapi.io/settings/billing to upgrade your scaling policy for continued service."}}`), failThrottled, 0},
		{"infura", rpcErr{-32005, "query returned more than 10000 results. Try with this block range [0xBDE5F8, 0x102DBCC]."}, failResults, 0x102DBCC - 0xBDE5F8 + 1},
		{"infura", rpcErr{-32005, "query timeout exceeded"}, failResults, 0},
		{"infura", rpcErr{-32602, "range 1000000 exceeds limit of 10000"}, failRange, 10000},
		{"infura", httpErr(429, `{"jsonrpc":"2.0","id":1,"error":{"code":-32005,"message":"daily request count exceeded, request rate limited","data":{"rate":{"allowed_rps":1,"backoff_seconds":30}}}}`), failThrottled, 0},
		{"infura", rpcErr{-32005, "daily request count exceeded, request rate limited"}, failThrottled, 0},
		{"infura", rpcErr{-32005, "project ID request rate exceeded"}, failThrottled, 0},
		{"quicknode", httpErr(413, `{"jsonrpc":"2.0","id":206,"error":{"code":-32614,"message":"eth_getLogs is limited to a 10,000 range"}}`), failRange, 10000},
		{"quicknode", rpcErr{-32007, "credits limited to 50/sec"}, failThrottled, 0},
		{"quicknode", rpcErr{-32007, "request limit reached"}, failThrottled, 0},
		{"any", rpcErr{429, "slow down"}, failThrottled, 0},
		{"any", httpErr(429, "Too Many Requests"), failThrottled, 0},
		{"any", rpcErr{-32000, "Too Many Requests"}, failThrottled, 0},
		{"any", rpcErr{-32000, "rate limit exceeded"}, failThrottled, 0},
		// What the transport says when the endpoint does not answer.
		{"transport", httpErr(503, "Service Unavailable"), failThrottled, 0},
		{"transport", httpErr(502, "Bad Gateway"), failDown, 0},
		{"transport", httpErr(401, "invalid project id"), failDown, 0},
		{"transport", &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}, failDown, 0},
		{"transport", fmt.Errorf("post: %w", syscall.ECONNRESET), failDown, 0},
		{"transport", io.ErrUnexpectedEOF, failDown, 0},
		{"transport", context.DeadlineExceeded, failDown, 0},
		// The call's own failures: another endpoint would answer the same.
		{"call", rpcErr{3, "execution reverted"}, failCall, 0},
		{"call", rpcErr{-32000, "nonce too low"}, failCall, 0},
		{"call", context.Canceled, failCall, 0},
		{"call", errors.New("not found"), failCall, 0},
	} {
		if got := classify(c.err); got != c.want {
			t.Errorf("%s: %v is %d, want %d", c.who, c.err, got, c.want)
		}
		if c.want == failRange || c.want == failResults {
			if got := rangeHint(c.err, c.want); got != c.hint {
				t.Errorf("%s: %v: hint %d, want %d", c.who, c.err, got, c.hint)
			}
		}
	}
	// Every row is met by a case above.
	for _, row := range providerErrors {
		if row.text == "" {
			continue
		}
		if lookup(row.code, row.text) != row.kind {
			t.Errorf("row %s %q is shadowed by an earlier row", row.who, row.text)
		}
	}
}

// TestNotYetIndexed: geth's answer to a read by hash while it indexes its transactions after a
// start is "not found yet", never a failure; every other error stays as it is.
func TestNotYetIndexed(t *testing.T) {
	indexing := rpcErr{-32000, "transaction indexing is in progress"}
	if err := NotYetIndexed(indexing); !errors.Is(err, ethereum.NotFound) {
		t.Errorf("NotYetIndexed(%v) = %v, want ethereum.NotFound", indexing, err)
	}
	for _, err := range []error{nil, rpcErr{-32000, "nonce too low"}, io.ErrUnexpectedEOF} {
		if got := NotYetIndexed(err); got != err {
			t.Errorf("NotYetIndexed(%v) = %v, want it unchanged", err, got)
		}
	}
}
