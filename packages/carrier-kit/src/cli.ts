#!/usr/bin/env node
/**
 * restoapi-carrier: command-line tools of the carrier kit. `simulate` runs a simulated carrier against
 * the mock server.
 */
import { createProgram } from './simulator/cli-program.js';

createProgram()
  .parseAsync(process.argv)
  .catch((error: unknown) => {
    console.error(`restoapi-carrier: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  });
