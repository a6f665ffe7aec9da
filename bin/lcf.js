#!/usr/bin/env node
// The `lcf` command: the TypeScript sources run through tsx, as `npm start` does.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli/main.ts');
