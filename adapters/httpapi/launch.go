package httpapi

import (
	"errors"
	"fmt"
	"github.com/ethereum/go-ethereum/common"
	"io"
	"mime"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/uptrace/bunrouter"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/auth"
	"github.com/curvekit/curvekit/launch"
)

// launchRoutes are launch preparation and creator fees (SPEC 4.6, 4.7), the token logo and the
// read-only IPFS gateway of pinned content, routed when the server has a Launch service. All are
// public; logo reads are never throttled (SPEC 8).
func (s *Server) launchRoutes() []group {
	if s.cfg.Launch == nil {
		return nil
	}
	return []group{
		{prefix: "/launch", routes: []route{
			{method: http.MethodPost, path: "/metadata", access: Public, class: auth.ClassUpload, handle: s.postMetadata},
			{method: http.MethodPost, path: "/upload-image", access: Public, class: auth.ClassUpload, handle: s.uploadImage},
			{method: http.MethodGet, path: "/estimate-fee", access: Public, class: auth.ClassDefault, handle: s.estimateFee},
			{method: http.MethodGet, path: "/daily-limit/:wallet", access: Public, class: auth.ClassDefault, handle: s.dailyLimit},
			{method: http.MethodGet, path: "/fees/:wallet", access: Public, class: auth.ClassDefault, handle: s.creatorFees},
			{method: http.MethodGet, path: "/earnings/:wallet", access: Public, class: auth.ClassDefault, handle: s.earnings},
			{method: http.MethodPost, path: "/build-tx", access: Public, class: auth.ClassDefault, handle: s.launchTx},
			{method: http.MethodPost, path: "/claim-tx", access: Public, class: auth.ClassDefault, handle: s.claimTx},
		}},
		{prefix: "/tokens", routes: []route{
			{method: http.MethodGet, path: "/:address/logo", access: Public, class: auth.ClassExempt, handle: s.tokenLogo, notFound: "token not found"},
		}},
		{prefix: "/ipfs", routes: []route{
			{method: http.MethodGet, path: "/:cid", access: Public, class: auth.ClassDefault, handle: s.ipfsObject, notFound: "content not found"},
		}},
	}
}

// metadataBody is POST /launch/metadata's body (SPEC 2.10).
type metadataBody struct {
	Name          *string `json:"name" openapi:"required"`
	Symbol        *string `json:"symbol" openapi:"required"`
	Description   *string `json:"description"`
	ImageURL      *string `json:"imageUrl"`
	Twitter       *string `json:"twitter"`
	Telegram      *string `json:"telegram"`
	Website       *string `json:"website"`
	SubjectHandle *string `json:"subjectHandle"`
}

type uploadJSON struct {
	CID        string `json:"cid"`
	URI        string `json:"uri"`
	GatewayURL string `json:"gatewayUrl"`
}

type metadataJSON struct {
	uploadJSON
	Metadata launch.Document `json:"metadata"`
}

func (s *Server) postMetadata(w http.ResponseWriter, req bunrouter.Request) error {
	var b metadataBody
	if err := decodeJSON(w, req.Request, &b); err != nil {
		return err
	}
	str := func(p *string) string {
		if p == nil {
			return ""
		}
		return *p
	}
	m := launch.Metadata{Name: str(b.Name), Symbol: str(b.Symbol), Description: b.Description, ImageURL: b.ImageURL,
		Twitter: b.Twitter, Telegram: b.Telegram, Website: b.Website, SubjectHandle: b.SubjectHandle}
	up, doc, err := s.cfg.Launch.UploadMetadata(req.Context(), m)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, metadataJSON{uploadJSON: uploadJSON{CID: up.CID, URI: up.URI, GatewayURL: up.GatewayURL}, Metadata: doc})
}

type imageJSON struct {
	CID         string `json:"cid"`
	ImageURL    string `json:"imageUrl"`
	GatewayURL  string `json:"gatewayUrl"`
	ContentType string `json:"contentType"`
	Size        int64  `json:"size"`
}

// multipartSlack is what a multipart body may hold besides a 5 MB image: boundaries, part
// headers, a few small fields.
const multipartSlack = 64 << 10

// uploadImage streams the multipart field file into the pinner. A Content-Length above the limit
// is refused before the body is read; without one (chunked), the image reader stops on the byte
// after 5 MB. Either way the body is never buffered.
func (s *Server) uploadImage(w http.ResponseWriter, req bunrouter.Request) error {
	r := req.Request
	tooLarge := fmt.Errorf("%w: image is larger than 5 MB", curvekit.ErrTooLarge)
	if r.ContentLength > launch.MaxImage+multipartSlack {
		w.Header().Set("Connection", "close")
		return tooLarge
	}
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "multipart/form-data" {
		return invalid("body must be multipart/form-data with the image in field file")
	}
	r.Body = http.MaxBytesReader(w, r.Body, launch.MaxImage+multipartSlack)
	mr, err := r.MultipartReader()
	if err != nil {
		return invalid("body must be multipart/form-data with the image in field file")
	}
	for {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			return invalid("multipart field file is required")
		}
		if err != nil {
			return bodyError(w, err)
		}
		if part.FormName() != "file" {
			// Small fields a form may add (a name) are skipped, within the body's bound.
			if _, err := io.Copy(io.Discard, part); err != nil {
				return bodyError(w, err)
			}
			continue
		}
		up, err := s.cfg.Launch.UploadImage(r.Context(), part)
		if err != nil {
			if errors.Is(err, curvekit.ErrTooLarge) {
				w.Header().Set("Connection", "close")
				return tooLarge
			}
			if errors.Is(err, curvekit.ErrInvalid) {
				return err
			}
			return bodyError(w, err)
		}
		return writeJSON(w, http.StatusOK, imageJSON{CID: up.CID, ImageURL: up.URI, GatewayURL: up.GatewayURL, ContentType: up.Type, Size: up.Size})
	}
}

