package redact_test

import (
	"bytes"
	"errors"
	"log/slog"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/curvekit/curvekit/internal/redact"
)

func TestText(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"https://mainnet.infura.io/v3/SECRETKEY123456789?apikey=SECRET2",
			"https://mainnet.infura.io/REDACTED/REDACTED?apikey=REDACTED"},
		// Keys short and long: no length tells a key from a version prefix.
		{"https://mainnet.infura.io/v3/SECRETKEY123", "https://mainnet.infura.io/REDACTED/REDACTED"},
		{"https://rpc.example/SECRETKEY123", "https://rpc.example/REDACTED"},
		{"wss://rpc.example:8546/ws/v1/abc", "wss://rpc.example:8546/REDACTED/REDACTED/REDACTED"},
		{"https://SECRETKEY123@rpc.example/", "https://REDACTED@rpc.example/"},
		{"https://eth-mainnet.g.alchemy.com/v2/abcdefghijklmnopqrstuvwxyz012345",
			"https://eth-mainnet.g.alchemy.com/REDACTED/REDACTED"},
		{"https://x.quiknode.pro/0123456789abcdef0123456789abcdef01234567/",
			"https://x.quiknode.pro/REDACTED/"},
		{"postgres://curvekit:hunter2@db.internal:5432/curvekit?sslmode=disable",
			"postgres://curvekit:REDACTED@db.internal:5432/curvekit?sslmode=REDACTED"},
		{"redis://:s3cret@127.0.0.1:6379/0", "redis://:REDACTED@127.0.0.1:6379/0"},
		{`dial https://rpc.example/v3/SECRETKEY123456: Post "https://rpc.example/v3/SECRETKEY123456": dial tcp 10.0.0.1:443: connection refused`,
			`dial https://rpc.example/REDACTED/REDACTED: Post "https://rpc.example/REDACTED/REDACTED": dial tcp 10.0.0.1:443: connection refused`},
		{`Post "https://rpc.example/v3/SECRETKEY123": EOF`, `Post "https://rpc.example/REDACTED/REDACTED": EOF`},
		{"host=db user=curvekit password=hunter2 dbname=x", "host=db user=curvekit password=REDACTED dbname=x"},
		{"http://127.0.0.1:5001", "http://127.0.0.1:5001"},
		{"https://api.openai.com/v1", "https://api.openai.com/REDACTED"},
		{"redis://127.0.0.1:6379/3", "redis://127.0.0.1:6379/3"},
		{"curvekit.db", "curvekit.db"},
		{"no url here", "no url here"},
		{"launch token: 0xAbC0000000000000000000000000000000000001", "launch token: 0xAbC0000000000000000000000000000000000001"},
	} {
		if got := redact.Text(c.in); got != c.want {
			t.Errorf("Text(%q)\n got %q\nwant %q", c.in, got, c.want)
		}
	}
}

// The handler redacts the message and attributes of every kind that can hold text, also those
// bound by With and inside groups.
func TestHandler(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(redact.Handler(slog.NewTextHandler(&buf, nil))).With("db", "postgres://u:pw1@h/d")
	log.Info("dial https://h/v3/KEYKEYKEYKEYKEYKEY failed",
		"err", errors.New("Post \"https://h/?key=pw2\": refused"),
		slog.Group("g", "url", "https://u:pw3@h"),
		"bytes", []byte("password=pw4"))
	out := buf.String()
	for _, secret := range []string{"pw1", "pw2", "pw3", "pw4", "KEYKEY"} {
		if strings.Contains(out, secret) {
			t.Errorf("%s reached the log: %s", secret, out)
		}
	}
	if diff := cmp.Diff(5, strings.Count(out, redact.Mask)-1); diff != "" {
		t.Errorf("masks (-want +got):\n%s\n%s", diff, out)
	}
}
