package launch

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/holiman/uint256"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/market"
	"github.com/curvekit/curvekit/txbuild"
)

// Fees are the basis points new launches get (10,000 = 100%), as GET /config shows them.
type Fees struct {
	// CurveBps is the curve's trading fee and CreatorShareBps the creator's part of it.
	CurveBps, CreatorShareBps uint16
	// PoolBps is the graduated pool's swap fee.
	PoolBps uint16
}

// Config configures a Service. GET /config shows LaunchesPerDay and Fees, so the numbers shown
// are the numbers enforced.
type Config struct {
	Store   Store
	Pinner  Pinner
	Builder *txbuild.Builder
	// Chain is needed for the fee estimate and composing launches.
	Chain Chain
	// Tiers tells a wallet's tier; nil means StaticTiers{} (everyone free).
	Tiers Tiers
	// LaunchesPerDay caps launches per wallet and UTC day by tier; nil means free 3, pro 25. A
	// tier missing from the map may not launch.
	LaunchesPerDay map[curvekit.Tier]int
	Fees           Fees
	// Gateway prefixes a CID to make a gateway URL; default "/ipfs/" (this server's route).
	Gateway string
	// CreatedOn is the metadata document's createdOn; default "curvekit".
	CreatedOn string
	// Now is the clock; default time.Now.
	Now func() time.Time
}

// Defaults of Config.
const (
	DefaultGateway   = "/ipfs/"
	DefaultCreatedOn = "curvekit"
	DefaultDays      = 30
	MaxDays          = 365
)

