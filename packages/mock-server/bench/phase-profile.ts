/**
 * Where a server's time goes per request, from a CPU profile of this process taken while a load runs
 * (node:inspector, the profile `--cpu-prof` writes, processed here instead of by hand). Every sample is put in
 * one phase by its stack: from the sampled function up to the request listener, the first frame of the
 * mock's own code (or the openapi package's) names the phase; node's internals, ajv's generated validators
 * and library code in between are looked through, so `Buffer.from` called by the adapter counts as the
 * adapter and an ajv validator called by `validateRequest` as validation. A sample with no frame of ours is
 * node's HTTP machinery (parser, sockets, timers), the garbage collector or native code.
 *
 * The shares of the profile are turned into µs with the server's CPU per request measured in the same run
 * without the profiler (which costs a few per cent itself), so the phases add up to the row's figure.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';
import { join } from 'node:path';

/** The phases a request's CPU time is split into, in the order a request meets them. */
export const PHASES = [
  'adapter',
  'routing',
  'auth',
  'parsing',
  'validation',
  'handler',
  'serialisation',
  'engine',
  'node:http',
  'gc',
  'native',
] as const;
/** One of {@link PHASES}. */
export type Phase = (typeof PHASES)[number];

/** What each phase holds, printed under the breakdown so that a reader knows what a figure counts. */
export const PHASE_MEANING: Record<Phase, string> = {
  adapter: 'node:http ⇄ engine: URL, header reader, CORS, writing the head and body (src/node.ts, cors/)',
  routing: 'matching method and path to an operation (openapi operations.ts, pipeline route)',
  auth: 'reading the token and finding the session (session/)',
  parsing: 'reading the body: size checks, media type, strict UTF-8, JSON.parse (engine/request-body.ts)',
  validation: 'parameters and body against the document (openapi validators, strict parameters, ajv)',
  handler: "the operation's own work: lookups, rules, indexes, stored rows",
  serialisation: 'the answer as JSON text or bytes: order JSON cache, JSON.stringify, respond',
  engine: 'request id, hooks, the pipeline between steps (engine.ts, pipeline run)',
  'node:http': "node's HTTP parser, sockets, streams and timers (no frame of ours on the stack)",
  gc: 'garbage collector',
  native: 'native code outside JS ((program): libuv, syscalls)',
};

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}

interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
  parent?: number;
}

/** A V8 CPU profile (`.cpuprofile`). */
export interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const SERIALISATION = new Set([
  'respond',
  'jsonAnswer',
  'orderJson',
  'orderJsonBytes',
  'orderResponseJson',
  'publicOrder',
  'concatBytes',
  'JsonText',
  'get text',
]);
const ROUTING = new Set(['route', 'routeFrom', 'routeToApi', 'matchIn']);
const HANDLER_STEPS = new Set(['handle', 'call', 'changedAfter', 'Context']);

/** The phase a frame of our own code names, or undefined for a frame to look through. */
function phaseOfFrame({ functionName, url }: CallFrame): Phase | undefined {
  if (!url.startsWith('file://') || url.includes('/node_modules/')) return undefined;
  if (SERIALISATION.has(functionName)) return 'serialisation';
  if (url.includes('/openapi/src/')) {
    if (url.endsWith('/operations.ts')) return 'routing';
    if (url.endsWith('/media-type.ts')) return 'parsing';
    return 'validation';
  }
  if (url.endsWith('/bench/floor-servers.ts')) {
    // The floors do their work inline in their listeners: all of it reads as their handler but the token and the write.
    if (functionName === 'tokenOf') return 'auth';
    if (functionName === 'send') return 'adapter';
    return 'handler';
  }
  if (!url.includes('/mock-server/src/')) return undefined;
  if (url.endsWith('/src/node.ts') || url.includes('/src/cors/')) return 'adapter';
  if (url.includes('/src/session/') || url.includes('/src/sessions/')) return 'auth';
  if (url.endsWith('/engine/request-body.ts')) return 'parsing';
  if (url.endsWith('/engine/engine-request.ts')) return 'adapter';
  if (url.endsWith('/engine/pipeline.ts')) {
    if (ROUTING.has(functionName)) return 'routing';
    if (functionName === 'authenticate') return 'auth';
    if (functionName === 'readBody') return 'parsing';
    if (functionName === 'validate') return 'validation';
    if (HANDLER_STEPS.has(functionName)) return 'handler';
    return 'engine';
  }
  if (url.includes('/src/engine/')) return url.endsWith('/handler.ts') ? 'handler' : 'engine';
  return 'handler';
}

