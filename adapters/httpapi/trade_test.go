package httpapi

import (
	"net/http"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/holiman/uint256"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/txbuild"
)

const (
	ethBuyQuoteJSON = `{"token": "0xAAaA000000000000000000000000000000000001", "type": "buy", "venue": "curve",
		"amountIn": "1", "amountOut": "34281150.159744408945355041",
		"fee": "0.009900990099009901", "creatorFee": "0.00495049504950495", "refund": "0",
		"priceImpactBps": 330, "graduates": false, "price": 2.7958993476234855e-08}`
	tusdBuyQuoteJSON = `{"token": "0xBbbb000000000000000000000000000000000002", "type": "buy", "venue": "curve",
		"amountIn": "2.5", "amountOut": "47123057.307800714440983967",
		"fee": "0.024753", "creatorFee": "0.012376", "refund": "0",
		"priceImpactBps": 620, "graduates": false, "price": 4.945911783100653e-08}`
	tusdSellQuoteJSON = `{"token": "0xBbbb000000000000000000000000000000000002", "type": "sell", "venue": "curve",
		"amountIn": "1000000", "amountOut": "0.048903",
		"fee": "0.000494", "creatorFee": "0.000247", "refund": "0",
		"priceImpactBps": 12, "graduates": false, "price": 4.945911783100653e-08}`
	gradBuyQuoteJSON = `{"token": "0xccCc000000000000000000000000000000000003", "type": "buy", "venue": "pool",
		"amountIn": "0.5", "amountOut": "1206332.859640812411913659",
		"fee": "0.0015", "creatorFee": "0", "refund": "0",
		"priceImpactBps": 58, "graduates": false, "price": 4.108264862252296e-07}`
	gradSellQuoteJSON = `{"token": "0xccCc000000000000000000000000000000000003", "type": "sell", "venue": "pool",
		"amountIn": "1000000", "amountOut": "0.407629739726883985",
		"fee": "0.001226568925958527", "creatorFee": "0", "refund": "0",
		"priceImpactBps": 47, "graduates": false, "price": 4.108264862252296e-07}`
)

func TestQuote(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	eth, tusd, grad := "/tokens/"+ethToken.Hex(), "/tokens/"+tusdToken.Hex(), "/tokens/"+gradToken.Hex()
	for _, tc := range []struct{ path, want string }{
		{eth + "/quote", ethBuyQuoteJSON}, // type=buy and amount=1 by default
		{eth + "/quote?type=buy&amount=1", ethBuyQuoteJSON},
		{eth + "/quote?amount=1.000000000000000000", ethBuyQuoteJSON}, // 18 decimals is the most an 18-decimal asset has
		{tusd + "/quote?amount=2.5", tusdBuyQuoteJSON},                // buys spend the pairing asset (6 decimals)
		{tusd + "/quote?amount=2.500000", tusdBuyQuoteJSON},
		{tusd + "/quote?type=sell&amount=1000000", tusdSellQuoteJSON}, // sells spend tokens
		{grad + "/quote?amount=0.5", gradBuyQuoteJSON},
		{grad + "/quote?type=sell&amount=1000000", gradSellQuoteJSON},
		// The buy that crosses graduation is capped and refunded.
		{tusd + "/quote?amount=100", `{"token": "0xBbbb000000000000000000000000000000000002", "type": "buy", "venue": "curve",
			"amountIn": "100", "amountOut": "526833856.786619776253345005",
			"fee": "0.750991", "creatorFee": "0.375495", "refund": "24.149999",
			"priceImpactBps": 18821, "graduates": true, "price": 4.945911783100653e-08}`},
	} {
		t.Run(tc.path, func(t *testing.T) {
			e.get(t, tc.path).want(t, http.StatusOK, tc.want)
		})
	}

	// The wire amounts are the curve's, to the wei.
	tok, _, _, _ := fixtureTokens(t)
	m := tok.Market()
	q, err := txbuild.QuoteTrade(&m, curvekit.Buy, new(uint256.Int).SetUint64(1e18))
	if err != nil {
		t.Fatal(err)
	}
	if got := curvekit.FormatAmount(&q.Out, 18); got != "34281150.159744408945355041" {
		t.Errorf("curve says %s tokens out", got)
	}
}

