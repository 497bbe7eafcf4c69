#!/usr/bin/env node
// `pnpm release`: build, apply the pending changesets (versions and changelogs), then publish every
// public workspace package with npm provenance (`pnpm publish -r --provenance`, which needs CI's
// OIDC token). `pnpm release --dry-run` (what CI runs) changes nothing and writes to no registry:
// it checks the changesets (`changeset status`), builds, and runs the same publish with
// `--dry-run`, so a package that would not pack or publish fails CI, not the release.
import { spawnSync } from 'node:child_process';

const dryRun = process.argv.includes('--dry-run');
const PNPM = ['npx', '-y', 'pnpm@12.4.2'];

function step(name, command, args) {
  console.log(`::: release: ${name}`);
  const ran = spawnSync(command, args, { stdio: 'inherit' });
  if (ran.status !== 0) {
    console.error(`release: ${name} failed (exit ${ran.status ?? ran.signal})`);
    process.exit(ran.status || 1);
  }
}

step('build', PNPM[0], [...PNPM.slice(1), 'build']);
if (dryRun) step('changesets (status)', 'npx', ['changeset', 'status', '--verbose']);
else step('changesets (version)', 'npx', ['changeset', 'version']);
const publish = ['publish', '-r', '--access', 'public', '--provenance'];
// A dry run publishes from a checkout with changes (the build's outputs, a version applied by hand).
if (dryRun) publish.push('--dry-run', '--no-git-checks');
step(dryRun ? 'publish (dry run)' : 'publish', PNPM[0], [...PNPM.slice(1), ...publish]);
