import { parseCommandLine, parseDeadline } from '../args';
import { Deadline } from '../deadline';
import { EXIT_OK, EXIT_REFUSED, painter, writeJson, type CliIO, type Command } from '../io';
import { forTerminal } from '../../terminal-text';
import { compareReplicas, type FileVerdict } from '../replicas/compare';
import { MAX_REPLICA_URLS, metricsUrls, readReplicas } from '../replicas/read';

/** The whole command's deadline: every replica is asked at once, each request within 5 s of it. */
const DEFAULT_DEADLINE_MS = 10_000;

const HELP = `Usage: cube-dual-auth replicas <metrics-url>... [--deadline <ms>] [--json]

Reads each Cube replica's metrics endpoint and compares what each holds of every file of the
secrets directory (api-secrets, sql-key-secrets, sql-keys-revoked, sql-password): which
replicas agree, and how each other one differs. From the cube_dual_auth_secret_* gauges
(docs/metrics.md, "What each replica holds"): where the value in force comes from (the file,
the environment, none), a fingerprint of it that tells contents apart and no secret, whether
the file is kept at its last good content, and how many changes were applied.

A replica differs when it is
  kept at its last good content    its file is invalid or vanished, since the time shown
  a generation behind              it holds other content and took fewer changes
  in force from the environment    no file replaces the variable there, where the others
                                   have the file
  holding other content            another fingerprint, not behind
  unreachable                      no answer in time, an answer other than 200, or no
                                   cube_dual_auth_secret_* metrics in it
Nothing of a secret is read or printed: the metrics hold none.

Arguments:
  <metrics-url>        a replica's metrics URL (CUBE_DUAL_AUTH_METRICS_PORT), e.g.
                       http://10.0.0.7:9464/metrics; without a path, /metrics is added.
                       One to ${MAX_REPLICA_URLS}, each read once, at the same time

Options:
  --deadline <ms>      deadline of the whole command (default ${DEFAULT_DEADLINE_MS}); each request
                       gets at most 5000 ms of it, a replica without an answer is unreachable;
                       each answer is read up to 1 MiB
  --json               print the result as JSON instead:
                       {"ok": boolean, "files": [{"file": string, "agree": boolean,
                        "inForce": {"source": string, "fingerprint": string,
                                    "generation": number|null}|null,
                        "agreeing": [string], "differing": [{"url": string, "how":
                          "kept"|"behind"|"source"|"other"|"computing"|"missing"|"unreachable",
                          "words": string, ...}]}]}
                       replicas are named by host:port (and path when it is not /metrics)

Exit status:
  0  every replica answered and holds the same of every file, none kept at its last good content
  1  a replica differs, keeps a file at its last good content, or is unreachable
  2  wrong command line: no URL, a URL that is not http(s) or holds credentials, one URL twice

Examples:
  cube-dual-auth replicas http://cube-0:9464 http://cube-1:9464 http://cube-2:9464
  kubectl get pods -l app=cube-api -o jsonpath='{range .items[*]}http://{.status.podIP}:9464 {end}' \\
    | xargs cube-dual-auth replicas
  cube-dual-auth replicas http://cube-0:9464 http://cube-1:9464 --json | jq '.files[] | select(.agree | not)'
`;

const OPTIONS = {
  deadline: { type: 'string' },
  json: { type: 'boolean', default: false },
} as const;

function printReport(verdicts: readonly FileVerdict[], count: number, io: CliIO): void {
  const paint = painter(io.stdout, io.env);
  const width = Math.max(...verdicts.map(({ file }) => file.length));
  const pad = ' '.repeat(width + 2);
  io.stdout.write(
    `Comparing what ${count} ${count === 1 ? 'replica holds' : 'replicas hold'} of each secrets file\n\n`,
  );
  for (const { file, agree, inForce, agreeing, differing } of verdicts) {
    const held =
      inForce === undefined
        ? 'nothing shown'
        : `${inForce.source}${inForce.fingerprint === '' ? '' : `, fingerprint ${inForce.fingerprint}`}${inForce.generation === undefined ? '' : `, generation ${inForce.generation}`}`;
    const mark = agree ? paint('green', 'OK  ') : paint('red', 'DIFF');
    const who = agreeing.length === count ? 'all agree' : `${agreeing.length} of ${count} agree`;
    const names = agreeing.length === 0 || agreeing.length === count ? '' : `: ${agreeing.join(', ')}`;
    io.stdout.write(`  ${mark}  ${file.padEnd(width)}  ${who} (${held})${forTerminal(names)}\n`);
    for (const { url, words } of differing) io.stdout.write(`        ${pad}${forTerminal(`${url}: ${words}`)}\n`);
  }
  const failed = verdicts.filter(({ agree }) => !agree).map(({ file }) => file);
  io.stdout.write(
    `\n${failed.length === 0 ? paint('green', 'OK') : paint('red', 'FAIL')}: ${failed.length === 0 ? 'every replica holds the same of every file' : `the replicas differ on ${failed.join(', ')}`}\n`,
  );
}

/** A difference as `--json` prints it: a member that does not apply is null, never left out (docs/cli-output.md). */
const withNulls = (difference: FileVerdict['differing'][number]): Record<string, unknown> =>
  difference.how === 'kept'
    ? { ...difference, since: difference.since ?? null }
    : difference.how === 'behind' || difference.how === 'other'
      ? { ...difference, generation: difference.generation ?? null }
      : difference;

async function run(argv: readonly string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseCommandLine(argv, { options: OPTIONS });
  const urls = metricsUrls(positionals, '<metrics-url>');
  const deadline = new Deadline(parseDeadline(values.deadline, DEFAULT_DEADLINE_MS), io.timers);
  const answers = await readReplicas(urls, { env: io.env, deadline }).finally(() => deadline.dispose());
  const verdicts = compareReplicas(answers);
  const ok = verdicts.every(({ agree }) => agree);
  if (values.json) {
    const files = verdicts.map((verdict) => ({
      ...verdict,
      inForce:
        verdict.inForce === undefined ? null : { ...verdict.inForce, generation: verdict.inForce.generation ?? null },
      differing: verdict.differing.map(withNulls),
    }));
    writeJson(io.stdout, { ok, files });
  } else printReport(verdicts, urls.length, io);
  return ok ? EXIT_OK : EXIT_REFUSED;
}

export const replicas: Command = { help: HELP, run };
