// Display of amounts, prices and strangers' strings. Amounts arrive as exact decimal strings;
// what is shown is rounded for reading, never used to compute.

const sub = '₀₁₂₃₄₅₆₇₈₉';

// Number formats are costly to build and pages format hundreds of figures per render: each one
// is built once.
const formats = new Map<string, Intl.NumberFormat>();
function fmt(n: number, opts: Intl.NumberFormatOptions): string {
  const key = JSON.stringify(opts);
  let f = formats.get(key);
  if (!f) formats.set(key, (f = new Intl.NumberFormat('en-US', opts)));
  return f.format(n);
}

/** price shows a spot price: small ones as 0.0₇4946 (seven zeros after the point). */
export function price(p: number | null | undefined): string {
  if (p === null || p === undefined || !isFinite(p)) return '—';
  if (p === 0) return '0';
  if (p >= 1) return fmt(p, { maximumFractionDigits: 4 });
  const [mant, exp] = p.toExponential(3).split('e');
  const zeros = -Number(exp) - 1;
  const digits = mant.replace('.', '').replace(/0+$/, '');
  if (zeros < 4) return p.toFixed(zeros + 4).replace(/0+$/, '');
  return '0.0' + String(zeros).split('').map((d) => sub[Number(d)]).join('') + digits;
}

/** amount shows a decimal string compactly: 1.23M, 45.6K, 0.0123. */
export function amount(s: string | null | undefined, maxFraction = 4): string {
  if (s === null || s === undefined || s === '') return '—';
  const n = Number(s);
  if (!isFinite(n)) return s;
  if (Math.abs(n) >= 1e4) return fmt(n, { notation: 'compact', maximumFractionDigits: 2 });
  if (n !== 0 && Math.abs(n) < 10 ** -maxFraction) return price(n);
  return fmt(n, { maximumFractionDigits: maxFraction });
}

export function percentBps(bps: number): string {
  return fmt(bps / 100, { maximumFractionDigits: 2 }) + '%';
}

/** share shows a part of a supply (0.25 is 25%); a holding under a hundredth of a percent as such. */
export function share(x: number | null | undefined): string {
  if (x === null || x === undefined || !isFinite(x)) return '—';
  if (x > 0 && x < 0.0001) return '<0.01%';
  return fmt(x * 100, { maximumFractionDigits: 2 }) + '%';
}

export function change(c: number | null | undefined): string {
  if (c === null || c === undefined || !isFinite(c)) return '—';
  return (c >= 0 ? '+' : '') + (c * 100).toFixed(2) + '%';
}

export function short(addr: string): string {
  return addr.length > 12 ? `${addr.slice(0, 6)}…${addr.slice(-4)}` : addr;
}

export function ago(unix: number, now = Date.now() / 1000): string {
  const d = Math.max(0, Math.round(now - unix));
  if (d < 60) return `${d}s ago`;
  if (d < 3600) return `${Math.floor(d / 60)}m ago`;
  if (d < 86400) return `${Math.floor(d / 3600)}h ago`;
  return `${Math.floor(d / 86400)}d ago`;
}

/** when writes a Unix time as the reader's local date and time. */
export function when(unix: number): string {
  return new Date(unix * 1000).toLocaleString('en-GB', { dateStyle: 'medium', timeStyle: 'short' });
}

// Characters that act on text rather than show: C0 and C1 controls (newline and tab aside), the
// line and paragraph separators, format characters (bidi overrides and isolates, zero-width space
// and joiners, the byte-order mark, the soft hyphen...) and the other default-ignorable ones
// (Hangul fillers, the combining grapheme joiner), save the variation selectors, which only choose
// how an emoji is drawn. A right-to-left override or a zero-width space would let one token's
// name read as another's.
const hidden = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{DI}]/gu;

function escapeOf(ch: string): string | null {
  const cp = ch.codePointAt(0)!;
  if (ch === '\n' || ch === '\t' || (cp >= 0xfe00 && cp <= 0xfe0f) || (cp >= 0xe0100 && cp <= 0xe01ef)) return null;
  return '\\u' + cp.toString(16).padStart(4, '0');
}

/** reveal splits a stranger's string into its text (even indices) and its hidden characters,
 * each written as the escape \u202e (odd indices): as the command line shows them. */
export function reveal(s: string): string[] {
  const out: string[] = [];
  let last = 0;
  for (const m of s.matchAll(hidden)) {
    const e = escapeOf(m[0]);
    if (e === null) continue;
    out.push(s.slice(last, m.index), e);
    last = m.index + m[0].length;
  }
  out.push(s.slice(last));
  return out;
}

/** visible is a stranger's string with its hidden characters written as escapes (see reveal), for
 * the places that take plain text: attributes, composed messages. */
export function visible(s: string): string {
  return reveal(s).join('');
}

/** ipfsCID is the CID of an ipfs:// URI of the shape this server pins (CIDv1, base32), else null. */
export function ipfsCID(uri: string): string | null {
  return /^ipfs:\/\/(b[a-z2-7]{58})$/i.exec(uri)?.[1] ?? null;
}

/** safeLink is the URL when it is an absolute http(s) URL, else null: a stranger's link is never
 * javascript:, data: or anything else a browser would run. */
export function safeLink(u: unknown): string | null {
  if (typeof u !== 'string' || u.length > 2048) return null;
  try {
    const url = new URL(u);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.href : null;
  } catch {
    return null;
  }
}

/** hexWei turns a decimal wei string into the 0x quantity wallets take. */
export function hexWei(dec: string): string {
  return '0x' + BigInt(dec || '0').toString(16);
}

/** units turns a whole-unit decimal string into base units (exact, no floats). */
export function units(dec: string, decimals: number): bigint {
  const m = /^(\d*)(?:\.(\d*))?$/.exec(dec.trim());
  if (!m) throw new Error('not a decimal');
  const frac = (m[2] ?? '').padEnd(decimals, '0');
  if (frac.length > decimals) throw new Error('too many decimals');
  return BigInt((m[1] || '0') + frac);
}

/** whole formats base units as a whole-unit decimal string. */
export function whole(v: bigint, decimals: number): string {
  const neg = v < 0n;
  const s = (neg ? -v : v).toString().padStart(decimals + 1, '0');
  const i = s.slice(0, s.length - decimals);
  const f = s.slice(s.length - decimals).replace(/0+$/, '');
  return (neg ? '-' : '') + i + (f ? '.' + f : '');
}