/** A label of a function for the top self-time lists: `name (file:line)`. */
function label({ functionName, url, lineNumber }: CallFrame): string {
  const file = url === '' ? '(generated)' : url.replace(/^.*\/(?:src|lib|bench)\//, '').replace(/^node:/, 'node:');
  // Lines only for node's own modules: tsx hands V8 transformed sources, whose lines are not the files'.
  return `${functionName || '(anonymous)'} ${file}${url.startsWith('node:') ? `:${lineNumber + 1}` : ''}`;
}

/** Per phase: the share of the busy samples, and the functions that spent them (self time), largest first. */
export interface PhaseBreakdown {
  /** Samples in which the thread was busy (not idle). */
  busySamples: number;
  share: Record<Phase, number>;
  top: Record<Phase, { name: string; share: number }[]>;
}

/** Splits a profile's busy samples into {@link PHASES}. */
export function phasesOf(profile: CpuProfile): PhaseBreakdown {
  const byId = new Map<number, ProfileNode>();
  for (const node of profile.nodes) byId.set(node.id, node);
  for (const node of profile.nodes) for (const child of node.children ?? []) byId.get(child)!.parent = node.id;
  const phaseOfNode = new Map<number, Phase | null>();
  const resolve = (node: ProfileNode): Phase | null => {
    const known = phaseOfNode.get(node.id);
    if (known !== undefined) return known;
    const name = node.callFrame.functionName;
    let phase: Phase | null;
    if (name === '(idle)') phase = null;
    else if (name === '(garbage collector)') phase = 'gc';
    else if (name === '(program)') phase = 'native';
    else
      phase =
        phaseOfFrame(node.callFrame) ?? (node.parent === undefined ? 'node:http' : resolve(byId.get(node.parent)!));
    phaseOfNode.set(node.id, phase);
    return phase;
  };
  const counts = Object.fromEntries(PHASES.map((p) => [p, 0])) as Record<Phase, number>;
  const self = new Map<Phase, Map<string, number>>();
  let busy = 0;
  for (const id of profile.samples) {
    const node = byId.get(id)!;
    const phase = resolve(node);
    if (phase === null) continue;
    busy++;
    counts[phase]++;
    const names = self.get(phase) ?? new Map<string, number>();
    self.set(phase, names);
    const name = label(node.callFrame);
    names.set(name, (names.get(name) ?? 0) + 1);
  }
  const share = Object.fromEntries(PHASES.map((p) => [p, busy === 0 ? 0 : counts[p] / busy])) as Record<Phase, number>;
  const top = Object.fromEntries(
    PHASES.map((p) => [
      p,
      [...(self.get(p) ?? new Map<string, number>())]
        .sort((a, b) => b[1] - a[1])
        .slice(0, Number(process.env.TOPN ?? 4))
        .map(([name, n]) => ({ name, share: n / busy })),
    ]),
  ) as PhaseBreakdown['top'];
  return { busySamples: busy, share, top };
}

/**
 * Runs `work` (a load on a server of this process) under the CPU profiler and returns its result with the
 * profile. With `BENCH_PROFILE_DIR` set, the profile is also written there as `<name>.cpuprofile`.
 */
export async function profiled<T>(name: string, work: () => Promise<T>): Promise<{ result: T; profile: CpuProfile }> {
  const session = new Session();
  session.connect();
  try {
    await session.post('Profiler.enable');
    await session.post('Profiler.setSamplingInterval', { interval: 100 });
    await session.post('Profiler.start');
    const result = await work();
    const { profile } = (await session.post('Profiler.stop')) as { profile: CpuProfile };
    const dir = process.env.BENCH_PROFILE_DIR;
    if (dir) {
      await mkdir(dir, { recursive: true });
      await writeFile(join(dir, `${name}.cpuprofile`), JSON.stringify(profile));
    }
    return { result, profile };
  } finally {
    session.disconnect();
  }
}

/**
 * The breakdown as lines: µs per request per phase (the share of the profile times `cpuUs`, the server's CPU
 * per request measured without the profiler), with the functions that spend the most in each phase.
 */
export function breakdownLines(who: string, breakdown: PhaseBreakdown, cpuUs: number, topPerPhase = 2): string[] {
  const lines = [
    `  where ${who}'s ${cpuUs.toFixed(0)} µs/req go (CPU profile, ${breakdown.busySamples} busy samples):`,
  ];
  for (const phase of PHASES) {
    const share = breakdown.share[phase];
    if (share < 0.005) continue;
    const tops = breakdown.top[phase]
      .slice(0, topPerPhase)
      .map((t) => `${t.name} ${(t.share * cpuUs).toFixed(1)}`)
      .join('; ');
    lines.push(
      `    ${phase.padEnd(13)} ${(share * cpuUs).toFixed(1).padStart(6)} µs ${(share * 100).toFixed(0).padStart(3)}%  ${tops}`,
    );
  }
  return lines;
}