func (c Config) withDefaults() Config {
	if c.Tiers == nil {
		c.Tiers = StaticTiers{}
	}
	if c.LaunchesPerDay == nil {
		c.LaunchesPerDay = map[curvekit.Tier]int{curvekit.TierFree: 3, curvekit.TierPro: 25}
	}
	if c.Gateway == "" {
		c.Gateway = DefaultGateway
	}
	if c.CreatedOn == "" {
		c.CreatedOn = DefaultCreatedOn
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	return c
}

func (c Config) validate() error {
	if c.Store == nil || c.Pinner == nil || c.Builder == nil || c.Chain == nil {
		return errors.New("launch: service needs a Store, a Pinner, a Builder and a Chain")
	}
	for t, n := range c.LaunchesPerDay {
		if n < 0 {
			return fmt.Errorf("launch: tier %s: negative launches per day", t)
		}
	}
	if c.Fees.CurveBps > 10_000 || c.Fees.CreatorShareBps > 10_000 || c.Fees.PoolBps > 10_000 {
		return errors.New("launch: fees above 10,000 bps")
	}
	return nil
}

// Service prepares launches and reads creator fees. It never signs.
type Service struct {
	cfg Config
}

// New returns a Service for cfg.
func New(cfg Config) (*Service, error) {
	cfg = cfg.withDefaults()
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	return &Service{cfg: cfg}, nil
}

// LaunchesPerDay returns the daily cap of each tier, as enforced.
func (s *Service) LaunchesPerDay() map[curvekit.Tier]int { return maps.Clone(s.cfg.LaunchesPerDay) }

// Fees returns the fees GET /config shows.
func (s *Service) Fees() Fees { return s.cfg.Fees }

// Upload is pinned content: its CID, the ipfs:// URI a launch stores, and a gateway URL.
type Upload struct {
	CID        string
	URI        string
	GatewayURL string
	Type       string
	Size       int64
}

func (s *Service) upload(cid, typ string, size int64) Upload {
	return Upload{CID: cid, URI: "ipfs://" + cid, GatewayURL: s.cfg.Gateway + cid, Type: typ, Size: size}
}

// UploadImage checks and pins an image as it streams: the type from its first bytes
// (ErrImageType), the size as it goes (ErrImageTooLarge on the byte after 5 MB, having read no
// further).
func (s *Service) UploadImage(ctx context.Context, r io.Reader) (Upload, error) {
	ir, err := NewImageReader(r)
	if err != nil {
		return Upload{}, err
	}
	cr := &countReader{r: ir}
	cid, err := s.cfg.Pinner.Pin(ctx, Content{Body: cr, Type: ir.Type()})
	if err != nil {
		return Upload{}, err
	}
	return s.upload(cid, ir.Type(), cr.n), nil
}

type countReader struct {
	r io.Reader
	n int64
}

func (c *countReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// UploadMetadata validates m (curvekit.Problems listing every failing field) and pins its
// document, which it returns too; the URI is what the launch transaction stores.
func (s *Service) UploadMetadata(ctx context.Context, m Metadata) (Upload, Document, error) {
	doc, err := m.Document(s.cfg.CreatedOn)
	if err != nil {
		return Upload{}, Document{}, err
	}
	body := doc.Encode()
	cid, err := s.cfg.Pinner.Pin(ctx, Content{Body: bytes.NewReader(body), Type: JSON})
	if err != nil {
		return Upload{}, Document{}, err
	}
	return s.upload(cid, JSON, int64(len(body))), doc, nil
}

// Object opens pinned content for GET /ipfs/:cid.
func (s *Service) Object(ctx context.Context, cid string) (Object, error) {
	return s.cfg.Pinner.Get(ctx, cid)
}

// maxDocument bounds the metadata document read for a logo.
const maxDocument = 64 << 10

// Logo opens a token's image: its URI's document names it in image. Only content pinned here is
// served (an ipfs:// URI and an ipfs:// image); anything else is ErrNotFound, as the server fetches
// no URL a launcher chose.
func (s *Service) Logo(ctx context.Context, token common.Address) (Object, error) {
	t, err := s.cfg.Store.Token(ctx, token)
	if errors.Is(err, curvekit.ErrNotFound) {
		return Object{}, fmt.Errorf("%w: token not found", curvekit.ErrNotFound)
	}
	if err != nil {
		return Object{}, err
	}
	none := fmt.Errorf("%w: token %s has no logo", curvekit.ErrNotFound, token.Hex())
	cid, ok := ipfsCID(t.URI)
	if !ok {
		return Object{}, none
	}
	obj, err := s.cfg.Pinner.Get(ctx, cid)
	if errors.Is(err, curvekit.ErrNotFound) || errors.Is(err, curvekit.ErrInvalid) {
		return Object{}, none
	}
	if err != nil {
		return Object{}, err
	}
	raw, err := io.ReadAll(io.LimitReader(obj.Body, maxDocument))
	obj.Body.Close()
	if err != nil {
		return Object{}, err
	}
	var doc struct {
		Image string `json:"image"`
	}
	if json.Unmarshal(raw, &doc) != nil {
		return Object{}, none
	}
	img, ok := ipfsCID(doc.Image)
	if !ok {
		return Object{}, none
	}
	obj, err = s.cfg.Pinner.Get(ctx, img)
	if errors.Is(err, curvekit.ErrNotFound) || errors.Is(err, curvekit.ErrInvalid) {
		return Object{}, none
	}
	if err != nil {
		return Object{}, err
	}
	// Only an image is served as a logo, whatever was pinned under that CID.
	if !isImageType(obj.Type) {
		obj.Body.Close()
		return Object{}, none
	}
	return obj, nil
}

func isImageType(t string) bool { return t == PNG || t == JPEG || t == GIF || t == WebP }

// ipfsCID returns the CID of an ipfs://<cid> URI.
func ipfsCID(uri string) (string, bool) {
	rest, ok := strings.CutPrefix(uri, "ipfs://")
	if !ok {
		return "", false
	}
	cid, err := ParseCID(rest)
	return cid, err == nil
}

// DailyLimit is where a wallet stands against its daily launch cap.
type DailyLimit struct {
	Wallet    common.Address
	Tier      curvekit.Tier
	Limit     int
	Used      int
	Remaining int
	CanLaunch bool
	// ResetsAt is the next UTC midnight, when the count starts again.
	ResetsAt time.Time
	// LaunchTxs are the transactions of the launches counted in Used, in launch order.
	LaunchTxs []common.Hash
}

// DailyLimit counts the wallet's indexed launches of the current UTC day against its tier's cap.
// The custodial wallet counts its own signed launches on top (wallet.Launches).
func (s *Service) DailyLimit(ctx context.Context, wallet common.Address) (DailyLimit, error) {
	tier, err := s.cfg.Tiers.Tier(ctx, wallet)
	if err != nil {
		return DailyLimit{}, fmt.Errorf("launch: tier of %s: %w", wallet.Hex(), err)
	}
	now := s.cfg.Now().UTC()
	day := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC)
	txs, err := s.cfg.Store.LaunchTxs(ctx, wallet, day.Unix())
	if err != nil {
		return DailyLimit{}, err
	}
	limit, used := s.cfg.LaunchesPerDay[tier], len(txs)
	d := DailyLimit{Wallet: wallet, Tier: tier, Limit: limit, Used: used, Remaining: max(limit-used, 0), ResetsAt: day.AddDate(0, 0, 1), LaunchTxs: txs}
	d.CanLaunch = d.Remaining > 0
	return d, nil
}

// AssetFees is what a creator can claim in one pairing asset.
type AssetFees struct {
	Quote market.Asset
	// Claimable is the sum of Tokens' Claimable.
	Claimable uint256.Int
	Earned    uint256.Int
	Claimed   uint256.Int
	Tokens    []TokenClaimable
}

// TokenClaimable is one token's creator fees; Claimable is what its curve holds now.
type TokenClaimable struct {
	Token     Token
	Claimable uint256.Int
	Earned    uint256.Int
	Claimed   uint256.Int
}

// CreatorFees returns a creator's claimable fees per pairing asset (ordered by asset address,
// native ETH first) and per token, exact to the base unit. Tokens that never earned a fee are
// left out.
func (s *Service) CreatorFees(ctx context.Context, wallet common.Address) ([]AssetFees, error) {
	tokens, err := s.cfg.Store.CreatorFees(ctx, wallet)
	if err != nil {
		return nil, err
	}
	byQuote := map[common.Address]*AssetFees{}
	for _, tf := range tokens {
		if tf.Earned.IsZero() {
			continue
		}
		var claimable uint256.Int
		if _, under := claimable.SubOverflow(&tf.Earned, &tf.Claimed); under {
			return nil, fmt.Errorf("launch: token %s claimed %s of %s earned: the index is inconsistent", tf.Token.Address.Hex(), tf.Claimed.Dec(), tf.Earned.Dec())
		}
		a := byQuote[tf.Token.Quote.Address]
		if a == nil {
			a = &AssetFees{Quote: tf.Token.Quote}
			byQuote[tf.Token.Quote.Address] = a
		}
		a.Tokens = append(a.Tokens, TokenClaimable{Token: tf.Token, Claimable: claimable, Earned: tf.Earned, Claimed: tf.Claimed})
		a.Claimable.Add(&a.Claimable, &claimable)
		a.Earned.Add(&a.Earned, &tf.Earned)
		a.Claimed.Add(&a.Claimed, &tf.Claimed)
	}
	out := make([]AssetFees, 0, len(byQuote))
	for _, a := range byQuote {
		out = append(out, *a)
	}
	slices.SortFunc(out, func(a, b AssetFees) int { return a.Quote.Address.Cmp(b.Quote.Address) })
	return out, nil
}

// EarningsParams selects an earnings history.
type EarningsParams struct {
	Wallet common.Address
	// Days is the window ending today (UTC), 1 to MaxDays; 0 means DefaultDays.
	Days int
}

// Earnings is a creator's daily fee history per pairing asset.
type Earnings struct {
	Wallet common.Address
	Days   int
	// From is the first day's start, To the end of today (exclusive), UTC.
	From, To time.Time
	Assets   []AssetEarnings
}

// AssetEarnings is the history in one pairing asset: one point per day, quiet days included.
type AssetEarnings struct {
	Quote   market.Asset
	Earned  uint256.Int
	Claimed uint256.Int
	Series  []DayPoint
}

// DayPoint is one UTC day.
type DayPoint struct {
	Day     time.Time
	Earned  uint256.Int
	Claimed uint256.Int
}

// ErrDays refuses an earnings window outside 1 to 365 days.
var ErrDays = fmt.Errorf("%w: days must be an integer from 1 to %d", curvekit.ErrInvalid, MaxDays)

// Earnings returns the creator fees earned and claimed per UTC day over the last p.Days days
// (today included), per pairing asset the creator has any in, with totals.
func (s *Service) Earnings(ctx context.Context, p EarningsParams) (Earnings, error) {
	if p.Days == 0 {
		p.Days = DefaultDays
	}
	if p.Days < 1 || p.Days > MaxDays {
		return Earnings{}, ErrDays
	}
	now := s.cfg.Now().UTC()
	end := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC).AddDate(0, 0, 1)
	start := end.AddDate(0, 0, -p.Days)
	days, err := s.cfg.Store.Earnings(ctx, EarningsQuery{Creator: p.Wallet, From: start.Unix(), To: end.Unix()})
	if err != nil {
		return Earnings{}, err
	}
	out := Earnings{Wallet: p.Wallet, Days: p.Days, From: start, To: end}
	idx := map[common.Address]int{}
	for _, d := range days {
		i, ok := idx[d.Quote.Address]
		if !ok {
			i = len(out.Assets)
			idx[d.Quote.Address] = i
			a := AssetEarnings{Quote: d.Quote, Series: make([]DayPoint, p.Days)}
			for k := range a.Series {
				a.Series[k].Day = start.AddDate(0, 0, k)
			}
			out.Assets = append(out.Assets, a)
		}
		a := &out.Assets[i]
		k := int((d.Day - start.Unix()) / 86400)
		if k < 0 || k >= p.Days {
			return Earnings{}, fmt.Errorf("launch: store returned day %d outside [%d, %d)", d.Day, start.Unix(), end.Unix())
		}
		a.Series[k].Earned.Add(&a.Series[k].Earned, &d.Earned)
		a.Series[k].Claimed.Add(&a.Series[k].Claimed, &d.Claimed)
		a.Earned.Add(&a.Earned, &d.Earned)
		a.Claimed.Add(&a.Claimed, &d.Claimed)
	}
	slices.SortFunc(out.Assets, func(a, b AssetEarnings) int { return a.Quote.Address.Cmp(b.Quote.Address) })
	return out, nil
}

