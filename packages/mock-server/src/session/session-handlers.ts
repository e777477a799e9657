import type { components } from '@restoapi/openapi';
import { noContent, ok, type HandlerMap } from '../engine/handler.js';
import { HttpError, errorObject, unprocessable } from '../engine/http-error.js';
import type { MockRuntime } from '../engine/runtime.js';
import type { ApiUserRecord, SessionRecord } from '../state/mock-state.js';

type SessionResponse = components['schemas']['SessionResponse'];

function invalidCredentials(): HttpError {
  return new HttpError(
    401,
    [
      errorObject(
        401,
        'unauthenticated',
        'Invalid credentials',
        'The login and password (or the API key) do not match an API user.',
      ),
    ],
    { 'WWW-Authenticate': 'Token realm="restoapi"' },
  );
}

/** The public view of an API user (credentials stripped). */
export function publicApiUser(user: ApiUserRecord): components['schemas']['ApiUser'] {
  const { password: _password, api_key: _apiKey, ...rest } = user;
  return rest;
}

function sessionBody(runtime: MockRuntime, user: ApiUserRecord, session: SessionRecord): SessionResponse {
  const staff = user.account.type === 'staff_member' ? runtime.state.staffMembers.get(user.account.id) : undefined;
  const expires = new Date(Date.parse(session.last_used_at) + runtime.config.tokenTtlMs).toISOString();
  return {
    staff_members: staff ? [staff] : [],
    api_user: publicApiUser(user),
    meta: { token: session.token, expires_at: expires },
  };
}

type Credentials = { login?: string; password?: string; api_key?: string };

function formCredentials(form: FormData): Credentials {
  const text = (name: string): string | undefined => {
    const value = form.get(name);
    return typeof value === 'string' ? value : undefined;
  };
  return { login: text('login'), password: text('password'), api_key: text('api_key') };
}

/** `POST /api/session`, `GET /api/session`, `DELETE /api/session` (Endpoints > Session, Authentication). */
export const sessionHandlers: HandlerMap = {
  createSession({ runtime, query, body, form }) {
    const fromQuery = query as Credentials;
    // Form parameters arrive url-encoded (parsed into `body`) or as multipart/form-data (`form`).
    const fromForm = (form ? formCredentials(form) : (body ?? {})) as Credentials;
    const inQuery = Boolean(fromQuery.login || fromQuery.password || fromQuery.api_key);
    const inForm = Boolean(fromForm.login || fromForm.password || fromForm.api_key);
    if (inQuery && inForm) {
      throw unprocessable([
        {
          pointer: '',
          code: 'invalid_value',
          detail: 'Send the credentials either as query parameters or as form parameters, not both.',
        },
      ]);
    }
    const credentials = inQuery ? fromQuery : fromForm;
    if (!credentials.api_key && !(credentials.login && credentials.password)) {
      throw unprocessable([
        { pointer: '/login', code: 'required', detail: 'login and password (or api_key) are required.' },
      ]);
    }
    const user = credentials.api_key
      ? runtime.state.apiUsers.find((u) => Boolean(u.api_key) && u.api_key === credentials.api_key)
      : runtime.state.apiUsers.find((u) => u.login === credentials.login && u.password === credentials.password);
    if (!user) throw invalidCredentials();
    const now = runtime.nowIso();
    const session = runtime.state.sessions.insert({
      token: runtime.secureToken(),
      api_user_id: user.id,
      created_at: now,
      last_used_at: now,
      ended_at: null,
    });
    return ok(sessionBody(runtime, user, session));
  },

  getSession({ runtime, actor }) {
    return ok(sessionBody(runtime, actor.apiUser, actor.session));
  },

  deleteSession({ runtime, actor }) {
    actor.session.ended_at = runtime.nowIso();
    return noContent();
  },
};
