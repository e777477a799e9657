import fc from 'fast-check';
import type { Role } from '../../config.js';
import type { SessionInfo } from '../../runner/context.js';
import { defineTest } from '../define.js';
import { fresh, runMachine, undo, type Machine, type Step } from './machine.js';

interface SessionModel {
  sessions: { role: Role; session: SessionInfo; alive: boolean }[];
}

const roles = fc.constantFrom<Role>('staffMember', 'dispatcher', 'courier');

const sessionMachine: Machine<SessionModel> = {
  // A session used twice and more, ended, then used again.
  tour: [
    /^login\(staffMember\)$/,
    /^use\(session 0 from the newest, GET \/api\/session\)$/,
    /^use\(session 0 from the newest, GET \/api\/session\)$/,
    /^use\(session 0 from the newest, GET \/api\/session\)$/,
    /^use\(session 0 from the newest, GET \/api\/organizations\)$/,
    /^logout\(session 0 from the newest\)$/,
    /^use\(session 0 from the newest, GET \/api\/organizations\)$/,
    /^use\(session 0 from the newest, GET \/api\/session\)$/,
  ],
  decidedOnly: [
    "the body of GET /api/session: its shape is not shown in the spec (full: it names the session's account)",
  ],
  async init(t) {
    await fresh(t);
    return { sessions: [] };
  },
  commands() {
    const use = fc
      .tuple(fc.nat({ max: 3 }), fc.constantFrom('/api/session', '/api/organizations'))
      .map(([n, path]): Step<SessionModel> => ({
        label: `use(session ${n} from the newest, GET ${path})`,
        applies: (m) => m.sessions.length > 0,
        async run(m, tc) {
          const s = m.sessions[Math.max(0, m.sessions.length - 1 - n)]!;
          const response = await tc.withSession(s.session, s.role).get(path);
          if (s.alive) tc.status(response, 200, `using the live session of ${s.role}`);
          else tc.refused(response, 401, `using the ended session of ${s.role}`);
          // The body of GET /api/session is not shown in the spec: under spec a session is judged by whether its
          // token works; the decided body (full) must also name the session's account.
          if (s.alive && path === '/api/session' && tc.full)
            tc.equal(
              String(response.body?.api_user?.account?.id),
              String(s.session.accountId),
              'the account of the session',
            );
        },
      }));
    const steps: fc.Arbitrary<Step<SessionModel>>[] = [
      roles.map((role) => ({
        label: `login(${role})`,
        async run(m, tc) {
          const session = await tc.login(role);
          tc.check(
            !m.sessions.some((s) => s.alive && s.session.token === session.token),
            'a new session got the token of a live session',
          );
          m.sessions.push({ role, session, alive: true });
          undo(tc, async () => tc.withSession(session).delete('/api/session'));
        },
      })),
      // Uses are the common case of a session: they come three times as often as logins and logouts.
      use,
      use,
      use,
      fc.nat({ max: 3 }).map((n) => ({
        label: `logout(session ${n} from the newest)`,
        applies: (m) => m.sessions.length > 0,
        async run(m, tc) {
          const s = m.sessions[Math.max(0, m.sessions.length - 1 - n)]!;
          const response = await tc.withSession(s.session, s.role).delete('/api/session');
          if (s.alive) tc.status(response, '2xx', `ending the session of ${s.role}`);
          else tc.refused(response, 401, `ending the ended session of ${s.role}`);
          s.alive = false;
        },
      })),
    ];
    return steps;
  },
};

/** The session machine as a test (needs no mutations: it only logs in and out). */
export const sessionMachineTest = defineTest({
  id: 'stateful.sessions',
  title:
    'Endpoints > Session (model-based): random sequences of logins, uses and logouts; a token works until its own logout',
  clauses: [
    'Endpoints > Session: POST /api/session',
    'Endpoints > Session: GET /api/session',
    'Endpoints > Session: DELETE /api/session',
    'Authentication 1',
  ],
  profile: 'spec',
  kind: 'stateful',
  operations: ['createSession', 'getSession', 'deleteSession', 'listOrganizations'],
  run: (t) => runMachine(t, sessionMachine),
});