// bodyError names a failure while reading the upload: the body bound (413), a slow client (408),
// a broken body (400); anything else is ours.
func bodyError(w http.ResponseWriter, err error) error {
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &tooBig):
		w.Header().Set("Connection", "close")
		return fmt.Errorf("%w: image is larger than 5 MB", curvekit.ErrTooLarge)
	case isTimeout(err):
		return &httpError{status: http.StatusRequestTimeout, message: "request body was not received in time"}
	case errors.Is(err, io.ErrUnexpectedEOF) || isMultipartSyntax(err):
		return invalid("multipart body is incomplete or malformed")
	}
	return err
}

func isTimeout(err error) bool { return errors.Is(err, os.ErrDeadlineExceeded) }

// isMultipartSyntax reports a body that is not valid multipart (mime/multipart's errors carry
// no type of their own).
func isMultipartSyntax(err error) bool { return strings.HasPrefix(err.Error(), "multipart:") }

type estimateJSON struct {
	From        string `json:"from"`
	Gas         string `json:"gas"`
	BaseFee     string `json:"baseFee"`
	PriorityFee string `json:"priorityFee"`
	GasPrice    string `json:"gasPrice"`
	GasCost     string `json:"gasCost"`
	LaunchFee   string `json:"launchFee"`
	Total       string `json:"total"`
}

func (s *Server) estimateFee(w http.ResponseWriter, req bunrouter.Request) error {
	q := newQuery(req.URL)
	if !q.has("from") {
		return invalid("from is required: the wallet that would launch")
	}
	from, _ := q.address("from")
	if err := q.err(); err != nil {
		return err
	}
	e, err := s.cfg.Launch.EstimateFee(req.Context(), from)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, estimateJSON{
		From: e.From.Hex(), Gas: strconv.FormatUint(e.Gas, 10), BaseFee: e.BaseFee.Dec(), PriorityFee: e.Tip.Dec(),
		GasPrice: e.GasPrice.Dec(), GasCost: e.GasCost.Dec(), LaunchFee: e.LaunchFee.Dec(), Total: e.Total.Dec(),
	})
}

type dailyLimitJSON struct {
	Wallet    string        `json:"wallet"`
	Tier      curvekit.Tier `json:"tier"`
	Limit     int           `json:"limit"`
	Used      int           `json:"used"`
	Remaining int           `json:"remaining"`
	CanLaunch bool          `json:"canLaunch"`
	ResetsAt  string        `json:"resetsAt"`
}

func (s *Server) dailyLimit(w http.ResponseWriter, req bunrouter.Request) error {
	wallet, err := pathAddress(req, "wallet", "wallet")
	if err != nil {
		return err
	}
	d, err := s.cfg.Launch.DailyLimit(req.Context(), wallet)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, dailyLimitJSON{Wallet: d.Wallet.Hex(), Tier: d.Tier, Limit: d.Limit, Used: d.Used,
		Remaining: d.Remaining, CanLaunch: d.CanLaunch, ResetsAt: d.ResetsAt.UTC().Format(time.RFC3339)})
}

type feesJSONBody struct {
	Wallet string          `json:"wallet"`
	Assets []assetFeesJSON `json:"assets"`
}

type assetFeesJSON struct {
	Asset     assetJSON        `json:"asset"`
	Claimable string           `json:"claimable"`
	Earned    string           `json:"earned"`
	Claimed   string           `json:"claimed"`
	Tokens    []tokenClaimJSON `json:"tokens"`
}

type tokenClaimJSON struct {
	Address   string `json:"address"`
	Curve     string `json:"curve"`
	Name      string `json:"name"`
	Symbol    string `json:"symbol"`
	Claimable string `json:"claimable"`
	Earned    string `json:"earned"`
	Claimed   string `json:"claimed"`
}

func (s *Server) creatorFees(w http.ResponseWriter, req bunrouter.Request) error {
	wallet, err := pathAddress(req, "wallet", "wallet")
	if err != nil {
		return err
	}
	fees, err := s.cfg.Launch.CreatorFees(req.Context(), wallet)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, feesOf(wallet, fees))
}

