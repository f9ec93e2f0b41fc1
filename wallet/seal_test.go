package wallet

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/crypto"
)

func testKeyring(t testing.TB, text string) *Keyring {
	t.Helper()
	k, err := ParseKeyring(text)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func randomHex(t testing.TB) string {
	t.Helper()
	b := make([]byte, dataKeySize)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b)
}

// serviceWith is a Service with only keys: enough to seal and unseal.
func serviceWith(k KeyWrapper) *Service {
	s := &Service{cfg: Config{Keys: k}}
	s.cfg.withDefaults()
	return s
}

func TestSealRoundTrip(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := serviceWith(testKeyring(t, randomHex(t)))
	w, err := s.newWallet(ctx, "acct")
	if err != nil {
		t.Fatal(err)
	}
	if w.KeyVersion != 1 || len(w.DataKey) == 0 || len(w.PrivateKey) == 0 {
		t.Fatalf("wallet %+v", w)
	}
	key, err := s.unseal(ctx, &w)
	if err != nil {
		t.Fatal(err)
	}
	if crypto.PubkeyToAddress(key.PublicKey) != w.Address {
		t.Fatal("unsealed key does not control the wallet's address")
	}
	// Nothing stored holds the key in the clear.
	raw := crypto.FromECDSA(key)
	for _, b := range [][]byte{w.DataKey, w.PrivateKey, []byte(w.ID)} {
		if bytes.Contains(b, raw) {
			t.Fatal("the private key is stored in the clear")
		}
	}
}

// A flipped byte anywhere, a ciphertext moved to another wallet, or an edited version does not
// open.
func TestSealDetectsTampering(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := serviceWith(testKeyring(t, "1:"+randomHex(t)+"\n2:"+randomHex(t)))
	w, err := s.newWallet(ctx, "acct-a")
	if err != nil {
		t.Fatal(err)
	}
	other, err := s.newWallet(ctx, "acct-b")
	if err != nil {
		t.Fatal(err)
	}
	flip := func(b []byte, i int) []byte {
		c := bytes.Clone(b)
		c[i] ^= 0x01
		return c
	}
	cases := map[string]func(w Wallet) Wallet{
		"flipped byte in the sealed key, first":    func(w Wallet) Wallet { w.PrivateKey = flip(w.PrivateKey, 0); return w },
		"flipped byte in the sealed key, last":     func(w Wallet) Wallet { w.PrivateKey = flip(w.PrivateKey, len(w.PrivateKey)-1); return w },
		"flipped byte in the wrapped data key":     func(w Wallet) Wallet { w.DataKey = flip(w.DataKey, 20); return w },
		"another wallet's sealed key":              func(w Wallet) Wallet { w.PrivateKey = other.PrivateKey; return w },
		"another wallet's data key and sealed key": func(w Wallet) Wallet { w.DataKey, w.PrivateKey = other.DataKey, other.PrivateKey; return w },
		"another wallet's id":                      func(w Wallet) Wallet { w.ID = other.ID; return w },
		"another wallet's address":                 func(w Wallet) Wallet { w.Address = other.Address; return w },
		"an edited key version":                    func(w Wallet) Wallet { w.KeyVersion = 1; return w },
		"a version the keyring lacks":              func(w Wallet) Wallet { w.KeyVersion = 9; return w },
		"a truncated sealed key":                   func(w Wallet) Wallet { w.PrivateKey = w.PrivateKey[:10]; return w },
	}
	for name, tamper := range cases {
		bad := tamper(w)
		if _, err := s.unseal(ctx, &bad); !errors.Is(err, ErrSealBroken) {
			t.Errorf("%s: unseal = %v, want ErrSealBroken", name, err)
		}
	}
	if _, err := s.unseal(ctx, &w); err != nil {
		t.Fatalf("the untouched wallet: %v", err)
	}
}

// Adding a master key version wraps new wallets under it while older wallets still open.
func TestKeyringRotation(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	v1 := randomHex(t)
	old := serviceWith(testKeyring(t, v1))
	w1, err := old.newWallet(ctx, "acct-old")
	if err != nil {
		t.Fatal(err)
	}
	rotated := serviceWith(testKeyring(t, "# rotated\n1:"+v1+"\n2:"+randomHex(t)+"\n"))
	w2, err := rotated.newWallet(ctx, "acct-new")
	if err != nil {
		t.Fatal(err)
	}
	if w1.KeyVersion != 1 || w2.KeyVersion != 2 {
		t.Fatalf("versions %d and %d, want 1 and 2", w1.KeyVersion, w2.KeyVersion)
	}
	for _, w := range []Wallet{w1, w2} {
		if _, err := rotated.unseal(ctx, &w); err != nil {
			t.Fatalf("version %d after rotation: %v", w.KeyVersion, err)
		}
	}
	if _, err := old.unseal(ctx, &w2); !errors.Is(err, ErrSealBroken) {
		t.Fatalf("a keyring without version 2 opened it: %v", err)
	}
}