// Estimate is the cost of the factory's launch call from a wallet at current fees, wei.
type Estimate struct {
	From common.Address
	Gas  uint64
	// BaseFee and Tip are per gas now; GasPrice is their sum, the price a launch pays if it is
	// mined at the current base fee.
	BaseFee  uint256.Int
	Tip      uint256.Int
	GasPrice uint256.Int
	// GasCost is Gas × GasPrice; LaunchFee the factory's fee; Total their sum, what the wallet
	// spends for a launch without a first buy.
	GasCost   uint256.Int
	LaunchFee uint256.Int
	Total     uint256.Int
}

// sampleURI has the length of a real metadata URI, so the estimate pays for the same calldata.
const sampleURI = "ipfs://bafkreibm6jg3ux5qumhcn2b3flc3tyu6dmlb4xa7u5bf44yegnrjhc4yeq"

// EstimateFee estimates an ETH-paired launch without a first buy from the wallet.
func (s *Service) EstimateFee(ctx context.Context, from common.Address) (Estimate, error) {
	fee, err := s.cfg.Chain.LaunchFee(ctx)
	if err != nil {
		return Estimate{}, err
	}
	plan, err := s.cfg.Builder.Launch(txbuild.Launch{From: from, Name: "Estimate Token", Symbol: "ESTIMATE", URI: sampleURI, LaunchFee: fee})
	if err != nil {
		return Estimate{}, err
	}
	gas, err := s.cfg.Chain.EstimateGas(ctx, &plan.Tx)
	if errors.Is(err, curvekit.ErrUnavailable) {
		return Estimate{}, err // the node, not the call: 503
	}
	if err != nil {
		return Estimate{}, fmt.Errorf("%w: the launch call fails from %s: it needs the launch fee of %s wei plus gas", curvekit.ErrInvalid, from.Hex(), fee.Dec())
	}
	price, err := s.cfg.Chain.GasPrice(ctx)
	if err != nil {
		return Estimate{}, err
	}
	e := Estimate{From: from, Gas: gas, BaseFee: price.BaseFee, Tip: price.Tip, LaunchFee: fee}
	e.GasPrice.Add(&price.BaseFee, &price.Tip)
	e.GasCost.Mul(&e.GasPrice, uint256.NewInt(gas))
	e.Total.Add(&e.GasCost, &fee)
	return e, nil
}

