// What `npm run demo -- --keep-running` leaves for trying the CLI against its Cube: files only you can read (the API
// secret, tokens), and the commands that use them.
import { chmodSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/** Characters a value may have to stand unquoted, meaning the same, in a POSIX shell and in a dotenv file. */
const PLAIN_VALUE = /^[\w.:/@%+=,~-]*$/;
const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Writes `content` to a new file of mode 0600. An older file is removed first rather than overwritten, so the
 * content is never readable through the older file's mode, even for a moment.
 * @param {string} file
 * @param {string} content
 */
export function writePrivateFile(file, content) {
  mkdirSync(dirname(file), { recursive: true });
  rmSync(file, { force: true });
  writeFileSync(file, content, { mode: 0o600, flag: 'wx' });
  // The umask can only take bits away; this makes it exactly 0600.
  chmodSync(file, 0o600);
  return file;
}

/**
 * `NAME=value` lines, which `set -a; . <file>` exports and dotenv readers (node --env-file, docker --env-file) read
 * alike. Refuses a value that would need quoting rather than risk a shell reading it differently.
 * @param {Record<string, string>} variables
 * @param {string[]} [comments]  lines written first, as `# …`
 */
export function demoEnvText(variables, comments = []) {
  const lines = Object.entries(variables).map(([name, value]) => {
    if (!VARIABLE_NAME.test(name)) throw new Error(`demo.env: ${JSON.stringify(name)} is not a variable name`);
    if (!PLAIN_VALUE.test(value))
      throw new Error(`demo.env: the value of ${name} has characters a shell would read differently`);
    return `${name}=${value}`;
  });
  return [...comments.map((comment) => `# ${comment}`), ...lines, ''].join('\n');
}

/**
 * Writes the demo's environment file (mode 0600).
 * @param {string} file
 * @param {Record<string, string>} variables
 */
export function writeDemoEnv(file, variables) {
  return writePrivateFile(
    file,
    demoEnvText(variables, [
      "The environment the demo's Cube authenticates with (the API secret included), and where its API is.",
      'Written by `npm run demo -- --keep-running`, removed when it stops. Load it with: set -a; . <this file>; set +a',
    ]),
  );
}

/** The variable of demo.env that holds the Cube REST base URL. */
export const CUBE_API_URL = 'CUBE_API_URL';

/**
 * The commands that try the CLI against the running demo, with comments, one per line, to print.
 * @param {object} paths  as the user should type them (relative to the current directory)
 * @param {string} paths.envFile
 * @param {string} paths.serviceTokenFile
 * @param {string} paths.customerTokenFile
 * @param {object} serviceClaims  the security context the service signs
 * @param {string} [cli]  how to run the CLI
 */
export function demoCliCommands(
  { envFile, serviceTokenFile, customerTokenFile },
  serviceClaims,
  cli = 'npx cube-dual-auth',
) {
  const claims = `'${JSON.stringify(serviceClaims)}'`;
  return [
    `# load the demo's environment (API secret, JWKS URL, ${CUBE_API_URL}) into this shell`,
    `set -a; . ${envFile}; set +a`,
    '# check the running Cube from outside, as the embedding service and the app call it',
    `${cli} probe "$${CUBE_API_URL}" --claims ${claims} --token-file ${customerTokenFile}`,
    '# how the hook judges each token',
    `${cli} verify - --origin < ${serviceTokenFile}`,
    `${cli} verify - < ${customerTokenFile}`,
    "# mint a service token signed with this Cube's secret",
    `${cli} token --claims ${claims}`,
  ];
}
