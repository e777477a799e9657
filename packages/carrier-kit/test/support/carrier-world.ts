import { afterEach } from 'vitest';
import { createCarrierAgent, type CarrierAgent, type CarrierAgentOptions } from '../../src/index.js';
import { serve, type ServedReceiver } from '../../src/node.js';
import { startWorld, type World, type WorldService } from './world.js';

/** Options of the agent under test; `baseUrl` always points at the world's mock. */
export type AgentOptions = Omit<CarrierAgentOptions, 'baseUrl'>;

export interface CarrierWorldOptions {
  /** Options of the agent, or a function of the world when they depend on it (e.g. its virtual clock). */
  agent?: AgentOptions | ((world: World) => AgentOptions);
  /** Runs before `agent.start()`: the place for listeners that must not miss a single event. */
  beforeStart?: (agent: CarrierAgent) => void;
  /** The service: the mock (default) or the independent implementation in front of it. */
  service?: WorldService;
}

/** A mock world with a carrier agent started against it and the agent's receiver served on a free loopback port. */
export interface CarrierWorld {
  world: World;
  agent: CarrierAgent;
  served: ServedReceiver;
}

/**
 * Returns a function starting a {@link CarrierWorld} and registers an `afterEach` tearing it down again: the agent
 * first (so it stops retrying), then its receiver, then the mock. Whatever got started is torn down even when a test
 * fails half-way. The carrier is not registered with the mock: tests choose the callback URL (and secret, chaos).
 */
export function useCarrierWorld(): (options?: CarrierWorldOptions) => Promise<CarrierWorld> {
  let world: World | undefined;
  let agent: CarrierAgent | undefined;
  let served: ServedReceiver | undefined;

  afterEach(async () => {
    await agent?.stop();
    await served?.close();
    await world?.close();
    world = agent = served = undefined;
  });

  return async (options = {}) => {
    world = await startWorld(options.service ? { service: options.service } : {});
    const agentOptions = typeof options.agent === 'function' ? options.agent(world) : options.agent;
    agent = createCarrierAgent({ baseUrl: world.url, ...agentOptions });
    options.beforeStart?.(agent);
    await agent.start();
    served = await serve(agent.handle, { port: 0 });
    return { world, agent, served };
  };
}
