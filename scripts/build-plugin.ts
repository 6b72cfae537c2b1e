#!/usr/bin/env -S npx tsx
// npm run build:plugin: the installable plugin for OpenClaw 2026.9+ in dist/plugin/ (src/ops/build-plugin.ts).
import fs from "node:fs";
import path from "node:path";
import { buildPlugin } from "../src/ops/build-plugin.ts";

const out = await buildPlugin();
const relative = path.relative(process.cwd(), out);
console.log(`built ${relative}/ (index.js ${fs.statSync(path.join(out, "index.js")).size} bytes); pack it with: cd ${relative} && npm pack`);
