import type { components } from '@restoapi/openapi';
import { tooLarge, type FieldProblem } from '../engine/http-error.js';
import type { MockRuntime } from '../engine/runtime.js';
import type { ClientRecord, ImportJobRecord } from '../state/mock-state.js';
import { registerImportKind } from './import-jobs.js';

type S = components['schemas'];
type ImportClient = S['ClientImportClient'];

/** 413 when the import holds more clients than `maxImportRecords` (decided: 10,000). */
export function assertClientImportSize(runtime: MockRuntime, body: S['ClientImport']): void {
  const limit = runtime.config.maxImportRecords;
  if (body.clients.length > limit)
    throw tooLarge(`A client import may hold at most ${limit} clients; this one has ${body.clients.length}.`, {
      pointer: '/clients',
    });
}

/** Whether a `dd/mm/yyyy` string (already matching the pattern) is a real calendar date. */
export function isCalendarDate(ddmmyyyy: string): boolean {
  const [day, month, year] = ddmmyyyy.split('/').map(Number) as [number, number, number];
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

/**
 * The checks JSON Schema cannot make, run at submission (decided): `external_id`
 * unique within `clients`, `birthdate` a real calendar date.
 */
export function clientImportProblems(body: S['ClientImport']): FieldProblem[] {
  const problems: FieldProblem[] = [];
  const seen = new Map<string, number>();
  body.clients.forEach((client, i) => {
    const same = seen.get(client.external_id);
    if (same !== undefined) {
      problems.push({
        pointer: `/clients/${i}/external_id`,
        code: 'invalid_value',
        detail: `external_id "${client.external_id}" is already used by /clients/${same}.`,
      });
    } else seen.set(client.external_id, i);
    if (client.birthdate !== undefined && !isCalendarDate(client.birthdate)) {
      problems.push({
        pointer: `/clients/${i}/birthdate`,
        code: 'invalid_value',
        detail: `birthdate ${client.birthdate} is not a calendar date.`,
      });
    }
  });
  return problems;
}

/** The fields of an import entry that were sent, in the record's shape. */
function sentFields(client: ImportClient): Partial<ClientRecord> {
  const out: Partial<ClientRecord> = {};
  if (client.name !== undefined) out.name = client.name;
  if (client.email !== undefined) out.email = client.email;
  if (client.gender !== undefined) out.gender = client.gender;
  if (client.birthdate !== undefined) out.birthdate = client.birthdate;
  if (client.registered_at !== undefined) out.registered_at = client.registered_at;
  if (client.comment !== undefined) out.comment = client.comment;
  // Lists replace the whole stored list (decided).
  if (client.addresses !== undefined) out.addresses = [...client.addresses];
  if (client.phone_numbers !== undefined) out.phone_numbers = [...client.phone_numbers];
  if (client.tags !== undefined) out.tags = [...client.tags];
  if (client.is_blacklisted !== undefined) out.is_blacklisted = client.is_blacklisted;
  return out;
}

/**
 * Applies a validated client import (decided): with `from_scratch`, every
 * client of the organization that has an `external_id` (created by an import)
 * is deleted first, storefront clients stay; then clients are matched by
 * `external_id`: known ones get the sent fields, others are created.
 */
export function applyClientImport(runtime: MockRuntime, job: ImportJobRecord): string {
  const { state } = runtime;
  const organizationId = job.organization_id;
  const body = job.payload as S['ClientImport'];
  if (!state.organizations.has(organizationId)) throw new Error(`Organization ${organizationId} no longer exists.`);
  let deleted = 0;
  if (job.options.from_scratch) {
    for (const client of state.clients.filter((c) => c.organization_id === organizationId && c.external_id !== null)) {
      state.clients.delete(client.id);
      deleted++;
    }
  }
  let createdCount = 0;
  let updated = 0;
  for (const client of body.clients) {
    const known = state.clients.find(
      (c) => c.organization_id === organizationId && c.external_id === client.external_id,
    );
    if (known) {
      state.clients.put({ ...known, ...sentFields(client) });
      updated++;
    } else {
      state.clients.insert({
        organization_id: organizationId,
        external_id: client.external_id,
        name: '',
        email: null,
        gender: null,
        birthdate: null,
        registered_at: null,
        comment: null,
        addresses: [],
        phone_numbers: [],
        tags: [],
        is_blacklisted: false,
        ...sentFields(client),
      });
      createdCount++;
    }
  }
  const scratch = job.options.from_scratch ? ` ${deleted} previously imported client(s) were deleted first.` : '';
  return `Imported ${body.clients.length} clients: ${createdCount} created, ${updated} updated.${scratch}`;
}

registerImportKind('clients', {
  apply: applyClientImport,
  count: (payload) => (payload as S['ClientImport']).clients.length,
  noun: 'clients',
  title: 'client import',
});