// Every validation failure of SPEC 4.4 answers {error} with status 200.
func TestQuoteValidation(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	eth, tusd := "/tokens/"+ethToken.Hex()+"/quote?", "/tokens/"+tusdToken.Hex()+"/quote?"
	for _, tc := range []struct{ path, message string }{
		{eth + "type=hold", "type must be buy or sell"},
		{eth + "type=BUY", "type must be buy or sell"},
		{eth + "type=", "type must be buy or sell"},
		{eth + "type=buy&type=sell", "type given more than once"},
		{eth + "amount=0", "amount must be positive"},
		{eth + "amount=0.000", "amount must be positive"},
		{eth + "amount=-1", `amount "-1" is not a decimal number`},
		{eth + "amount=%2B1", `amount "+1" is not a decimal number`},
		{eth + "amount=abc", `amount "abc" is not a decimal number`},
		{eth + "amount=1e18", `amount "1e18" is not a decimal number`},
		{eth + "amount=0x10", `amount "0x10" is not a decimal number`},
		{eth + "amount=1.", `amount "1." is not a decimal number`},
		{eth + "amount=.5", `amount ".5" is not a decimal number`},
		{eth + "amount=%201", `amount " 1" is not a decimal number`},
		{eth + "amount=1,5", `amount "1,5" is not a decimal number`},
		{eth + "amount=", "amount is empty"},
		{eth + "amount=1.0000000000000000001", `amount "1.0000000000000000001" has more than 18 decimals`},
		{eth + "type=sell&amount=0.0000000000000000001", `amount "0.0000000000000000001" has more than 18 decimals`},
		{tusd + "amount=1.0000001", `amount "1.0000001" has more than 6 decimals`},
		{eth + "amount=" + strings.Repeat("9", 80), `amount "` + strings.Repeat("9", 80) + `" is too large`},
		{eth + "amount=0.000000000000000001", "amount too small: the trade would receive nothing"},
		{eth + "type=sell&amount=0.000000000000000001", "amount too small: the trade would receive nothing"},
		{eth + "type=sell&amount=1000", "amount exceeds what the reserves can cover"},
		{eth + "amount=%zz", "malformed query string"},
	} {
		t.Run(tc.path, func(t *testing.T) {
			e.get(t, tc.path).want(t, http.StatusOK, `{"error": `+jsonString(tc.message)+`}`)
		})
	}
}

// jsonString writes s as a JSON string (the messages above quote amounts).
func jsonString(s string) string {
	return `"` + strings.ReplaceAll(s, `"`, `\"`) + `"`
}

