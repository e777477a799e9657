/**
 * Where the mock may send requests of its own (remote photos of a menu import, carrier callbacks). Browser-safe:
 * the Node server adds the check of the address actually connected to (`node-outbound.ts`); this module holds the
 * rule and the checks that need no network.
 */
import { addressRange, inCidr, parseAddress } from './address-ranges.js';

/** `public`: public addresses only; `any`: every address; `off`: no request at all. */
export type OutboundMode = 'public' | 'any' | 'off';

/** The rule for one kind of outbound request. */
export interface OutboundRule {
  /** What may be reached (see {@link OutboundMode}). */
  mode: OutboundMode;
  /**
   * Reachable whatever their address (`public` mode): host names (`photos.internal`, `localhost`), IP addresses
   * (`10.0.0.7`, `::1`) or CIDR ranges (`10.1.0.0/16`), set by the operator.
   */
  allowHosts: readonly string[];
}

/** The operator's rules for every kind of outbound request of a mock. */
export interface OutboundPolicy {
  /** Remote photos of menu imports (`remote_photo_url`). */
  photos: OutboundRule;
  /** Carrier callbacks (`callback_url` of `POST /__mock/carriers`). */
  callbacks: OutboundRule;
}

/** A request to an address the rule does not allow: `reason` says which rule refused it and how to allow it. */
export class OutboundRefused extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'OutboundRefused';
  }
}

/** Names that always mean this machine, whatever a resolver says. */
const LOCAL_NAMES = /^(localhost|localhost\.localdomain|ip6-localhost|ip6-loopback)$|\.localhost$/i;

/** The special-purpose range of an address when it is not public (`loopback`, `private`, `linkLocal`…). */
export function nonPublicRange(address: string): string | undefined {
  return addressRange(address);
}

/** The host of a URL without the brackets of an IPv6 literal. */
function bareHost(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();
}

/** Whether the operator's allowlist names this host (by name or literal address; CIDRs are matched per address). */
export function allowedByName(url: URL, rule: OutboundRule): boolean {
  const host = bareHost(url);
  return rule.allowHosts.some((entry) => entry.toLowerCase() === host);
}

/** Whether the allowlist admits this address (an entry that is the address itself or a CIDR range holding it). */
export function allowedAddress(address: string, rule: OutboundRule): boolean {
  return rule.allowHosts.some((entry) => inCidr(address, entry));
}

/**
 * Why a URL may not be requested under the rule, judged on the URL alone (scheme, mode, a literal address or a
 * local name); `undefined` when it may be tried. A name that resolves to a refused address is caught where the
 * connection is made (`node-outbound.ts`), so a DNS answer cannot get round the rule.
 * @param flag the command-line option that changes the rule, named in the reason
 */
export function urlProblem(raw: string | URL, rule: OutboundRule, flag: string): string | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'not a valid URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `scheme ${url.protocol} is not http or https`;
  if (rule.mode === 'off') return `outbound requests are off (${flag} off)`;
  if (rule.mode === 'any' || allowedByName(url, rule)) return undefined;
  const host = bareHost(url);
  if (LOCAL_NAMES.test(host)) return `${host} is this machine (${flag} public allows public addresses only)`;
  if (parseAddress(host)) {
    const range = nonPublicRange(host);
    if (range && !allowedAddress(host, rule))
      return `address ${host} is not public (${range}; ${flag} public allows public addresses only)`;
  }
  return undefined;
}

/** The rule that allows everything (in-process mocks and tests that opt in). */
export const ANY_ADDRESS: OutboundRule = Object.freeze({ mode: 'any', allowHosts: Object.freeze([]) });
/** The rule that allows public addresses only. */
export const PUBLIC_ONLY: OutboundRule = Object.freeze({ mode: 'public', allowHosts: Object.freeze([]) });

/** One kind of outbound request of an instance: its rule, and the one-hop `fetch` that keeps to it. */
export interface OutboundChannel {
  rule: OutboundRule;
  /** Makes one hop (redirects come back as they are) and refuses, with {@link OutboundRefused}, what the rule does. */
  fetch: typeof fetch;
}

/** The outbound requests of an instance. */
export interface OutboundServices {
  photos: OutboundChannel;
  callbacks: OutboundChannel;
}

/**
 * A one-hop `fetch` that checks the URL alone before handing it to `send` (by default the global `fetch`, read
 * at each call): what an in-process or in-browser mock can check. The Node server checks the address actually
 * connected to as well (`createOutboundFetch` of `node-outbound.ts`).
 */
export function urlCheckedFetch(
  rule: OutboundRule,
  flag: string,
  send: typeof fetch = (input, init) => globalThis.fetch(input, init),
): typeof fetch {
  return async (input, init) => {
    const url = input instanceof Request ? input.url : String(input);
    const problem = urlProblem(url, rule, flag);
    if (problem) throw new OutboundRefused(problem);
    // Under a rule with something to check, a redirect comes back to the caller, which checks each hop.
    return send(input, rule.mode === 'any' ? init : { ...init, redirect: 'manual' });
  };
}

/** The default rules: photos from public addresses only, callbacks anywhere (see the README's team section). */
export const DEFAULT_OUTBOUND_POLICY: OutboundPolicy = Object.freeze({ photos: PUBLIC_ONLY, callbacks: ANY_ADDRESS });

/** The outbound services of an in-process mock under a policy: URL checks only (there is no socket to check). */
export function urlCheckedOutbound(policy: Partial<OutboundPolicy> = {}): OutboundServices {
  const { photos, callbacks } = { ...DEFAULT_OUTBOUND_POLICY, ...policy };
  return {
    photos: { rule: photos, fetch: urlCheckedFetch(photos, '--remote-photos') },
    callbacks: { rule: callbacks, fetch: urlCheckedFetch(callbacks, '--callbacks') },
  };
}
