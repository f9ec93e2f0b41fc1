package auth

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
)

// The credentials are random secrets of 192 bits or more, so a plain SHA-256 is what is kept at
// rest: guessing a preimage is as hopeless as guessing the secret, so a slow hash would only
// slow every request, and a server pepper (HMAC) would add a second secret to keep and rotate
// whose loss logs everyone out, without making a stolen table any more useful.

// KeyPrefix starts every API key, so that leaked keys can be recognised by scanners.
const KeyPrefix = "svc_"

// keyRandom is the number of random bytes in an API key (SPEC 2.3: 24, written as 48 hex).
const keyRandom = 24

// tokenRandom is the number of random bytes in a session token, a sign-in state, its browser
// binding and a PKCE verifier; base64url writes them as tokenLen characters.
const (
	tokenRandom = 32
	tokenLen    = 43
)

// newAPIKey returns a fresh raw API key: svc_ and 48 lowercase hex digits.
func newAPIKey() string {
	var b [keyRandom]byte
	rand.Read(b[:])
	return KeyPrefix + hex.EncodeToString(b[:])
}

// ValidKeyShape reports whether s looks like an API key (^svc_[0-9a-f]{48}$). Anything else is
// refused before the store is asked.
func ValidKeyShape(s string) bool {
	if len(s) != len(KeyPrefix)+2*keyRandom || s[:len(KeyPrefix)] != KeyPrefix {
		return false
	}
	for i := len(KeyPrefix); i < len(s); i++ {
		c := s[i]
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// keyHint is what a list of keys shows of one: the prefix and the last four digits, enough to
// tell keys apart and nothing to guess with.
func keyHint(raw string) string { return KeyPrefix + "…" + raw[len(raw)-4:] }

// newToken returns 32 random bytes in unpadded base64url: session tokens, states, bindings and
// PKCE verifiers (RFC 7636 wants 43 to 128 such characters).
func newToken() string {
	var b [tokenRandom]byte
	rand.Read(b[:])
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// validTokenShape reports whether s could have come from newToken.
func validTokenShape(s string) bool {
	if len(s) != tokenLen {
		return false
	}
	for i := range len(s) {
		c := s[i]
		if (c < 'A' || c > 'Z') && (c < 'a' || c > 'z') && (c < '0' || c > '9') && c != '-' && c != '_' {
			return false
		}
	}
	return true
}

// digest is what the store keeps of a secret.
func digest(secret string) []byte {
	h := sha256.Sum256([]byte(secret))
	return h[:]
}

// newID returns an identifier with a prefix that says what it names ("acc_", "key_", "ses_").
// Identifiers are not secrets; they are random so that they reveal no counts.
func newID(prefix string) string {
	var b [12]byte
	rand.Read(b[:])
	return prefix + hex.EncodeToString(b[:])
}

// validID reports whether s could be an identifier newID made with prefix.
func validID(s, prefix string) bool {
	if len(s) != len(prefix)+24 || s[:len(prefix)] != prefix {
		return false
	}
	_, err := hex.DecodeString(s[len(prefix):])
	return err == nil
}