// feesOf is GET /launch/fees/:wallet's answer.
func feesOf(wallet common.Address, fees []launch.AssetFees) feesJSONBody {
	out := feesJSONBody{Wallet: wallet.Hex(), Assets: make([]assetFeesJSON, len(fees))}
	for i, a := range fees {
		d := a.Quote.Decimals
		af := assetFeesJSON{Asset: assetOf(a.Quote), Claimable: amount(&a.Claimable, d), Earned: amount(&a.Earned, d),
			Claimed: amount(&a.Claimed, d), Tokens: make([]tokenClaimJSON, len(a.Tokens))}
		for j, t := range a.Tokens {
			af.Tokens[j] = tokenClaimJSON{Address: t.Token.Address.Hex(), Curve: t.Token.Curve.Hex(), Name: t.Token.Name, Symbol: t.Token.Symbol,
				Claimable: amount(&t.Claimable, d), Earned: amount(&t.Earned, d), Claimed: amount(&t.Claimed, d)}
		}
		out.Assets[i] = af
	}
	return out
}

type earningsJSON struct {
	Wallet string              `json:"wallet"`
	Days   int                 `json:"days"`
	From   string              `json:"from"`
	To     string              `json:"to"`
	Assets []assetEarningsJSON `json:"assets"`
}

type assetEarningsJSON struct {
	Asset   assetJSON      `json:"asset"`
	Earned  string         `json:"earned"`
	Claimed string         `json:"claimed"`
	Series  []dayPointJSON `json:"series"`
}

type dayPointJSON struct {
	Date    string `json:"date"`
	Time    int64  `json:"time"`
	Earned  string `json:"earned"`
	Claimed string `json:"claimed"`
}

func (s *Server) earnings(w http.ResponseWriter, req bunrouter.Request) error {
	wallet, werr := pathAddress(req, "wallet", "wallet")
	q := newQuery(req.URL)
	days := q.intIn("days", launch.DefaultDays, 1, launch.MaxDays)
	if werr != nil {
		return werr
	}
	if err := q.err(); err != nil {
		return err
	}
	e, err := s.cfg.Launch.Earnings(req.Context(), launch.EarningsParams{Wallet: wallet, Days: int(days)})
	if err != nil {
		return err
	}
	out := earningsJSON{Wallet: wallet.Hex(), Days: e.Days, From: e.From.Format(time.DateOnly), To: e.To.AddDate(0, 0, -1).Format(time.DateOnly),
		Assets: make([]assetEarningsJSON, len(e.Assets))}
	for i, a := range e.Assets {
		d := a.Quote.Decimals
		ae := assetEarningsJSON{Asset: assetOf(a.Quote), Earned: amount(&a.Earned, d), Claimed: amount(&a.Claimed, d), Series: make([]dayPointJSON, len(a.Series))}
		for j, p := range a.Series {
			ae.Series[j] = dayPointJSON{Date: p.Day.Format(time.DateOnly), Time: p.Day.Unix(), Earned: amount(&p.Earned, d), Claimed: amount(&p.Claimed, d)}
		}
		out.Assets[i] = ae
	}
	return writeJSON(w, http.StatusOK, out)
}

// serveObject streams pinned content with its stored type. nosniff and a sandboxing CSP keep a
// browser from treating it as anything but what it is, whatever was pinned.
func serveObject(w http.ResponseWriter, obj launch.Object, cacheControl string) error {
	defer obj.Body.Close()
	h := w.Header()
	typ := obj.Type
	if typ == "" {
		typ = "application/octet-stream"
	}
	h.Set("Content-Type", typ)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Security-Policy", "default-src 'none'; sandbox")
	h.Set("Cache-Control", cacheControl)
	if obj.Size >= 0 {
		h.Set("Content-Length", strconv.FormatInt(obj.Size, 10))
	}
	w.WriteHeader(http.StatusOK)
	_, err := io.Copy(w, obj.Body)
	return err
}

func (s *Server) tokenLogo(w http.ResponseWriter, req bunrouter.Request) error {
	addr, err := pathAddress(req, "address", "token")
	if err != nil {
		return err
	}
	obj, err := s.cfg.Launch.Logo(req.Context(), addr)
	if err != nil {
		return err
	}
	// A token's URI never changes, so neither does its logo; a day keeps reorgs in mind.
	if err := serveObject(w, obj, "public, max-age=86400"); err != nil {
		s.log.DebugContext(req.Context(), "httpapi: logo write", "error", err)
	}
	return nil
}

func (s *Server) ipfsObject(w http.ResponseWriter, req bunrouter.Request) error {
	cid := req.Param("cid")
	if _, err := launch.ParseCID(cid); err != nil {
		return invalid("malformed CID: want a CIDv1 in base32 (bafy…, bafk…)")
	}
	obj, err := s.cfg.Launch.Object(req.Context(), cid)
	if err != nil {
		return err
	}
	w.Header().Set("ETag", `"`+cid+`"`)
	if err := serveObject(w, obj, "public, max-age=31536000, immutable"); err != nil {
		s.log.DebugContext(req.Context(), "httpapi: ipfs write", "error", err)
	}
	return nil
}
