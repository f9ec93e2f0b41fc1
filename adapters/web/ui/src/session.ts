// The signed-in person (GET /auth/session), and the two ways a composed transaction is sent:
// the browser wallet, or, for a signed-in person who asks for it, the custodial wallet after a
// confirmation that shows what goes where.
import { api, ApiError, type S, type UnsignedTx, type User } from './api';
import { Store } from './store';
import { mined, provider, send } from './wallet';

export const session = new Store<{ user: User | null; signedInAt?: number; loaded: boolean }>({ user: null, loaded: false });

export async function loadSession(): Promise<void> {
  try {
    const s = await api<S['Session']>('/auth/session');
    session.set({ user: s.user ?? null, signedInAt: s.signedInAt, loaded: true });
  } catch {
    session.set({ user: null, loaded: true });
  }
}

/** signIn goes to the provider and comes back to the page the person was on. */
export function signIn(): void {
  sessionStorage.setItem('curvekit.return', location.hash || '#/');
  location.assign('/auth/login?returnTo=%2F');
}

export async function signOut(): Promise<void> {
  await api('/auth/logout');
  await loadSession();
}

/** A request to confirm a custodial send, shown by the page's dialog. */
export interface Pending {
  tx: UnsignedTx;
  what: string;
  from: string;
  resolve(ok: boolean): void;
}
export const pending = new Store<Pending | null>(null);

function confirmCustodial(tx: UnsignedTx, what: string, from: string): Promise<boolean> {
  return new Promise((resolve) => pending.set({ tx, what, from, resolve: (ok) => (pending.set(null), resolve(ok)) }));
}

export type Via = 'wallet' | 'custodial';

/** via says how this page can send: the browser wallet when there is one, else the custodial
 * wallet of a signed-in person, else nothing. */
export function via(): Via | null {
  if (provider()) return 'wallet';
  return session.get().user ? 'custodial' : null;
}

/** The body sign-and-submit takes for tx: what build-tx answered, without its other fields. */
function signBody(tx: UnsignedTx): Record<string, unknown> {
  const body: Record<string, unknown> = { to: tx.to, data: tx.data, value: tx.value, chainId: tx.chainId };
  if (tx.gas) body.gas = tx.gas;
  return body;
}

/** simulate runs tx as the custodial wallet would send it, signing nothing (simulateOnly): every
 * check a send passes but the daily caps, then the call against the chain's pending state. A
 * refusal throws an ApiError with its code. */
export function simulate(tx: UnsignedTx): Promise<S['Simulation']> {
  return api<S['Simulation']>('/wallet/sign-and-submit', { json: { ...signBody(tx), simulateOnly: true } });
}

/** custodialMined waits until the custodial wallet's transaction hash is mined; one that failed
 * or was dropped throws. */
async function custodialMined(hash: string, timeoutMs = 120_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    const list = await api<S['WalletTxList']>('/wallet/transactions?limit=20');
    const t = list.transactions.find((x) => x.hashes.some((h) => h.toLowerCase() === hash.toLowerCase()));
    if (t?.state === 'mined') return;
    if (t && (t.state === 'failed' || t.state === 'dropped')) throw new Error(`transaction ${hash} ${t.state === 'failed' ? 'reverted' : 'was dropped'}`);
    await new Promise((f) => setTimeout(f, 500));
  }
  throw new Error(`transaction ${hash} was not mined in ${timeoutMs / 1000}s`);
}

/** sendTx sends tx the chosen way and returns its hash; waitFirst: the transaction must be mined
 * before the next one is sent (an approval), so that the next one's simulation sees it. */
export async function sendTx(tx: UnsignedTx, what: string, how: Via, waitFirst = false): Promise<string> {
  if (how === 'wallet') {
    const hash = await send(tx);
    if (waitFirst) await mined(hash);
    return hash;
  }
  const user = session.get().user;
  if (!user) throw new Error('sign in to use your custodial wallet');
  if (!(await confirmCustodial(tx, what, user.wallet))) throw new Error('You cancelled the send.');
  const body = signBody(tx);
  // A trade after its approval cannot be estimated until the approval is mined: retry a while.
  // Each attempt has its own key: a refused one sent nothing, and a retry of the same attempt
  // (the network dropped the answer) is answered by the server from the key. The guard's
  // refusals are 403 or 429, never retried.
  for (let i = 0; ; i++) {
    try {
      const sub = await api<S['Submission']>('/wallet/sign-and-submit', { json: body, headers: { 'Idempotency-Key': crypto.randomUUID() } });
      if (waitFirst) await custodialMined(sub.hash);
      return sub.hash;
    } catch (e) {
      if (!(e instanceof ApiError) || e.status !== 400 || i >= 20 || tx.gas) throw e;
      await new Promise((f) => setTimeout(f, 1000));
    }
  }
}
