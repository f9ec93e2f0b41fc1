package push

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// SecretPrefix starts every signing secret, as the Standard Webhooks libraries expect: the
// rest is the key in standard base64.
const SecretPrefix = "whsec_"

// secretBytes is the length of a signing key (Standard Webhooks asks for 24 to 64 bytes).
const secretBytes = 32

// ErrSealBroken reports a sealed secret that does not open: a server fault, never the caller's.
var ErrSealBroken = errors.New("push: sealed secret does not open")

// NewSecret returns a fresh signing secret: "whsec_" and 32 random bytes in base64.
func NewSecret() string {
	var k [secretBytes]byte
	_, _ = rand.Read(k[:]) // never fails (crypto/rand)
	return SecretPrefix + base64.StdEncoding.EncodeToString(k[:])
}

// secretKey returns the HMAC key of a secret.
func secretKey(secret string) ([]byte, error) {
	k, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, SecretPrefix))
	if err != nil || !strings.HasPrefix(secret, SecretPrefix) {
		return nil, errors.New("push: malformed signing secret")
	}
	return k, nil
}

// Sign returns the webhook-signature header of a message signed with the given secrets: each
// "v1,<base64 HMAC-SHA256 of id.timestamp.body>", separated by spaces (during a rotation the
// old secret signs beside the new one, so a receiver holding either accepts it).
func Sign(id string, timestamp int64, body []byte, secrets ...string) (string, error) {
	var b strings.Builder
	for i, s := range secrets {
		key, err := secretKey(s)
		if err != nil {
			return "", err
		}
		mac := hmac.New(sha256.New, key)
		mac.Write([]byte(id))
		mac.Write([]byte{'.'})
		mac.Write(strconv.AppendInt(nil, timestamp, 10))
		mac.Write([]byte{'.'})
		mac.Write(body)
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString("v1,")
		b.WriteString(base64.StdEncoding.EncodeToString(mac.Sum(nil)))
	}
	return b.String(), nil
}

// secretAD binds a sealed secret to its subscription, so a sealed value moved to another row
// does not open.
func secretAD(subscriptionID string) []byte {
	ad := make([]byte, 0, 40+len(subscriptionID))
	ad = append(ad, "curvekit webhook secret v1\x00"...)
	ad = binary.BigEndian.AppendUint32(ad, uint32(len(subscriptionID)))
	return append(ad, subscriptionID...)
}

// seal encrypts secret with a fresh data key (AES-256-GCM), wrapped by w.
func seal(ctx context.Context, w KeyWrapper, subscriptionID, secret string) (Sealed, error) {
	var dk [32]byte
	_, _ = rand.Read(dk[:])
	ad := secretAD(subscriptionID)
	version, wrapped, err := w.Wrap(ctx, dk[:], ad)
	if err != nil {
		return Sealed{}, fmt.Errorf("push: wrap data key: %w", err)
	}
	aead, err := gcm(dk[:])
	if err != nil {
		return Sealed{}, err
	}
	out := make([]byte, aead.NonceSize(), aead.NonceSize()+len(secret)+aead.Overhead())
	_, _ = rand.Read(out)
	return Sealed{Version: version, DataKey: wrapped, Ciphertext: aead.Seal(out, out, []byte(secret), ad)}, nil
}

// open reverses seal.
func open(ctx context.Context, w KeyWrapper, subscriptionID string, s *Sealed) (string, error) {
	ad := secretAD(subscriptionID)
	dk, err := w.Unwrap(ctx, s.Version, s.DataKey, ad)
	if err != nil {
		return "", fmt.Errorf("%w: %w", ErrSealBroken, err)
	}
	aead, err := gcm(dk)
	if err != nil {
		return "", err
	}
	n := aead.NonceSize()
	if len(s.Ciphertext) < n+aead.Overhead() {
		return "", ErrSealBroken
	}
	plain, err := aead.Open(nil, s.Ciphertext[:n], s.Ciphertext[n:], ad)
	if err != nil {
		return "", ErrSealBroken
	}
	return string(plain), nil
}

func gcm(key []byte) (cipher.AEAD, error) {
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, fmt.Errorf("push: data key: %w", err)
	}
	return cipher.NewGCM(block)
}
