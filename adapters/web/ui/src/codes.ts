// The refusal codes the API answers beside its message (curvekit.Codes, the OpenAPI document's
// ErrorCode), each explained in words for the person who met it. The type makes a code without
// an explanation a compile error, and a Go test holds this list equal to curvekit.Codes.
import { ApiError, type S } from './api';

export type Code = S['ErrorCode'];

export const codeText: Record<Code, string> = {
  WALLET_PAUSED: 'Your custodial wallet is paused: it signs nothing until you resume it under Account › Wallet safety.',
  PER_TX_LIMIT_EXCEEDED: 'This transaction would move more out of your wallet than your per-transaction cap allows.',
  DAILY_LIMIT_EXCEEDED: 'With this transaction, what left your wallet in the last 24 hours would pass your daily cap.',
  PRICE_IMPACT_TOO_HIGH: 'This trade would move the price more than your wallet safety settings allow.',
  RECIPIENT_NOT_ALLOWED: 'An address that would receive value, tokens or an allowance is not on a list that permits it (the API key\'s allowed recipients or your account\'s recipients).',
  RECIPIENT_COOLING_DOWN: 'The recipient was added to your recipients too recently: it may receive once its cooldown has passed.',
  CALL_NOT_UNDERSTOOD: 'The server cannot read this call, so your wallet safety settings cannot vouch for it.',
  SIMULATION_REVERTED: 'Run against the chain\'s pending state, this transaction fails, so nothing was signed.',
  READ_ONLY_KEY: 'A read-only API key cannot sign or change anything.',
  IP_NOT_ALLOWED: 'The API key is used from an address outside its allowed IPs.',
  RATE_LIMITED: 'Too many requests of this kind: wait a moment and try again.',
  VALIDATION_FAILED: 'Some of what was entered is not valid: see the reasons given.',
};

/** explain is the sentence for a code, or null for an unknown one or none. */
export function explain(code: string | null | undefined): string | null {
  return code && Object.prototype.hasOwnProperty.call(codeText, code) ? codeText[code as Code] : null;
}

/** codeOf is the refusal code an error carries, if any. */
export function codeOf(e: unknown): string | null {
  return e instanceof ApiError ? e.code : null;
}