func TestParseKeyring(t *testing.T) {
	t.Parallel()
	k1, k2 := randomHex(t), randomHex(t)
	for _, tt := range []struct {
		text    string
		current uint32
		ok      bool
	}{
		{k1, 1, true},
		{"  " + k1 + "\n", 1, true},
		{"1:" + k1 + "\n7:" + k2, 7, true},
		{"# comment\n\n3:" + k1, 3, true},
		{"", 0, false},
		{"# only a comment", 0, false},
		{k1[:62], 0, false},
		{k1 + "00", 0, false},
		{"0:" + k1, 0, false},
		{"x:" + k1, 0, false},
		{"1:" + k1 + "\n1:" + k2, 0, false},
		{"1:" + k1 + "\n" + k2, 0, false},
		{strings.ToUpper(k1[:10]) + "zz" + k1[12:], 0, false},
	} {
		k, err := ParseKeyring(tt.text)
		if !tt.ok {
			if err == nil {
				t.Errorf("ParseKeyring(%q) succeeded", tt.text)
			} else if strings.Contains(err.Error(), k1[:16]) || strings.Contains(err.Error(), k2[:16]) {
				t.Errorf("error %q echoes key material", err)
			}
			continue
		}
		if err != nil || k.Current() != tt.current {
			t.Errorf("ParseKeyring(%q) = current %v, %v; want %d", tt.text, k, err, tt.current)
		}
	}
}

func TestKeyFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "data", "master.key")
	var logs bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&logs, nil))

	if _, err := OpenKeyring(KeyringConfig{File: path, Logger: logger}); err == nil {
		t.Fatal("a missing key file without Create opened")
	}
	created, err := OpenKeyring(KeyringConfig{File: path, Create: true, Logger: logger})
	if err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(path)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("created key file mode %v, %v; want 0600", st.Mode().Perm(), err)
	}
	if !strings.Contains(logs.String(), "created a new master key file") || !strings.Contains(logs.String(), path) {
		t.Fatalf("creating the key file was not announced: %q", logs.String())
	}
	// Opened again, the same key: a wallet sealed before opens after.
	ctx := context.Background()
	w, err := serviceWith(created).newWallet(ctx, "acct")
	if err != nil {
		t.Fatal(err)
	}
	logs.Reset()
	again, err := OpenKeyring(KeyringConfig{File: path, Create: true, Logger: logger})
	if err != nil {
		t.Fatal(err)
	}
	if logs.Len() != 0 {
		t.Fatalf("reopening announced a new key: %q", logs.String())
	}
	if _, err := serviceWith(again).unseal(ctx, &w); err != nil {
		t.Fatalf("wallet sealed before reopening: %v", err)
	}
	// Readable or writable by group or others: refused, with the fix in the message.
	for _, mode := range []os.FileMode{0o640, 0o604, 0o660, 0o602} {
		if err := os.Chmod(path, mode); err != nil {
			t.Fatal(err)
		}
		if _, err := OpenKeyring(KeyringConfig{File: path}); err == nil || !strings.Contains(err.Error(), "chmod 600") {
			t.Errorf("mode %04o: %v, want a refusal", mode, err)
		}
	}
	if err := os.Chmod(path, 0o400); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenKeyring(KeyringConfig{File: path}); err != nil {
		t.Fatalf("mode 0400: %v", err)
	}
	// Keys given directly (the environment) win over the file.
	env := randomHex(t)
	k, err := OpenKeyring(KeyringConfig{Keys: "5:" + env, File: path})
	if err != nil || k.Current() != 5 {
		t.Fatalf("keys from the environment: %v, %v", k, err)
	}
	if _, err := OpenKeyring(KeyringConfig{}); err == nil {
		t.Fatal("no key source opened")
	}
}

func BenchmarkSeal(b *testing.B) {
	ctx := context.Background()
	s := serviceWith(testKeyring(b, randomHex(b)))
	w, err := s.newWallet(ctx, "acct")
	if err != nil {
		b.Fatal(err)
	}
	b.Run("unseal", func(b *testing.B) {
		for b.Loop() {
			if _, err := s.unseal(ctx, &w); err != nil {
				b.Fatal(err)
			}
		}
	})
}
