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

func (c *copyRows) float(v float64) {
	c.sep()
	c.buf.Write(strconv.AppendFloat(c.scr[:0], v, 'g', -1, 64))
}

// decimal writes v as base-10 digits.
func (c *copyRows) decimal(v *uint256.Int) {
	c.sep()
	c.buf.WriteString(v.Dec())
}

// text writes s, escaping what COPY's text format gives a meaning to.
func (c *copyRows) text(s string) {
	c.sep()
	if !strings.ContainsAny(s, "\\\t\n\r") {
		c.buf.WriteString(s)
		return
	}
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			c.buf.WriteString(`\\`)
		case '\t':
			c.buf.WriteString(`\t`)
		case '\n':
			c.buf.WriteString(`\n`)
		case '\r':
			c.buf.WriteString(`\r`)
		default:
			c.buf.WriteByte(s[i])
		}
	}
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

// tradeCopy writes trades as COPY rows of the trades table.
func tradeCopy(trades []tradeRow) *copyRows {
	c := &copyRows{list: []string{"tx_hash", "log_index", "token", "block_number", "block_hash", "block_time",
		"trader", "recipient", "side", "venue", "quote_amount", "token_amount", "fee", "creator_fee", "refund",
		"price", "reserve_quote", "reserve_token", "quote_approx"}}
	c.buf.Grow(len(trades) * 480)
	for i := range trades {
		r := &trades[i]
		c.bytea(r.TxHash[:])
		c.int(r.LogIndex)
		c.bytea(r.Token[:])
		c.int(r.Block)
		c.bytea(r.BlockHash[:])
		c.int(r.Time)
		c.bytea(r.Trader[:])
		c.bytea(r.Recipient[:])
		c.text(r.Side)
		c.text(r.Venue)
		for _, a := range []*amount{&r.QuoteAmount, &r.TokenAmount, &r.Fee, &r.CreatorFee, &r.Refund, &r.Price, &r.ReserveQuote, &r.ReserveToken} {
			c.decimal((*uint256.Int)(a))
		}
		c.float(r.QuoteApprox)
		c.end()
	}
	return c
}