func TestBuildTx(t *testing.T) {
	t.Parallel()
	const rcpt = "0x7ade000000000000000000000000000000000008"
	plain := newEnv(t, envOptions{})
	wallet := newEnv(t, envOptions{live: &fakeLive{gas: 150000}})
	path := func(tok string) string { return "/tokens/" + tok + "/build-tx" }

	t.Run("curve buy, anonymous", func(t *testing.T) {
		// Without a wallet nothing is known about the sender: no from, no gas, no allowance.
		plain.do(t, http.MethodPost, path(ethToken.Hex()), `{"type": "buy", "amount": "1"}`).want(t, http.StatusOK, `{
			"to": "0xAaAa0000000000000000000000000000000000c1",
			"data": "0x40993b260000000000000000000000000000000000000000000000000de0b6b3a76400000000000000000000000000000000000000000000001c12b906729003eb84cd32000000000000000000000000000000000000000000000000000000006b49d908",
			"value": "1000000000000000000", "chainId": 1337, "approval": null,
			"quote": `+ethBuyQuoteJSON+`,
			"minAmountOut": "33938338.65814696485590149", "deadline": 1800001800}`)
	})

	t.Run("curve buy, the bytes are the builder's", func(t *testing.T) {
		tok, _, _, _ := fixtureTokens(t)
		m := tok.Market()
		b, err := txbuild.New(txbuild.Config{ChainID: 1337, Factory: factoryAddr, Router: routerAddr, WETH: wethAddr})
		if err != nil {
			t.Fatal(err)
		}
		_, plan, err := b.Trade(&m, txbuild.Trade{Side: curvekit.Buy, Amount: *uint256.NewInt(1e18), SlippageBps: 100, Deadline: 1800001800})
		if err != nil {
			t.Fatal(err)
		}
		var got buildJSON
		plain.do(t, http.MethodPost, path(ethToken.Hex()), `{"type": "buy", "amount": "1", "slippage": 1}`).decode(t, &got)
		if got.Data != hexutil.Encode(plan.Tx.Data) || got.To != plan.Tx.To.Hex() || got.Value != plan.Tx.Value.Dec() {
			t.Errorf("built %+v, builder says to %s data %x value %s", got, plan.Tx.To, plan.Tx.Data, plan.Tx.Value.Dec())
		}
	})

	t.Run("curve buy with ETH from a known wallet", func(t *testing.T) {
		// ETH needs no approval, so the transaction carries a gas estimate.
		wallet.do(t, http.MethodPost, path(ethToken.Hex()), `{"type": "buy", "amount": "1", "recipient": "`+rcpt+`"}`).want(t, http.StatusOK, `{
			"to": "0xAaAa0000000000000000000000000000000000c1",
			"data": "0x40993b260000000000000000000000000000000000000000000000000de0b6b3a76400000000000000000000000000000000000000000000001c12b906729003eb84cd32000000000000000000000000000000000000000000000000000000006b49d908",
			"value": "1000000000000000000", "chainId": 1337, "from": "`+rcpt+`", "gas": "150000", "approval": null,
			"quote": `+ethBuyQuoteJSON+`,
			"minAmountOut": "33938338.65814696485590149", "deadline": 1800001800}`)
	})

	t.Run("curve buy with an ERC-20 pairing asset needs its approval", func(t *testing.T) {
		wallet.do(t, http.MethodPost, path(tusdToken.Hex()), `{"type": "buy", "amount": "2.5", "slippage": 0.5, "recipient": "`+rcpt+`"}`).want(t, http.StatusOK, `{
			"to": "0xBBbB0000000000000000000000000000000000C2",
			"data": "0x40993b2600000000000000000000000000000000000000000000000000000000002625a000000000000000000000000000000000000000000026c8cd5338e6e220ae9027000000000000000000000000000000000000000000000000000000006b49d908",
			"value": "0", "chainId": 1337, "from": "`+rcpt+`",
			"approval": {
				"to": "0x7D5D000000000000000000000000000000000005",
				"data": "0x095ea7b3000000000000000000000000bbbb0000000000000000000000000000000000c200000000000000000000000000000000000000000000000000000000002625a0",
				"value": "0", "chainId": 1337, "from": "`+rcpt+`",
				"token": "0x7D5D000000000000000000000000000000000005",
				"spender": "0xBBbB0000000000000000000000000000000000C2", "amount": "2.5"},
			"quote": `+tusdBuyQuoteJSON+`,
			"minAmountOut": "46887442.021261710868779047", "deadline": 1800001800}`)
	})

	t.Run("anonymous ERC-20 buy includes the approval, without from", func(t *testing.T) {
		// The allowance is unknown, so the approval is included: a redundant one costs gas, a
		// missing one makes the trade revert.
		var got buildJSON
		plain.do(t, http.MethodPost, path(tusdToken.Hex()), `{"type": "buy", "amount": "2.5"}`).decode(t, &got)
		if got.From != "" || got.Approval == nil || got.Approval.From != "" || got.Approval.Amount != "2.5" ||
			got.Approval.Token != tusdAddr.Hex() || got.Approval.Spender != tusdCurve.Hex() {
			t.Errorf("anonymous TUSD buy: %+v approval %+v", got, got.Approval)
		}
	})

	t.Run("curve sell approves the token; slippage as a string", func(t *testing.T) {
		wallet.do(t, http.MethodPost, path(tusdToken.Hex()), `{"type": "sell", "amount": "1000000", "slippage": "2.25", "recipient": "`+rcpt+`"}`).want(t, http.StatusOK, `{
			"to": "0xBBbB0000000000000000000000000000000000C2",
			"data": "0xd3c9727c00000000000000000000000000000000000000000000d3c21bcecceda1000000000000000000000000000000000000000000000000000000000000000000baba000000000000000000000000000000000000000000000000000000006b49d908",
			"value": "0", "chainId": 1337, "from": "`+rcpt+`",
			"approval": {
				"to": "0xBbbb000000000000000000000000000000000002",
				"data": "0x095ea7b3000000000000000000000000bbbb0000000000000000000000000000000000c200000000000000000000000000000000000000000000d3c21bcecceda1000000",
				"value": "0", "chainId": 1337, "from": "`+rcpt+`",
				"token": "0xBbbb000000000000000000000000000000000002",
				"spender": "0xBBbB0000000000000000000000000000000000C2", "amount": "1000000"},
			"quote": `+tusdSellQuoteJSON+`,
			"minAmountOut": "0.047802", "deadline": 1800001800}`)
	})

	t.Run("graduated buy goes through the router to the recipient", func(t *testing.T) {
		wallet.do(t, http.MethodPost, path(gradToken.Hex()), `{"type": "buy", "amount": "0.5", "recipient": "`+strings.ToLower(rcpt)+`"}`).want(t, http.StatusOK, `{
			"to": "0x7e70000000000000000000000000000000000002",
			"data": "0x7ff36ab500000000000000000000000000000000000000000000fce57b231db9afdc6d5a00000000000000000000000000000000000000000000000000000000000000800000000000000000000000007ade000000000000000000000000000000000008000000000000000000000000000000000000000000000000000000006b49d9080000000000000000000000000000000000000000000000000000000000000002000000000000000000000000e7e7000000000000000000000000000000000003000000000000000000000000cccc000000000000000000000000000000000003",
			"value": "500000000000000000", "chainId": 1337, "from": "`+rcpt+`", "gas": "150000", "approval": null,
			"quote": `+gradBuyQuoteJSON+`,
			"minAmountOut": "1194269.531044404287794522", "deadline": 1800001800}`)
	})

	t.Run("graduated sell approves the router", func(t *testing.T) {
		var got buildJSON
		wallet.do(t, http.MethodPost, path(gradToken.Hex()), `{"type": "sell", "amount": "1000000", "recipient": "`+rcpt+`"}`).decode(t, &got)
		if got.To != routerAddr.Hex() || got.Approval == nil || got.Approval.Spender != routerAddr.Hex() ||
			got.Approval.Token != gradToken.Hex() || got.Approval.Amount != "1000000" || !strings.HasPrefix(got.Data, "0x18cbafe5") {
			t.Errorf("graduated sell: %+v", got)
		}
	})

	t.Run("graduated without recipient", func(t *testing.T) {
		plain.do(t, http.MethodPost, path(gradToken.Hex()), `{"type": "buy", "amount": "0.5"}`).want(t, http.StatusOK,
			`{"error": "recipient required: the token trades on the pool and the router needs an explicit recipient"}`)
	})

	t.Run("slippage bounds", func(t *testing.T) {
		for body, minOut := range map[string]string{
			`{"type": "buy", "amount": "1", "slippage": 0}`:       "34281150.159744408945355041",
			`{"type": "buy", "amount": "1", "slippage": "0"}`:     "34281150.159744408945355041",
			`{"type": "buy", "amount": "1", "slippage": 50}`:      "17140575.07987220447267752",
			`{"type": "buy", "amount": "1", "slippage": "50.00"}`: "17140575.07987220447267752",
			`{"type": "buy", "amount": "1", "slippage": null}`:    "33938338.65814696485590149",
		} {
			var got buildJSON
			plain.do(t, http.MethodPost, path(ethToken.Hex()), body).decode(t, &got)
			if got.MinAmountOut != minOut {
				t.Errorf("%s: minAmountOut %q, want %q", body, got.MinAmountOut, minOut)
			}
		}
	})
}

