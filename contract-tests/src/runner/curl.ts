import type { Exchange } from './http.js';
import type { ShownExchange } from './types.js';

/** What stands for a secret in a reproducer unless secrets are shown. */
export const TOKEN_PLACEHOLDER = '$RESTOAPI_TOKEN';

const SECRET_FIELDS = /^(password|api_key|token)$/;

function quote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

function maskForm(body: string): string {
  const params = new URLSearchParams(body);
  let masked = false;
  for (const key of [...params.keys()])
    if (SECRET_FIELDS.test(key)) {
      params.set(key, key === 'token' ? TOKEN_PLACEHOLDER : '$RESTOAPI_SECRET');
      masked = true;
    }
  return masked ? decodeURIComponent(params.toString()) : body;
}

/**
 * A curl command that sends the request again. Tokens (header or query) become
 * `$RESTOAPI_TOKEN` and passwords `$RESTOAPI_SECRET` unless `showSecrets`, and
 * the command is double-quoted then so that the shell fills them in.
 */
export function curlOf(exchange: Exchange, showSecrets = false): string {
  const url = new URL(exchange.url);
  let secret = false;
  if (!showSecrets && url.searchParams.has('token')) {
    url.searchParams.set('token', 'TOKEN_PLACEHOLDER');
    secret = true;
  }
  const parts = ['curl', '-sS', '-i', '-X', exchange.method];
  const headers = Object.entries(exchange.headers).map(([name, value]) => {
    if (!showSecrets && name.toLowerCase() === 'authorization') {
      secret = true;
      return `${name}: Token token="${TOKEN_PLACEHOLDER}"`;
    }
    return `${name}: ${value}`;
  });
  let body = exchange.body;
  if (body !== undefined && !showSecrets && /x-www-form-urlencoded/i.test(exchange.headers['content-type'] ?? '')) {
    const masked = maskForm(body);
    secret ||= masked !== body;
    body = masked;
  }
  // Double quotes let the shell put the token in; everything else stays literal in single quotes.
  const q = (text: string): string =>
    secret && text.includes('$RESTOAPI_') ? `"${text.replace(/(["\\`])/g, '\\$1')}"` : quote(text);
  const target = url.toString().replace('TOKEN_PLACEHOLDER', TOKEN_PLACEHOLDER);
  parts.push(q(target));
  for (const header of headers) parts.push('-H', q(header));
  if (body !== undefined) parts.push('--data-binary', q(body));
  for (const [key, value] of exchange.form ?? []) {
    const shown = !showSecrets && SECRET_FIELDS.test(key) ? '$RESTOAPI_SECRET' : value;
    parts.push('-F', q(`${key}=${shown}`));
  }
  return parts.join(' ');
}

/**
 * The requests a failed test is reproduced with: every answer that broke the
 * document, and the last request (whose answer a failed check is usually about).
 */
export function reproducers(exchanges: Exchange[], showSecrets = false): string[] {
  const chosen = exchanges.filter((e) => e.faulty);
  const last = exchanges.at(-1);
  if (last && !chosen.includes(last)) chosen.push(last);
  return chosen.slice(-10).map((e) => curlOf(e, showSecrets));
}

/** An answer's text with the values of secret members (a login's token, an api_key) as placeholders. */
export function maskAnswer(text: string): string {
  return text.replace(
    /"(token|api_key|password)"(\s*:\s*)"(?:[^"\\]|\\.)*"?/g,
    (_all, key: string, colon: string) =>
      `"${key}"${colon}"${key === 'token' ? TOKEN_PLACEHOLDER : '$RESTOAPI_SECRET'}"`,
  );
}

/** The last `limit` requests of a failed test and their answers, secrets masked as in {@link curlOf}. */
export function shownExchanges(exchanges: Exchange[], showSecrets = false, limit = 12): ShownExchange[] {
  return exchanges.slice(-limit).map((exchange) => {
    const url = new URL(exchange.url);
    if (!showSecrets && url.searchParams.has('token')) url.searchParams.set('token', 'TOKEN_PLACEHOLDER');
    let body = exchange.body;
    if (body !== undefined && !showSecrets && /x-www-form-urlencoded/i.test(exchange.headers['content-type'] ?? ''))
      body = maskForm(body);
    if (body === undefined && exchange.form)
      body = exchange.form
        .map(([key, value]) => `${key}=${!showSecrets && SECRET_FIELDS.test(key) ? '$RESTOAPI_SECRET' : value}`)
        .join('\n');
    return {
      request: `${exchange.method} ${url.toString().replace('TOKEN_PLACEHOLDER', TOKEN_PLACEHOLDER)}`,
      ...(body !== undefined ? { body } : {}),
      status: exchange.status,
      answer: showSecrets ? exchange.answer : maskAnswer(exchange.answer),
      faulty: exchange.faulty,
    };
  });
}
