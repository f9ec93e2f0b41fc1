package wallet

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Keyring is the local KeyWrapper: master keys held in memory, by version, the highest one
// current. New data keys are wrapped under the current key; older versions still unwrap, which
// is what lets a master key rotate (add a version, then rewrap wallets at leisure).
//
// It lives in this package, not in an adapter, because it needs only the standard library and the
// same AES-GCM as the sealing beside it; a KMS-backed KeyWrapper would be an adapter.
type Keyring struct {
	keys    map[uint32][]byte
	current uint32
}

var _ KeyWrapper = (*Keyring)(nil)

// KeyringConfig says where the master keys come from: Keys when set (the value of an environment
// variable), else File.
type KeyringConfig struct {
	// Keys holds master keys as ParseKeyring reads them.
	Keys string
	// File is a file holding master keys as ParseKeyring reads them. It must not be readable
	// or writable by group or others (0600 or stricter).
	File string
	// Create makes File with one new random key when it does not exist (mode 0600), and logs
	// that it did: the embedded default keeps its master key beside its database.
	Create bool
	// Logger receives the notice that a key file was created; default slog.Default().
	Logger *slog.Logger
}

// OpenKeyring returns the keyring cfg names.
func OpenKeyring(cfg KeyringConfig) (*Keyring, error) {
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if strings.TrimSpace(cfg.Keys) != "" {
		return ParseKeyring(cfg.Keys)
	}
	if cfg.File == "" {
		return nil, errors.New("wallet: no master key: give one in the environment or a key file")
	}
	text, err := readKeyFile(cfg.File)
	if errors.Is(err, fs.ErrNotExist) && cfg.Create {
		created, err := createKeyFile(cfg.File)
		if err != nil {
			return nil, err
		}
		if created {
			cfg.Logger.Warn("wallet: created a new master key file; back it up; without it the custodial wallets cannot be opened", "file", cfg.File)
		}
		text, err = readKeyFile(cfg.File)
		if err != nil {
			return nil, err
		}
	} else if err != nil {
		return nil, err
	}
	k, err := ParseKeyring(text)
	if err != nil {
		return nil, fmt.Errorf("%w (file %s)", err, cfg.File)
	}
	return k, nil
}

// readKeyFile reads a key file after checking that only its owner can read it.
func readKeyFile(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("wallet: master key file: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return "", fmt.Errorf("wallet: master key file: %w", err)
	}
	if !st.Mode().IsRegular() {
		return "", fmt.Errorf("wallet: master key file %s is not a regular file", path)
	}
	if perm := st.Mode().Perm(); perm&0o077 != 0 {
		return "", fmt.Errorf("wallet: master key file %s has mode %04o: group and others must have no access (chmod 600 %s)", path, perm, path)
	}
	b, err := io.ReadAll(io.LimitReader(f, maxKeyFile+1))
	if err != nil {
		return "", fmt.Errorf("wallet: master key file %s: %w", path, err)
	}
	if len(b) > maxKeyFile {
		return "", fmt.Errorf("wallet: master key file %s is larger than a key file can be", path)
	}
	return string(b), nil
}

// maxKeyFile bounds a key file: room for dozens of versions.
const maxKeyFile = 8192

// createKeyFile writes a new key file unless one appears first (two processes starting at once
// end up sharing the one that won). It reports whether it created the file.
func createKeyFile(path string) (bool, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return false, fmt.Errorf("wallet: master key directory: %w", err)
	}
	var key [dataKeySize]byte
	if _, err := rand.Read(key[:]); err != nil {
		return false, err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("wallet: create master key file: %w", err)
	}
	_, err = f.WriteString("1:" + hex.EncodeToString(key[:]) + "\n")
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
		return false, fmt.Errorf("wallet: write master key file: %w", err)
	}
	return true, nil
}

// ParseKeyring reads master keys: one per line as "<version>:<64 hex digits>" (versions from 1,
// the highest is current), or a single line of 64 hex digits alone, which is version 1. Blank
// lines and lines starting with '#' are skipped. Errors never echo key material.
func ParseKeyring(text string) (*Keyring, error) {
	k := &Keyring{keys: map[uint32][]byte{}}
	lines := strings.Split(text, "\n")
	for i, line := range lines {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		ver, hexKey, ok := strings.Cut(line, ":")
		version := uint64(1)
		if ok {
			v, err := strconv.ParseUint(ver, 10, 32)
			if err != nil || v == 0 {
				return nil, fmt.Errorf("wallet: master key line %d: the version must be a positive integer", i+1)
			}
			version = v
		} else {
			hexKey = ver
			if len(k.keys) > 0 {
				return nil, fmt.Errorf("wallet: master key line %d: with several keys every line needs its version", i+1)
			}
		}
		key, err := hex.DecodeString(hexKey)
		if err != nil || len(key) != dataKeySize {
			return nil, fmt.Errorf("wallet: master key line %d: want %d hex digits", i+1, 2*dataKeySize)
		}
		if _, dup := k.keys[uint32(version)]; dup {
			return nil, fmt.Errorf("wallet: master key line %d: version %d given twice", i+1, version)
		}
		k.keys[uint32(version)] = key
		k.current = max(k.current, uint32(version))
	}
	if len(k.keys) == 0 {
		return nil, errors.New("wallet: no master key given")
	}
	return k, nil
}

// Current returns the version new data keys are wrapped under.
func (k *Keyring) Current() uint32 { return k.current }

func versionAD(ad []byte, version uint32) []byte {
	out := append([]byte("curvekit master key wrap v1\x00"), ad...)
	return binary.BigEndian.AppendUint32(out, version)
}

// Wrap encrypts dataKey under the current master key.
func (k *Keyring) Wrap(_ context.Context, dataKey, ad []byte) (Wrapped, error) {
	ct, err := seal(k.keys[k.current], dataKey, versionAD(ad, k.current))
	if err != nil {
		return Wrapped{}, err
	}
	return Wrapped{Version: k.current, Ciphertext: ct}, nil
}

// Unwrap decrypts a data key wrapped under any version the keyring holds.
func (k *Keyring) Unwrap(_ context.Context, w Wrapped, ad []byte) ([]byte, error) {
	key, ok := k.keys[w.Version]
	if !ok {
		return nil, fmt.Errorf("%w: master key version %d is not in the keyring", ErrSealBroken, w.Version)
	}
	return open(key, w.Ciphertext, versionAD(ad, w.Version))
}