// Every validation failure of the build-tx body answers {error} with status 200.
func TestBuildTxValidation(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	eth, tusd := "/tokens/"+ethToken.Hex()+"/build-tx", "/tokens/"+tusdToken.Hex()+"/build-tx"
	const slip = "slippage must be a percentage from 0 to 50 with at most two decimals"
	for _, tc := range []struct{ name, path, body, message string }{
		{"empty body", eth, ``, "body must be a JSON object"},
		{"truncated", eth, `{"type": "buy"`, "body is not a valid JSON object: unexpected end of input"},
		{"syntax", eth, `{"type": buy}`, "body is not a valid JSON object: syntax error at byte 10"},
		{"array", eth, `["buy", "1"]`, "body must be a JSON object"},
		{"two objects", eth, `{"type": "buy", "amount": "1"} {}`, "body must hold a single JSON object"},
		{"unknown field", eth, `{"type": "buy", "amount": "1", "sender": "0x7ade000000000000000000000000000000000008"}`, "unknown field sender"},
		{"from malformed", eth, `{"type": "buy", "amount": "1", "from": "0x7ade"}`, "from must be an address: 0x followed by 40 hex digits, not zero"},
		{"from zero", eth, `{"type": "buy", "amount": "1", "from": "0x0000000000000000000000000000000000000000"}`, "from must be an address: 0x followed by 40 hex digits, not zero"},
		{"recipient other than from on the curve", eth, `{"type": "buy", "amount": "1", "from": "0x7ade000000000000000000000000000000000008", "recipient": "0x7ade000000000000000000000000000000000009"}`, "on the curve the output goes to the sending wallet: give a recipient other than from only once the token trades on the pool"},
		{"from not a string", eth, `{"type": "buy", "amount": "1", "from": 7}`, "from must be a string"},
		{"duplicate key", eth, `{"type": "buy", "type": "sell", "amount": "1"}`, "type is given more than once"},
		{"case variant key", eth, `{"Type": "buy", "AMOUNT": "1"}`, "unknown field Type"},
		{"trailing value", eth, `{"type": "buy", "amount": "1"} {}`, "body must hold a single JSON object"},
		{"null", eth, `null`, "body must be a JSON object"},
		{"missing type", eth, `{"amount": "1"}`, "type is required"},
		{"type neither buy nor sell", eth, `{"type": "swap", "amount": "1"}`, "type must be buy or sell"},
		{"type not a string", eth, `{"type": true, "amount": "1"}`, "type must be a string"},
		{"missing amount", eth, `{"type": "buy"}`, "amount is required"},
		{"amount as a number", eth, `{"type": "buy", "amount": 1}`, `amount must be a string holding an exact decimal ("1.5"), not a JSON number`},
		{"amount as a negative number", eth, `{"type": "buy", "amount": -1}`, `amount must be a string holding an exact decimal ("1.5"), not a JSON number`},
		{"amount as an object", eth, `{"type": "buy", "amount": {}}`, "amount must be a string"},
		{"amount zero", eth, `{"type": "buy", "amount": "0"}`, "amount must be positive"},
		{"amount negative", eth, `{"type": "buy", "amount": "-1"}`, `amount "-1" is not a decimal number`},
		{"amount junk", eth, `{"type": "buy", "amount": "lots"}`, `amount "lots" is not a decimal number`},
		{"amount exponent", eth, `{"type": "buy", "amount": "1e3"}`, `amount "1e3" is not a decimal number`},
		{"amount empty", eth, `{"type": "buy", "amount": ""}`, "amount is empty"},
		{"19 decimals of an 18-decimal asset", eth, `{"type": "buy", "amount": "0.0000000000000000001"}`, `amount "0.0000000000000000001" has more than 18 decimals`},
		{"19 decimals of the token", tusd, `{"type": "sell", "amount": "1.0000000000000000001"}`, `amount "1.0000000000000000001" has more than 18 decimals`},
		{"7 decimals of a 6-decimal asset", tusd, `{"type": "buy", "amount": "1.0000001"}`, `amount "1.0000001" has more than 6 decimals`},
		{"amount too small", eth, `{"type": "buy", "amount": "0.000000000000000001"}`, "amount too small: the trade would receive nothing"},
		{"sell beyond the reserves", eth, `{"type": "sell", "amount": "1000"}`, "amount exceeds what the reserves can cover"},
		{"slippage above 50", eth, `{"type": "buy", "amount": "1", "slippage": 51}`, slip},
		{"slippage just above 50", eth, `{"type": "buy", "amount": "1", "slippage": "50.01"}`, slip},
		{"slippage negative", eth, `{"type": "buy", "amount": "1", "slippage": -1}`, slip},
		{"slippage three decimals", eth, `{"type": "buy", "amount": "1", "slippage": 1.125}`, slip},
		{"slippage exponent", eth, `{"type": "buy", "amount": "1", "slippage": 1e1}`, slip},
		{"slippage junk", eth, `{"type": "buy", "amount": "1", "slippage": "low"}`, slip},
		{"slippage empty", eth, `{"type": "buy", "amount": "1", "slippage": ""}`, slip},
		{"slippage boolean", eth, `{"type": "buy", "amount": "1", "slippage": true}`, "slippage must be a percentage from 0 to 50 (a number or a string)"},
		{"recipient short", eth, `{"type": "buy", "amount": "1", "recipient": "0x7ade"}`, "recipient must be an address: 0x followed by 40 hex digits"},
		{"recipient not hex", eth, `{"type": "buy", "amount": "1", "recipient": "0x7ade00000000000000000000000000000000000g"}`, "recipient must be an address: 0x followed by 40 hex digits"},
		{"recipient without 0x", eth, `{"type": "buy", "amount": "1", "recipient": "7ade000000000000000000000000000000000008"}`, "recipient must be an address: 0x followed by 40 hex digits"},
		{"recipient zero", eth, `{"type": "buy", "amount": "1", "recipient": "0x0000000000000000000000000000000000000000"}`, "recipient must not be the zero address"},
		{"recipient a number", eth, `{"type": "buy", "amount": "1", "recipient": 5}`, "recipient must be a string"},
		{"body too large", eth, `{"type": "buy", "amount": "1", "recipient": "` + strings.Repeat(" ", 20_000) + `"}`, "body is larger than 16384 bytes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e.do(t, http.MethodPost, tc.path, tc.body).want(t, http.StatusOK, `{"error": `+jsonString(tc.message)+`}`)
		})
	}
}

// SPEC 4.4: without a recipient, a caller with a credential trades for their own wallet; an
// anonymous build of a graduated token still needs one.
func TestBuildTxDefaultsToTheCallersWallet(t *testing.T) {
	t.Parallel()
	key := "svc_" + strings.Repeat("d4", 24)
	e := newEnv(t, envOptions{auth: knownKeys{key: "key-d"}})
	wallet := common.BytesToAddress([]byte("key-d"))
	path := "/tokens/" + gradToken.Hex() + "/build-tx"
	var out struct {
		Error string `json:"error"`
		From  string `json:"from"`
	}
	e.do(t, http.MethodPost, path, `{"type": "buy", "amount": "0.5"}`, "X-API-Key", key).decode(t, &out)
	if out.Error != "" || out.From != wallet.Hex() {
		t.Fatalf("build with a key and no recipient: %+v, want from %s", out, wallet.Hex())
	}
	out = struct {
		Error string `json:"error"`
		From  string `json:"from"`
	}{}
	e.do(t, http.MethodPost, path, `{"type": "buy", "amount": "0.5"}`).decode(t, &out)
	if out.Error == "" {
		t.Fatalf("an anonymous graduated build without a recipient succeeded: %+v", out)
	}
}
