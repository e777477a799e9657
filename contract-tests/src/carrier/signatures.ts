import { signWebhook } from '@restoapi/openapi';
import { CARRIER_DECISIONS, type Finding } from './carrier-checks.js';

/**
 * Sends the carrier two callbacks it must refuse when it registered a signing secret: one without the
 * Standard Webhooks headers and one signed with another secret. Either acknowledged is a finding: the
 * carrier would act on callbacks anyone can send.
 */
export async function checkSignatures(
  callbackUrl: string,
  secret: string | undefined,
  ackMs: number,
): Promise<Finding> {
  const out: Finding = { stated: [], decided: [], calls: [] };
  const decision = CARRIER_DECISIONS.signature;
  if (!secret) {
    out.skip = 'no --secret given: the callbacks were sent unsigned, as the spec allows';
    return out;
  }
  const url = new URL(callbackUrl);
  const query = new URLSearchParams({
    type: 'order_status_changed',
    order_id: '999999',
    order_secure_id: `forged-${Date.now()}`,
    status: 'cancelled',
  });
  for (const [name, value] of query) url.searchParams.set(name, value);
  const id = `msg_forged_${Date.now()}`;
  const timestamp = String(Math.floor(Date.now() / 1000));
  // A valid key that is not the carrier's: the signature is well formed and wrong.
  const other = `whsec_${Buffer.from('not the secret the carrier registered').toString('base64')}`;
  const forged = await signWebhook(other, id, timestamp, url.search.slice(1));
  const attempts: [string, Record<string, string>][] = [
    ['an unsigned callback', {}],
    [
      'a callback signed with another secret',
      { 'webhook-id': id, 'webhook-timestamp': timestamp, 'webhook-signature': forged },
    ],
  ];
  for (const [what, headers] of attempts) {
    try {
      const response = await fetch(url, { method: 'POST', headers, signal: AbortSignal.timeout(ackMs) });
      await response.arrayBuffer();
      if (response.ok)
        out.decided.push({
          message: `${what} (POST ${url.toString()}) was acknowledged with ${response.status}; a carrier with a secret must refuse it`,
          decision,
        });
    } catch (error) {
      out.decided.push({
        message: `${what} (POST ${url.toString()}) got no answer within ${ackMs} ms: ${(error as Error).message}`,
        decision,
      });
    }
  }
  return out;
}
