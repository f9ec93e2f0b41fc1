package evm

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"syscall"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/rpc"
)

// NotYetIndexed turns a node's "transaction indexing is in progress" (geth's answer to a read
// by hash while it indexes its transactions, for a while after it starts) into
// ethereum.NotFound: the node does not know the transaction yet, and the caller asks again as
// it does for a pending one. Any other error is returned as it is.
func NotYetIndexed(err error) error {
	if err != nil && strings.Contains(strings.ToLower(err.Error()), "transaction indexing is in progress") {
		return fmt.Errorf("%w (the node is still indexing its transactions)", ethereum.NotFound)
	}
	return err
}

// failure is what an error says about the call that failed and the endpoint that answered it.
type failure uint8

const (
	// failCall is the call's own failure (a revert, a bad argument) or none: the endpoint is
	// fine, and another would answer the same.
	failCall failure = iota
	// failRange: eth_getLogs refused the block range as too wide; a narrower one works.
	failRange
	// failResults: eth_getLogs refused because the range holds too many logs (or took too long
	// to scan); a narrower one works.
	failResults
	// failBehind: the endpoint has not reached the block the call names; another may have.
	failBehind
	// failThrottled: the provider refuses calls at this rate for now: pause, then retry.
	failThrottled
	// failDown: the endpoint did not answer (refused, reset, cut mid-answer, timed out, 5xx).
	failDown
)

// providerErrors are the refusals of nodes and hosted providers that are not the call's own
// fault, recognised by JSON-RPC code (0: any) and a lower-case part of the message. The first
// row that matches decides; a message that no row matches is the call's own failure.
var providerErrors = []struct {
	who  string // whose message it is, for the reader
	code int
	text string
	kind failure
}{
	{"geth", -32602, "exceed maximum block range", failRange},
	{"geth", -32602, "block range extends beyond current head block", failBehind},
	{"geth", 0, "header not found", failBehind},
	{"geth", 0, "unknown block", failBehind},
	{"erigon", 0, "query block range exceeds server limit", failRange},
	{"erigon", 0, "query returns too many logs", failResults},
	{"erigon (cdk)", 0, "block range too large", failRange},
	{"reth", 0, "query exceeds max block range", failRange},
	{"reth", 0, "query exceeds max results", failResults},
	{"nethermind", 0, "too many logs requested", failResults},
	{"nethermind", -32001, "could not be found", failBehind},
	{"alchemy", 0, "log response size exceeded", failResults},
	{"alchemy", 0, "eth_getlogs requests with up to a", failRange},
	{"alchemy", 0, "exceeded its compute units per second capacity", failThrottled},
	{"alchemy", 0, "monthly capacity limit exceeded", failThrottled},
	{"infura", 0, "query returned more than", failResults},
	{"infura", 0, "query timeout exceeded", failResults},
	{"infura", -32602, "exceeds limit of", failRange},
	{"infura", 0, "request rate limited", failThrottled},
	{"infura", 0, "project id request rate exceeded", failThrottled},
	{"quicknode", 0, "eth_getlogs is limited to a", failRange},
	{"quicknode", 0, "credits limited to", failThrottled},
	{"quicknode", 0, "request limit reached", failThrottled},
	{"any", 429, "", failThrottled},
	{"any", 0, "too many requests", failThrottled},
	{"any", 0, "rate limit", failThrottled},
}

// lookup finds msg in providerErrors.
func lookup(code int, msg string) failure {
	msg = strings.ToLower(msg)
	for _, row := range providerErrors {
		if (row.code == 0 || row.code == code) && strings.Contains(msg, row.text) {
			return row.kind
		}
	}
	return failCall
}

// classify says what err tells about the endpoint. A context that ended is the caller's doing
// (failCall); the pool checks its own context before it blames an endpoint.
func classify(err error) failure {
	if err == nil || errors.Is(err, context.Canceled) {
		return failCall
	}
	var he rpc.HTTPError
	if errors.As(err, &he) {
		body := string(he.Body)
		switch {
		case he.StatusCode == http.StatusTooManyRequests, he.StatusCode == http.StatusServiceUnavailable:
			return failThrottled
		case he.StatusCode >= 500:
			return failDown
		}
		// Providers send their JSON-RPC refusals with 4xx statuses too (413, 403).
		if k := lookup(0, body); k != failCall {
			return k
		}
		if he.StatusCode == http.StatusRequestEntityTooLarge {
			return failRange
		}
		return failDown // 401, 403, 404: this endpoint cannot serve us
	}
	var re rpc.Error
	if errors.As(err, &re) {
		return lookup(re.ErrorCode(), re.Error())
	}
	var ne net.Error
	switch {
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &ne) && ne.Timeout():
		return failDown
	case errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE),
		errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF), errors.Is(err, rpc.ErrClientQuit),
		errors.As(err, &ne):
		return failDown
	}
	// A body cut mid-answer surfaces as a JSON decoding error of the transport.
	if msg := err.Error(); strings.Contains(msg, "unexpected EOF") || strings.Contains(msg, "connection reset") ||
		strings.Contains(msg, "connection refused") || strings.Contains(msg, "unexpected end of JSON input") {
		return failDown
	}
	return lookup(0, err.Error())
}

// refused reports an endpoint that refuses connections or has no address: a node that is down,
// not one that failed once.
func refused(err error) bool {
	var dns *net.DNSError
	return err != nil && (errors.Is(err, syscall.ECONNREFUSED) || errors.As(err, &dns) || strings.Contains(err.Error(), "connection refused"))
}

var (
	// suggested: a range the provider proposes, "[0x123, 0x456]" (Alchemy, Infura) or
	// "retry with the range 100-200" (reth, Erigon).
	suggestedHex = regexp.MustCompile(`\[(0x[0-9a-fA-F]+),\s*(0x[0-9a-fA-F]+)\]`)
	suggestedDec = regexp.MustCompile(`range (\d+)-(\d+)`)
	// limit: the widest range the provider allows, "limited to a 10,000 range", "exceeds limit
	// of 10000", "up to a 2K block range", "maximum block range 2000", "max range: 1000".
	limitText = regexp.MustCompile(`(?i)(?:limit of|limited to a|up to a|block range|max range:|narrow your filter:)\s*(\d[\d,]*)(k?)`)
)

// rangeHint reads from a refusal of kind how many blocks one eth_getLogs may cover; 0 when it
// does not say. The range it proposes counts before a limit it names, and a limit counts only
// for a refusal of the range (that of a refusal for too many logs counts logs).
func rangeHint(err error, kind failure) uint64 {
	msg := err.Error()
	var he rpc.HTTPError
	if errors.As(err, &he) {
		msg += " " + string(he.Body)
	}
	if m := suggestedHex.FindStringSubmatch(msg); m != nil {
		a, errA := strconv.ParseUint(m[1][2:], 16, 64)
		b, errB := strconv.ParseUint(m[2][2:], 16, 64)
		if errA == nil && errB == nil && b >= a {
			return b - a + 1
		}
	}
	if m := suggestedDec.FindStringSubmatch(msg); m != nil {
		a, errA := strconv.ParseUint(m[1], 10, 64)
		b, errB := strconv.ParseUint(m[2], 10, 64)
		if errA == nil && errB == nil && b >= a {
			return b - a + 1
		}
	}
	if m := limitText.FindStringSubmatch(msg); m != nil && kind == failRange {
		n, err := strconv.ParseUint(strings.ReplaceAll(m[1], ",", ""), 10, 64)
		if err == nil && n > 0 {
			if strings.EqualFold(m[2], "k") {
				n *= 1000
			}
			return n
		}
	}
	return 0
}