// LaunchParams describes a launch to compose.
type LaunchParams struct {
	From   common.Address
	Name   string
	Symbol string
	// URI is the metadata URI from UploadMetadata (ipfs://) or another https document.
	URI string
	// Quote is the pairing asset: zero for native ETH.
	Quote        common.Address
	InitialBuy   uint256.Int
	MinTokensOut uint256.Int
	// Allowance of Quote already granted to the factory; nil when unknown.
	Allowance *uint256.Int
}

// ErrDailyLimit refuses a launch beyond the tier's daily cap.
var ErrDailyLimit = fmt.Errorf("%w: daily launch limit reached", curvekit.ErrLimited)

// ComposeLaunch checks the creator's daily limit, then builds the factory's launch call (and an
// approval when an ERC-20 first buy needs one), with a gas estimate when the call would succeed.
func (s *Service) ComposeLaunch(ctx context.Context, p LaunchParams) (txbuild.Plan, error) {
	m := Metadata{Name: p.Name, Symbol: p.Symbol}
	var probs curvekit.Problems
	if err := m.Validate(); err != nil {
		errors.As(err, &probs)
	}
	if _, ok := ipfsCID(p.URI); !ok && linkProblem(p.URI, true) != "" {
		probs = append(probs, "uri must be an ipfs:// URI from the metadata upload or an https URL")
	}
	if len(probs) > 0 {
		return txbuild.Plan{}, probs
	}
	lim, err := s.DailyLimit(ctx, p.From)
	if err != nil {
		return txbuild.Plan{}, err
	}
	if !lim.CanLaunch {
		return txbuild.Plan{}, fmt.Errorf("%w: %s has launched %d of %d tokens today (%s tier); the count resets at %s",
			ErrDailyLimit, p.From.Hex(), lim.Used, lim.Limit, lim.Tier, lim.ResetsAt.Format(time.RFC3339))
	}
	fee, err := s.cfg.Chain.LaunchFee(ctx)
	if err != nil {
		return txbuild.Plan{}, err
	}
	plan, err := s.cfg.Builder.Launch(txbuild.Launch{From: p.From, Name: p.Name, Symbol: p.Symbol, URI: p.URI,
		Quote: p.Quote, InitialBuy: p.InitialBuy, MinTokensOut: p.MinTokensOut, LaunchFee: fee, Allowance: p.Allowance})
	if err != nil {
		return txbuild.Plan{}, err
	}
	// Before its approval is mined the launch cannot be estimated; the wallet estimates it then.
	if plan.Approval == nil {
		if gas, err := s.cfg.Chain.EstimateGas(ctx, &plan.Tx); err == nil {
			plan.Tx.Gas = gas
		}
	}
	return plan, nil
}

