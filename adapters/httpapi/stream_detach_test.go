package httpapi

import (
	"bufio"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/curvekit/curvekit/stream"
)

// rawStream sends request on a new connection to e's server and returns the connection with the
// response read up to its body.
func rawStream(t *testing.T, e *streamEnv, request string) (net.Conn, *http.Response, *sseClient) {
	t.Helper()
	nc, err := net.Dial("tcp", strings.TrimPrefix(e.srv.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	if _, err := nc.Write([]byte(request)); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(nc), nil)
	if err != nil {
		t.Fatal(err)
	}
	return nc, resp, &sseClient{t: t, resp: resp, r: bufio.NewReader(resp.Body)}
}

// Over HTTP/1.1 a stream's body is the rest of the connection, unchunked and closed at its end
// (the SSE specification's recommendation), so that the server can hand the connection to the
// stream and let go of what net/http keeps per connection; over HTTP/1.0 the same.
func TestStreamOwnsItsConnection(t *testing.T) {
	t.Parallel()
	e := newStreamEnv(t, streamOptions{heartbeat: time.Hour})
	for _, proto := range []string{"HTTP/1.1", "HTTP/1.0"} {
		_, resp, c := rawStream(t, e, "GET /tokens/stream "+proto+"\r\nHost: curvekit.test\r\n\r\n")
		if resp.StatusCode != http.StatusOK || !resp.Close || len(resp.TransferEncoding) != 0 || resp.ContentLength != -1 {
			t.Fatalf("%s: status %d, close %v, transfer encoding %v, length %d; want 200, closed at the end, unchunked",
				proto, resp.StatusCode, resp.Close, resp.TransferEncoding, resp.ContentLength)
		}
		if got := resp.Header.Get("Content-Type"); got != "text/event-stream" {
			t.Fatalf("%s: Content-Type %q", proto, got)
		}
		if ev := c.event(); ev.name != "refresh" {
			t.Fatalf("%s: first event %+v", proto, ev)
		}
		// Live events reach the client after the handover.
		e.hub.Publish(stream.GlobalTopic, &stream.Message{Kind: stream.KindRefresh, Data: []byte(`{"reason":"test"}`)})
		if ev := c.event(); ev.name != "refresh" || ev.data != `{"reason":"test"}` {
			t.Fatalf("%s: live event %+v", proto, ev)
		}
	}
}

// A stream ends the moment its client hangs up, not at its next heartbeat (an hour here), and
// when the client sends anything after its request: a stream's client sends nothing, and a
// pipelined request would never be answered.
func TestStreamEndsWhenItsClientLeaves(t *testing.T) {
	t.Parallel()
	e := newStreamEnv(t, streamOptions{heartbeat: time.Hour})
	topic := stream.TokenTopic(tusdToken)
	request := "GET /tokens/" + tusdToken.Hex() + "/stream HTTP/1.1\r\nHost: curvekit.test\r\n\r\n"

	nc, _, c := rawStream(t, e, request)
	c.event()
	waitFor(t, func() bool { return e.hub.Subscribers(topic) == 1 }, "the stream to subscribe")
	nc.Close()
	waitFor(t, func() bool { return e.hub.Subscribers(topic) == 0 }, "the stream to end after its client hung up")

	nc, _, c = rawStream(t, e, request)
	c.event()
	waitFor(t, func() bool { return e.hub.Subscribers(topic) == 1 }, "the stream to subscribe")
	if _, err := nc.Write([]byte("GET /config HTTP/1.1\r\nHost: curvekit.test\r\n\r\n")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { return e.hub.Subscribers(topic) == 0 }, "the stream to end after its client sent more")
	_ = nc.SetReadDeadline(time.Now().Add(5 * time.Second))
	for {
		if _, err := c.r.ReadString('\n'); err != nil {
			break // the server closed the connection; the pipelined request got no answer
		}
	}
}
