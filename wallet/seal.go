package wallet

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/ethereum/go-ethereum/common"
)

// ErrSealBroken reports a sealed or wrapped key that does not open: tampered with, moved to
// another wallet, or under a master key version this process does not hold. It is a server
// fault, never the caller's: the HTTP layer answers it as 500.
var ErrSealBroken = errors.New("wallet: sealed key does not open")

// dataKeySize is the length of a wallet's data key and of a master key (AES-256).
const dataKeySize = 32

// walletAD is the associated data that binds a wallet's wrapped data key to the wallet: a
// domain tag, the wallet id and its address. The master key version is bound by the KeyWrapper.
func walletAD(id string, addr common.Address) []byte {
	ad := make([]byte, 0, 32+len(id)+common.AddressLength)
	ad = append(ad, "curvekit wallet data key v1\x00"...)
	ad = binary.BigEndian.AppendUint32(ad, uint32(len(id)))
	ad = append(ad, id...)
	return append(ad, addr.Bytes()...)
}

// privateKeyAD is the associated data of the sealed private key: the wallet's binding plus the
// master key version, so a row whose version was changed does not open either.
func privateKeyAD(id string, addr common.Address, version uint32) []byte {
	ad := append([]byte("curvekit wallet private key v1\x00"), walletAD(id, addr)...)
	return binary.BigEndian.AppendUint32(ad, version)
}

// seal encrypts plaintext under key with AES-256-GCM: a random 12-byte nonce followed by the
// ciphertext and its tag.
func seal(key, plaintext, ad []byte) ([]byte, error) {
	aead, err := newGCM(key)
	if err != nil {
		return nil, err
	}
	out := make([]byte, aead.NonceSize(), aead.NonceSize()+len(plaintext)+aead.Overhead())
	if _, err := rand.Read(out); err != nil {
		return nil, fmt.Errorf("wallet: nonce: %w", err)
	}
	return aead.Seal(out, out, plaintext, ad), nil
}

// open reverses seal; anything that does not authenticate is ErrSealBroken.
func open(key, sealed, ad []byte) ([]byte, error) {
	aead, err := newGCM(key)
	if err != nil {
		return nil, err
	}
	if len(sealed) < aead.NonceSize()+aead.Overhead() {
		return nil, fmt.Errorf("%w: %d bytes is too short", ErrSealBroken, len(sealed))
	}
	n := aead.NonceSize()
	plain, err := aead.Open(nil, sealed[:n], sealed[n:], ad)
	if err != nil {
		return nil, ErrSealBroken
	}
	return plain, nil
}

func newGCM(key []byte) (cipher.AEAD, error) {
	if len(key) != dataKeySize {
		return nil, fmt.Errorf("wallet: key of %d bytes, want %d", len(key), dataKeySize)
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	return cipher.NewGCM(block)
}