// ClaimParams describes a fee claim to compose.
type ClaimParams struct {
	From  common.Address
	Token common.Address
}

// Claim is a composed fee claim and what it pays out.
type Claim struct {
	Tx        txbuild.Tx
	Token     Token
	Claimable uint256.Int
}

// ErrNotCreator refuses a claim from anyone but the token's creator: the curve would revert.
var ErrNotCreator = fmt.Errorf("%w: only the token's creator can claim its fees", curvekit.ErrForbidden)

// ComposeClaim builds claimCreatorFees() on the token's curve for its creator. Another wallet
// gets ErrNotCreator, a creator with nothing to claim ErrInvalid.
func (s *Service) ComposeClaim(ctx context.Context, p ClaimParams) (Claim, error) {
	t, err := s.cfg.Store.Token(ctx, p.Token)
	if err != nil {
		return Claim{}, err
	}
	if t.Creator != p.From {
		return Claim{}, fmt.Errorf("%w: %s was launched by %s, not %s", ErrNotCreator, t.Address.Hex(), t.Creator.Hex(), p.From.Hex())
	}
	fees, err := s.cfg.Store.CreatorFees(ctx, p.From)
	if err != nil {
		return Claim{}, err
	}
	c := Claim{Token: t}
	for _, tf := range fees {
		if tf.Token.Address == t.Address {
			c.Claimable.Sub(&tf.Earned, &tf.Claimed)
		}
	}
	if c.Claimable.IsZero() {
		return Claim{}, fmt.Errorf("%w: %s has no creator fees to claim", curvekit.ErrInvalid, t.Address.Hex())
	}
	tx, err := s.cfg.Builder.ClaimCreatorFees(p.From, t.Curve)
	if err != nil {
		return Claim{}, err
	}
	if gas, err := s.cfg.Chain.EstimateGas(ctx, &tx); err == nil {
		tx.Gas = gas
	}
	c.Tx = tx
	return c, nil
}
