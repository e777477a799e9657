import { readFile } from 'node:fs/promises';
import { Ajv2020 } from 'ajv/dist/2020.js';
import configSchema from '../config.schema.json' with { type: 'json' };

/** The roles the suite logs in as. */
export type Role = 'dispatcher' | 'staffMember' | 'courier' | 'otherCourier' | 'foreignStaffMember';

export const ROLES: readonly Role[] = ['dispatcher', 'staffMember', 'courier', 'otherCourier', 'foreignStaffMember'];

/**
 * Login and password, or an API key (Authentication 2). How the key is sent is not shown: the decided
 * `api_key` parameter, or the header `apiKeyHeader` names.
 */
export type Credentials = { login: string; password: string } | { apiKey: string; apiKeyHeader?: string };

/** A point, latitude and longitude. */
export interface Point {
  lat: number;
  lon: number;
}

/** The configuration file (schema: `config.schema.json`). */
export interface ContractConfig {
  $schema?: string;
  accounts: {
    dispatcher: Credentials;
    staffMember: Credentials;
    courier: Credentials;
    otherCourier?: Credentials;
    foreignStaffMember?: Credentials;
  };
  organization: { id: number; restaurantIds?: number[] };
  foreignOrganization?: { id: number };
  capabilities?: {
    controlApi?: boolean | string;
    resetBetweenTests?: boolean;
    mutations?: boolean;
    menuImport?: boolean;
    carrierApi?: boolean;
  };
  carrier?: { secureId?: string; callbackHost?: string };
  locations?: { outsideZones?: Point };
  /**
   * `testMs` is a test's base budget, which grows by `perRequestMs` (default: measured from the service's round
   * trip at the start) for every request the test makes; see the README's "Budgets".
   */
  timeouts?: { testMs?: number; perRequestMs?: number; requestMs?: number; importMs?: number; callbackMs?: number };
  propertyRuns?: number;
  /** Model-based stateful tests: sequences per test and the longest sequence. */
  stateful?: { runs?: number; maxCommands?: number };
  /** Per-check switches (as Schemathesis' `[checks.<name>]`) and extra statuses per operation. */
  checks?: {
    not_a_server_error?: CheckSetting;
    status_code_conformance?:
      boolean | { enabled?: boolean; expectedStatuses?: Record<string, (number | `${1 | 2 | 3 | 4 | 5}xx`)[]> };
    content_type_conformance?: CheckSetting;
    response_schema_conformance?: CheckSetting;
    response_headers_conformance?: CheckSetting;
  };
  /** Decisions switched off, by `x-decision` pointer: departures from them are not reported. */
  decisions?: Record<string, false>;
  /** Request shapes the document decided where the spec allows others: the one this service takes. */
  requests?: {
    zoneBody?: 'bare' | 'wrapped';
    dishPrice?: 'string' | 'number';
    dishWeight?: 'number-or-string' | 'number' | 'string';
    orderImportBuddies?: 'as-documented' | 'named';
    /** `/api/draft_dishes`: both forms answer (decided), or only the one the spec writes per method. */
    draftDishesPath?: 'both' | 'as-written';
  };
}

/** A check on (`true`, the default) or off. */
export type CheckSetting = boolean | { enabled?: boolean };

/** The configuration with every default filled in. */
export interface ResolvedConfig extends ContractConfig {
  capabilities: {
    controlApi: string | undefined;
    resetBetweenTests: boolean;
    mutations: boolean;
    menuImport: boolean;
    carrierApi: boolean;
  };
  timeouts: { testMs: number; perRequestMs?: number; requestMs: number; importMs: number; callbackMs: number };
  propertyRuns: number;
  stateful: { runs: number; maxCommands: number };
  outsideZones: Point;
}

/** The JSON Schema of the configuration file. */
export const CONFIG_SCHEMA: Record<string, unknown> = configSchema as Record<string, unknown>;

let compiled:
  | (((value: unknown) => boolean) & { errors?: { instancePath: string; message?: string; params?: unknown }[] | null })
  | undefined;

/** Checks a configuration against the schema; returns readable problems (empty when valid). */
export function validateConfig(value: unknown): string[] {
  if (!compiled) {
    const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
    compiled = ajv.compile(CONFIG_SCHEMA);
  }
  if (compiled(value)) return [];
  return (compiled.errors ?? []).map(
    (e) =>
      `${e.instancePath || '(root)'} ${e.message ?? 'is invalid'}${e.params ? ` ${JSON.stringify(e.params)}` : ''}`,
  );
}

/** Reads and validates a configuration file. */
export async function loadConfig(file: string): Promise<ContractConfig> {
  let value: unknown;
  try {
    value = JSON.parse(await readFile(file, 'utf8'));
  } catch (error) {
    throw new Error(`cannot read the configuration ${file}: ${(error as Error).message}`);
  }
  const problems = validateConfig(value);
  if (problems.length > 0) throw new Error(`invalid configuration ${file}:\n  ${problems.join('\n  ')}`);
  return value as ContractConfig;
}

/** Fills in the defaults; `baseUrl` locates a control API given as `true`. */
export function resolveConfig(config: ContractConfig, baseUrl: string): ResolvedConfig {
  const problems = validateConfig(config);
  if (problems.length > 0) throw new Error(`invalid configuration:\n  ${problems.join('\n  ')}`);
  const caps = config.capabilities ?? {};
  const control =
    caps.controlApi === true
      ? `${baseUrl.replace(/\/$/, '')}/__mock`
      : typeof caps.controlApi === 'string'
        ? caps.controlApi.replace(/\/$/, '')
        : undefined;
  return {
    ...config,
    capabilities: {
      controlApi: control,
      resetBetweenTests: caps.resetBetweenTests ?? true,
      mutations: caps.mutations ?? true,
      menuImport: caps.menuImport ?? control !== undefined,
      carrierApi: caps.carrierApi ?? true,
    },
    timeouts: {
      testMs: config.timeouts?.testMs ?? 30_000,
      ...(config.timeouts?.perRequestMs !== undefined ? { perRequestMs: config.timeouts.perRequestMs } : {}),
      requestMs: config.timeouts?.requestMs ?? 10_000,
      importMs: config.timeouts?.importMs ?? 20_000,
      callbackMs: config.timeouts?.callbackMs ?? 5_000,
    },
    propertyRuns: config.propertyRuns ?? 16,
    stateful: { runs: config.stateful?.runs ?? 20, maxCommands: config.stateful?.maxCommands ?? 16 },
    outsideZones: config.locations?.outsideZones ?? { lat: 0, lon: 0 },
  };
}
