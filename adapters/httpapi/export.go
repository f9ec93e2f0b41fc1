package httpapi

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/uptrace/bunrouter"

	"github.com/curvekit/curvekit/candles"
	"github.com/curvekit/curvekit/market"
)

// The bulk exports: a token's trades and its bars at any resolution over any range, as CSV or
// NDJSON (one JSON object a line, the shapes of GET /trades and /candles with a cursor), streamed
// a chunk at a time with bounded memory. Each line carries the cursor to resume after it: a client
// cut off mid-way asks again with the last complete line's cursor.

// exportFormat is how an export is written.
type exportFormat struct {
	ext, contentType string
	csv              bool
}

var (
	formatCSV    = exportFormat{ext: "csv", contentType: "text/csv; charset=utf-8", csv: true}
	formatNDJSON = exportFormat{ext: "ndjson", contentType: "application/x-ndjson"}
)

// exportWrite bounds each write of an export: a client that stops reading is let go.
const exportWrite = 30 * time.Second

// tradeColumns are the CSV header of a trades export: tradeJSON's fields and the cursor.
var tradeColumns = []string{"cursor", "txHash", "logIndex", "block", "time", "side", "venue", "trader", "recipient",
	"quoteAmount", "tokenAmount", "fee", "creatorFee", "refund", "price"}

// barColumns are the CSV header of a candles export: barJSON's fields (time is the cursor).
var barColumns = []string{"time", "open", "high", "low", "close", "volume", "trades"}

// exportQuery reads from, to and cursor (and res for bars).
func exportQuery(req bunrouter.Request, bars bool) (market.ExportQuery, error) {
	addr, err := tokenAddress(req)
	if err != nil {
		return market.ExportQuery{}, err
	}
	q := newQuery(req.URL)
	eq := market.ExportQuery{Token: addr}
	eq.From = q.intIn("from", 0, 1, maxUnixTime)
	eq.To = q.intIn("to", 0, 1, maxUnixTime)
	if eq.To != 0 && eq.From > eq.To {
		q.fail("from must not be after to")
	}
	eq.Cursor = q.str("cursor", "")
	if bars {
		if eq.Resolution, err = candles.ParseResolution(q.str("res", candles.DefaultResolution.String())); err != nil {
			q.fail("res must be one of %s", strings.Join(resolutionNames(), ", "))
		}
		if eq.Cursor != "" {
			if c, ok := parseDigits(eq.Cursor); !ok || c > maxUnixTime {
				q.fail("cursor must be a bar time of a previous export")
			}
		}
	} else if eq.Cursor != "" {
		if _, err := market.ParsePosition(eq.Cursor); err != nil {
			q.fail("cursor must be the cursor of a line of a previous export")
		}
	}
	return eq, q.err()
}

// exporter writes an export's lines, buffered, flushing a chunk at a time. The header goes out
// with the first flush, so an export refused before its first line answers a JSON error.
type exporter struct {
	w       http.ResponseWriter
	rc      *http.ResponseController
	buf     *bufio.Writer
	started bool
	lines   int
	// line is built in scratch (CSV) or js (NDJSON), both kept from line to line.
	scratch []byte
	js      bytes.Buffer
	enc     *json.Encoder
}

