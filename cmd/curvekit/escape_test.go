package main

import (
	"context"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/curvekit/curvekit/contracts"
)

// hostile is a token name as an attacker launches it on chain: it would clear the screen, set
// the window title, ring the bell and reverse what follows.
const hostile = "Moon\x1b[2J\x1b]0;pwned\x07\u202eCat"

// Every command that prints a stranger's token name shows its control and bidi characters as
// visible escapes: none reaches the terminal raw.
func TestCommandsShowHostileNamesAsText(t *testing.T) {
	s := startServer(t)
	d := s.app.Devnet
	data, err := contracts.LaunchFactoryABI.Pack("launch", hostile, "EVIL\x1b[31m", "ipfs://x", common.Address{}, big.NewInt(0), big.NewInt(0))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.Send(context.Background(), d.Accounts[6].Key, &d.Addrs.Factory, big.NewInt(0), data); err != nil {
		t.Fatal(err)
	}
	var addr string
	for deadline := time.Now().Add(30 * time.Second); addr == "" && time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		var page struct {
			Tokens []struct{ Address, Name string }
		}
		s.getJSON(t, "/tokens?sort=newest&limit=1", &page)
		if len(page.Tokens) == 1 && page.Tokens[0].Name == hostile {
			addr = page.Tokens[0].Address
		}
	}
	if addr == "" {
		t.Fatal("the hostile launch was not indexed")
	}
	session := s.signIn(t, "escapes")
	key, _ := s.apiKey(t, session, `{"name":"escapes"}`)
	env := []string{"CURVEKIT_SERVER=" + s.base, "CURVEKIT_API_KEY=" + key}
	for _, args := range [][]string{
		{"tokens", "--limit", "5"}, {"tokens", "--json"}, {"token", addr}, {"token", addr, "--json"},
		{"agent", "prompt", "info on " + addr, "--interval", "100ms"},
		{"agent", "chat", "--interval", "100ms"},
	} {
		stdin := ""
		if args[1] == "chat" {
			stdin = "info on " + addr + "\n"
		}
		r := run(t, stdin, env, args...)
		if r.code != 0 {
			t.Fatalf("%v: exit %d\n%s%s", args, r.code, r.stdout, r.stderr)
		}
		out := r.stdout + r.stderr
		if strings.ContainsAny(out, "\x1b\x07\u202e") {
			t.Errorf("%v printed a raw control or bidi character:\n%q", args, out)
		}
		if !strings.Contains(out, `Moon\u001b[2J`) && !strings.Contains(out, `Moon\\u001b[2J`) {
			t.Errorf("%v does not show the name as text:\n%s", args, out)
		}
	}
}

// A token whose symbol reads like another's (the devnet's DETH, again, with a zero-width space)
// is marked in the list and in its own view, and its invisible character is shown.
func TestCommandsMarkLookalikes(t *testing.T) {
	s := startServer(t)
	d := s.app.Devnet
	data, err := contracts.LaunchFactoryABI.Pack("launch", "Demo Ether Token", "DE\u200bTH", "ipfs://x", common.Address{}, big.NewInt(0), big.NewInt(0))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.Send(context.Background(), d.Accounts[6].Key, &d.Addrs.Factory, big.NewInt(0), data); err != nil {
		t.Fatal(err)
	}
	env := []string{"CURVEKIT_SERVER=" + s.base}
	var out string
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		r := run(t, "", env, "tokens", "--limit", "10")
		if out = r.stdout; strings.Contains(out, `DE\u200bTH`) {
			break
		}
	}
	if strings.Count(out, "(look-alike)") != 2 || !strings.Contains(out, `DE\u200bTH (look-alike)`) || !strings.Contains(out, "DETH (look-alike)") {
		t.Fatalf("tokens:\n%s", out)
	}
	r := run(t, "", env, "token", d.ETHToken.Token.Hex())
	if !strings.Contains(r.stdout, "look-alike") || !strings.Contains(r.stdout, "1 with the same symbol") {
		t.Fatalf("token:\n%s%s", r.stdout, r.stderr)
	}
}
