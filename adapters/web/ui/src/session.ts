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

/** sendTx sends tx the chosen way and returns its hash; waitFirst: the transaction must be mined
 * before the next one is sent (an approval). */
export async function sendTx(tx: UnsignedTx, what: string, how: Via, waitFirst = false): Promise<string> {
  if (how === 'wallet') {
    const hash = await send(tx);
    if (waitFirst) await mined(hash);
    return hash;
  }
  const user = session.get().user;
  if (!user) throw new Error('sign in to use your custodial wallet');
  if (!(await confirmCustodial(tx, what, user.wallet))) throw new Error('You cancelled the send.');
  const body: Record<string, unknown> = { to: tx.to, data: tx.data, value: tx.value, chainId: tx.chainId };
  if (tx.gas) body.gas = tx.gas;
  // A trade after its approval cannot be estimated until the approval is mined: retry a while.
  // Each attempt has its own key: a refused one sent nothing, and a retry of the same attempt
  // (the network dropped the answer) is answered by the server from the key.
  for (let i = 0; ; i++) {
    try {
      const sub = await api<S['Submission']>('/wallet/sign-and-submit', { json: body, headers: { 'Idempotency-Key': crypto.randomUUID() } });
      return sub.hash;
    } catch (e) {
      if (!(e instanceof ApiError) || e.status !== 400 || i >= 20 || tx.gas) throw e;
      await new Promise((f) => setTimeout(f, 1000));
    }
  }
}