func newExporter(w http.ResponseWriter, f exportFormat, name string) *exporter {
	h := w.Header()
	h.Set("Content-Type", f.contentType)
	h["X-Content-Type-Options"] = nosniff
	h.Set("Content-Disposition", `attachment; filename="`+name+"."+f.ext+`"`)
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no")
	e := &exporter{w: w, rc: http.NewResponseController(w)}
	e.buf = bufio.NewWriterSize(writerFunc(e.write), 64<<10)
	e.enc = json.NewEncoder(&e.js)
	return e
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

func (e *exporter) write(p []byte) (int, error) {
	e.started = true
	_ = e.rc.SetWriteDeadline(time.Now().Add(exportWrite))
	return e.w.Write(p)
}

// exportFlush is how many lines an export writes between flushes to the client.
const exportFlush = 1000

// line writes one line; every exportFlush lines it flushes to the client.
func (e *exporter) line(b []byte) error {
	if _, err := e.buf.Write(b); err != nil {
		return err
	}
	if e.lines++; e.lines%exportFlush == 0 {
		return e.flush()
	}
	return nil
}

func (e *exporter) flush() error {
	if err := e.buf.Flush(); err != nil {
		return err
	}
	return e.rc.Flush()
}

// finish ends an export: a failure before any byte went out is the usual JSON error; after, the
// connection is cut (the client resumes from its last complete line).
func (e *exporter) finish(err error) error {
	if err == nil {
		err = e.flush()
	}
	if err == nil || !e.started {
		return err
	}
	if !errors.Is(err, context.Canceled) {
		panic(http.ErrAbortHandler)
	}
	return nil
}

// csv writes a line of fields, CSV.
func (e *exporter) csv(fields ...string) error {
	b := e.scratch[:0]
	for i, f := range fields {
		if i > 0 {
			b = append(b, ',')
		}
		// Every field is an address, hash, number or word of the API: nothing to quote.
		b = append(b, f...)
	}
	e.scratch = append(b, '\n')
	return e.line(e.scratch)
}

// ndjson writes v as a line of JSON.
func (e *exporter) ndjson(v any) error {
	e.js.Reset()
	if err := e.enc.Encode(v); err != nil {
		return err
	}
	return e.line(e.js.Bytes())
}

// tradeLine is a line of a trades export: a trade with its cursor first.
type tradeLine struct {
	Cursor string `json:"cursor"`
	tradeJSON
}

// GET /tokens/:address/trades.csv and /trades.ndjson
func (s *Server) exportTrades(f exportFormat) bunrouter.HandlerFunc {
	return func(w http.ResponseWriter, req bunrouter.Request) error {
		q, err := exportQuery(req, false)
		if err != nil {
			return err
		}
		var e *exporter
		err = s.cfg.Market.ExportTrades(req.Context(), q, func(t *market.Token, tr *market.Trade) error {
			if e == nil {
				e = newExporter(w, f, "trades-"+strings.ToLower(t.Address.Hex()))
				if f.csv {
					if err := e.csv(tradeColumns...); err != nil {
						return err
					}
				}
			}
			j := tradeOf(t, tr)
			cursor := market.PositionOf(tr).String()
			if f.csv {
				return e.csv(cursor, j.TxHash, strconv.FormatUint(uint64(j.LogIndex), 10), strconv.FormatUint(j.Block, 10),
					strconv.FormatInt(j.Time, 10), string(j.Side), string(j.Venue), j.Trader, j.Recipient,
					j.QuoteAmount, j.TokenAmount, j.Fee, j.CreatorFee, j.Refund, string(j.Price.appendJSON(nil)))
			}
			return e.ndjson(&tradeLine{cursor, j})
		})
		return s.endExport(w, req, f, q, e, err, tradeColumns)
	}
}

// GET /tokens/:address/candles.csv and /candles.ndjson
func (s *Server) exportCandles(f exportFormat) bunrouter.HandlerFunc {
	return func(w http.ResponseWriter, req bunrouter.Request) error {
		q, err := exportQuery(req, true)
		if err != nil {
			return err
		}
		var e *exporter
		err = s.cfg.Market.ExportCandles(req.Context(), q, func(t *market.Token, b *candles.Bar) error {
			if e == nil {
				e = newExporter(w, f, "candles-"+q.Resolution.String()+"-"+strings.ToLower(t.Address.Hex()))
				if f.csv {
					if err := e.csv(barColumns...); err != nil {
						return err
					}
				}
			}
			j := barOf(b, t.Quote.Decimals)
			if f.csv {
				return e.csv(strconv.FormatInt(j.Time, 10), string(j.Open.appendJSON(nil)), string(j.High.appendJSON(nil)),
					string(j.Low.appendJSON(nil)), string(j.Close.appendJSON(nil)), j.Volume, strconv.Itoa(j.Trades))
			}
			return e.ndjson(&j)
		})
		return s.endExport(w, req, f, q, e, err, barColumns)
	}
}

// endExport finishes an export; one without a line is its header alone (CSV) or empty (NDJSON),
// with the same headers.
func (s *Server) endExport(w http.ResponseWriter, req bunrouter.Request, f exportFormat, q market.ExportQuery, e *exporter, err error, columns []string) error {
	if e == nil {
		if err != nil {
			return err
		}
		name := "trades-"
		if columns[0] == barColumns[0] {
			name = "candles-" + q.Resolution.String() + "-"
		}
		e = newExporter(w, f, name+strings.ToLower(q.Token.Hex()))
		if f.csv {
			err = e.csv(columns...)
		}
	}
	return e.finish(err)
}
