package bunstore

import (
	"bytes"
	"context"
	"encoding/hex"
	"strconv"
	"strings"

	"github.com/holiman/uint256"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/driver/pgdriver"
)

// PostgreSQL loads rows with COPY several times faster than with a multi-row INSERT of the
// same rows: nothing is parsed but the data. COPY knows no ON CONFLICT, so Apply copies only
// the rows that cannot be stored already (the trades of blocks after the stored cursor: the
// store holds every row of a block up to its cursor and none after) and inserts the others.
// The copy runs on the connection of Apply's transaction, inside it.

// copyRows is rows in COPY's text format, built a field at a time.
type copyRows struct {
	buf  bytes.Buffer
	n    int  // rows ended
	mid  bool // a field of the current row is written
	scr  [80]byte
	list []string // the columns, in order
}

func (c *copyRows) sep() {
	if c.mid {
		c.buf.WriteByte('\t')
	}
	c.mid = true
}

// bytea writes b as a bytea in hex ("\x…", the backslash escaped for COPY).
func (c *copyRows) bytea(b []byte) {
	c.sep()
	c.buf.WriteString(`\\x`)
	n := hex.Encode(c.scr[:], b[:min(len(b), len(c.scr)/2)])
	c.buf.Write(c.scr[:n])
	if len(b) > len(c.scr)/2 {
		c.buf.WriteString(hex.EncodeToString(b[len(c.scr)/2:]))
	}
}

func (c *copyRows) int(v int64) {
	c.sep()
	c.buf.Write(strconv.AppendInt(c.scr[:0], v, 10))
}

func (c *copyRows) end() {
	c.buf.WriteByte('\n')
	c.n++
	c.mid = false
}

// copyInto loads rows into table on conn, which holds the open transaction.
func copyInto(ctx context.Context, conn bun.Conn, table string, rows *copyRows) error {
	if rows.n == 0 {
		return nil
	}
	_, err := pgdriver.CopyFrom(ctx, conn, &rows.buf, "COPY "+table+" ("+strings.Join(rows.list, ", ")+") FROM STDIN")
	return err
}

// tradeCopy writes trades as COPY rows of the trades table (their blocks' hashes go to
// trade_blocks).
func tradeCopy(trades []tradeRow) *copyRows {
	c := &copyRows{list: []string{"block_number", "block_time", "log_index", "side", "venue", "token", "tx_hash",
		"trader", "recipient", "quote_amount", "token_amount", "fee", "creator_fee", "refund",
		"price", "reserve_quote", "reserve_token"}}
	c.buf.Grow(len(trades) * 400)
	var scratch [32]byte
	for i := range trades {
		r := &trades[i]
		c.int(r.Block)
		c.int(r.Time)
		c.int(int64(r.LogIndex))
		c.int(int64(r.Side))
		c.int(int64(r.Venue))
		c.bytea(r.Token[:])
		c.bytea(r.TxHash[:])
		c.bytea(r.Trader[:])
		if r.Recipient.set {
			c.bytea(r.Recipient.addr[:])
		} else {
			c.bytea(nil)
		}
		for _, a := range []*binAmount{&r.QuoteAmount, &r.TokenAmount, &r.Fee, &r.CreatorFee, &r.Refund, &r.Price, &r.ReserveQuote, &r.ReserveToken} {
			v := (*uint256.Int)(a)
			n := (v.BitLen() + 7) / 8
			v.WriteToSlice(scratch[:])
			c.bytea(scratch[32-n:])
		}
		c.end()
	}
	return c
}
