/**
 * How much of the document's decisions the independent-implementation harness departs from, and how many of
 * the spec's checkable clauses a mutant that `spec` kills breaks (issue 36): the figures `npm test` prints.
 */
import { listDecisions, openapiDocument } from '@restoapi/openapi';
import { DEPARTURES, DEPARTURE_NAMES, FAMILY_DEPARTURES } from '../../../scripts/testing/independent-service.js';
import { CLAUSES } from '../../src/generated/clauses.js';
import { SPEC_KILLED_MUTANTS, STATED_MUTANTS, endpointMutants, fieldMutants } from '../mutants/stated-mutants.js';
import { UNCHECKABLE_CLAUSES, clauseMutants } from '../mutants/clause-mutants.js';

/**
 * Markers where no departure would show anything, with the reason. The suite never provokes a rate limit, a
 * 5xx or an oversized upload on a service it does not own, and some markers are absorbed by the invocation.
 */
export const NO_DEPARTURE: Readonly<Record<string, string>> = {
  '/info': 'a versioned path prefix is part of --base-url: the suite never sees the version',
  '/paths/~1api-delivery~1orders~1{secure_id}': 'another address of the carrier API is --carrier-base-url',
  '/paths/~1api~1orders':
    'the spec states that `/orders…` and `/api/orders…` are the same endpoints: the marker decides only how the document lists them, which no service chooses',
  '/components/headers/Retry-After': 'the suite provokes no throttling or 503, so the header is never read',
  '/components/responses/TooManyRequests': 'the suite provokes no throttling: a rate-limit answer is never seen',
  '/components/responses/ServerError': 'a 5xx fails every profile: there is no correct service that answers one',
  '/components/responses/PayloadTooLarge': 'the suite sends no oversized body to a service it does not own',
  '/components/responses/CallbackAcknowledged':
    "the carrier's answer to a callback: restoapi-contract carrier checks a carrier, the service never answers it",
  '/components/responses/CallbackNotAcknowledged':
    "the carrier's refusal of a callback and the retries it causes: retries happen on the service's own clock, over hours",
  '/webhooks/order_created/post/x-carrier-timing/delivery':
    "a carrier's timing, checked by restoapi-contract carrier: the service's answers do not show it",
  '/webhooks/order_created/post/x-carrier-timing/positions':
    "a carrier's timing, checked by restoapi-contract carrier: the service's answers do not show it",
  '/webhooks/order_created/post/x-carrier-timing/cancellation':
    "a carrier's timing, checked by restoapi-contract carrier: the service's answers do not show it",
  '/components/parameters/WebhookId':
    'the optional callback signature, sent only to a carrier that registered a secret through support; the suite registers none',
  '/components/parameters/WebhookSignature':
    'the optional callback signature, sent only to a carrier that registered a secret through support; the suite registers none',
  '/components/parameters/WebhookTimestamp':
    'the optional callback signature, sent only to a carrier that registered a secret through support; the suite registers none',
};

/** Every `x-decision` marker of the document, by pointer. */
export function decisionMarkers(): string[] {
  return listDecisions(openapiDocument).map((decision) => decision.pointer);
}

/** The departures of the harness (hand-made and generated) that depart from each marker. */
export function departuresByMarker(): Map<string, string[]> {
  const out = new Map<string, string[]>();
  const all: [string, { decision: string; also?: readonly string[] }][] = [
    ...DEPARTURE_NAMES.map((name) => [name, DEPARTURES[name]] as [string, { decision: string }]),
    ...Object.entries(FAMILY_DEPARTURES),
  ];
  for (const [name, departure] of all)
    for (const pointer of [departure.decision, ...(departure.also ?? [])])
      out.set(pointer, [...(out.get(pointer) ?? []), name]);
  return out;
}

/**
 * The clauses whose rule a mutant can break: every clause that says more than "not shown", but those whose rule
 * no client can observe (clause-mutants.ts, listed with the reason).
 */
export function checkableClauses(): string[] {
  return CLAUSES.filter((clause) => !clause.notShown && !UNCHECKABLE_CLAUSES[clause.id]).map((clause) => clause.id);
}

/** The mutants `spec` kills that break each clause. */
export function mutantsByClause(): Map<string, string[]> {
  const out = new Map<string, string[]>();
  const add = (clause: string, mutant: string): void => void out.set(clause, [...(out.get(clause) ?? []), mutant]);
  const generated = [...STATED_MUTANTS, ...statedFieldMutants(), ...endpointMutants(checkableClauses())];
  for (const mutant of [...generated, ...clauseMutants(checkableClauses())])
    for (const clause of mutant.clauses) add(clause, mutant.id);
  for (const [mutant, clauses] of Object.entries(SPEC_KILLED_MUTANTS))
    for (const clause of clauses) add(clause, mutant);
  return out;
}

/** The field mutants of every clause (stated-mutants.ts). */
function statedFieldMutants(): ReturnType<typeof fieldMutants> {
  return fieldMutants(CLAUSES.map((clause) => clause.id));
}

/** The coverage lines the suite prints: departures over markers, mutants over checkable clauses. */
export function coverageReport(): string {
  const markers = decisionMarkers();
  const departed = departuresByMarker();
  const withDeparture = markers.filter((pointer) => departed.has(pointer));
  const reasoned = markers.filter((pointer) => !departed.has(pointer) && NO_DEPARTURE[pointer]);
  const open = markers.filter((pointer) => !departed.has(pointer) && !NO_DEPARTURE[pointer]);
  const clauses = checkableClauses();
  const killed = mutantsByClause();
  const broken = clauses.filter((clause) => killed.has(clause));
  return [
    `departures  ${withDeparture.length}/${markers.length} x-decision markers have a departure (${DEPARTURE_NAMES.length} departures and ${Object.keys(FAMILY_DEPARTURES).length} generated); ${reasoned.length} have none by reason, ${open.length} none yet`,
    ...reasoned.map((pointer) => `  no departure: ${pointer}: ${NO_DEPARTURE[pointer]}`),
    `mutants     ${broken.length}/${clauses.length} checkable clauses broken by a mutant that spec kills (${STATED_MUTANTS.length + statedFieldMutants().length + endpointMutants(clauses).length + clauseMutants(clauses).length + Object.keys(SPEC_KILLED_MUTANTS).length} mutants); ${Object.keys(UNCHECKABLE_CLAUSES).length} stated clauses not checkable by reason`,
    ...Object.entries(UNCHECKABLE_CLAUSES).map(([clause, why]) => `  not checkable: ${clause}: ${why}`),
  ].join('\n');
}
