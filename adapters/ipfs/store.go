// Package ipfs implements launch.Pinner twice: Store, a content-addressed directory on local disk
// whose CIDs equal Kubo's (the embedded default, served by the reference server at /ipfs/:cid),
// and Kubo, a pinner that adds content to a Kubo node over its HTTP RPC.
package ipfs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/launch"
)

// StoreConfig configures a Store.
type StoreConfig struct {
	// Dir is the directory that holds the content; it is created when missing.
	Dir string
}

// Store is a content-addressed store in a directory: each object is a file named by its CID
// beside a file holding its media type. Writes go to a temporary file first and are renamed
// into place, so a reader never sees a partial object and a failed pin leaves nothing behind.
// It is safe for concurrent use, by several processes too.
type Store struct {
	dir string
}

var _ launch.Pinner = (*Store)(nil)

// NewStore opens (creating it when missing) the store in cfg.Dir.
func NewStore(cfg StoreConfig) (*Store, error) {
	if strings.TrimSpace(cfg.Dir) == "" {
		return nil, errors.New("ipfs: store directory is empty")
	}
	if err := os.MkdirAll(filepath.Join(cfg.Dir, "tmp"), 0o700); err != nil {
		return nil, fmt.Errorf("ipfs: store: %w", err)
	}
	return &Store{dir: cfg.Dir}, nil
}

// path spreads objects over subdirectories named by the CID's last two characters, as Kubo's
// flatfs does, so no directory grows too large.
func (s *Store) path(cid string) string {
	return filepath.Join(s.dir, cid[len(cid)-2:], cid)
}

// Pin writes c.Body to disk while computing its CID, then moves it under that CID.
func (s *Store) Pin(ctx context.Context, c launch.Content) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	tmp, err := os.CreateTemp(filepath.Join(s.dir, "tmp"), "pin-*")
	if err != nil {
		return "", fmt.Errorf("ipfs: store: %w", err)
	}
	defer os.Remove(tmp.Name()) // a no-op once renamed
	var b launch.CIDBuilder
	_, err = io.Copy(io.MultiWriter(tmp, &b), ctxReader{ctx, c.Body})
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", fmt.Errorf("ipfs: store: %w", err)
	}
	cid := b.Sum()
	p := s.path(cid)
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return "", fmt.Errorf("ipfs: store: %w", err)
	}
	// The type goes first: once the content is in place, its type is readable.
	if err := s.writeType(cid, c.Type); err != nil {
		return "", err
	}
	if err := os.Rename(tmp.Name(), p); err != nil {
		return "", fmt.Errorf("ipfs: store: %w", err)
	}
	return cid, nil
}

// writeType records the media type unless one is there already: the first pin of some bytes
// decides, as the content under a CID never changes.
func (s *Store) writeType(cid, typ string) error {
	p := s.path(cid) + ".type"
	if _, err := os.Stat(p); err == nil {
		return nil
	}
	tmp, err := os.CreateTemp(filepath.Join(s.dir, "tmp"), "type-*")
	if err != nil {
		return fmt.Errorf("ipfs: store: %w", err)
	}
	defer os.Remove(tmp.Name())
	_, err = tmp.WriteString(typ)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), p)
	}
	if err != nil {
		return fmt.Errorf("ipfs: store: %w", err)
	}
	return nil
}

// Get opens the content under cid.
func (s *Store) Get(ctx context.Context, cid string) (launch.Object, error) {
	if _, err := launch.ParseCID(cid); err != nil {
		return launch.Object{}, err
	}
	f, err := os.Open(s.path(cid))
	if errors.Is(err, fs.ErrNotExist) {
		return launch.Object{}, fmt.Errorf("%w: no content %s", curvekit.ErrNotFound, cid)
	}
	if err != nil {
		return launch.Object{}, fmt.Errorf("ipfs: store: %w", err)
	}
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return launch.Object{}, fmt.Errorf("ipfs: store: %w", err)
	}
	typ, err := os.ReadFile(s.path(cid) + ".type")
	if err != nil {
		f.Close()
		return launch.Object{}, fmt.Errorf("ipfs: store: %w", err)
	}
	return launch.Object{Body: f, Type: string(typ), Size: info.Size()}, nil
}

// ctxReader stops a copy when its context ends.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}
