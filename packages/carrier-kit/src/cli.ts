#!/usr/bin/env node
/**
 * restoapi-carrier: command-line tools of the carrier kit. `simulate` runs a simulated carrier against
 * the mock server.
 */
import { createProgram, reportCliError } from './simulator/cli-program.js';

createProgram()
  .parseAsync(process.argv)
  .catch((error: unknown) => process.exit(reportCliError(error)));
