#!/usr/bin/env node
// restoapi-contract: the published package runs its build (dist/cli.js). A checkout of the RestoAPI repository has
// src/ and runs the TypeScript source through tsx, so the command works right after npm install,
// before any build, and never runs a stale dist/.
import { existsSync } from 'node:fs';

const source = new URL('../src/cli.ts', import.meta.url);
if (existsSync(source)) await (await import('../../scripts/run-source-cli.mjs')).runSourceCli(source);
else await import('../dist/cli.js');
