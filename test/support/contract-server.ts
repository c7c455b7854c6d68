/**
 * A local stand-in for the service, written from its interface text only (parts 2, 4, 5, 7, 8, 9).
 * Where the text says "not shown", the choice made here is marked ASSUMED; tests must not rely on
 * those choices being the real service's, only on the client coping with them.
 *
 * It records every request (after the fact, tests assert what was sent and how often) and can be
 * told to misbehave for the next N matching requests (status, dropped connection, silence).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { sign } from 'jsonwebtoken';

export const TAGS = ['development', 'staging', 'production'] as const;
type Tag = (typeof TAGS)[number];
const LABEL = /^v[1-9][0-9]*$/;
const SEMVER_WITH_V = /^v(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)$/;
const MAX_LISTED = 30;

export interface RecordedRequest {
  readonly method: string;
  /** Path without the query, as URL handling reads it (dot segments resolved). */
  readonly path: string;
  /** The request target exactly as it arrived (path and query, percent-encoding and all): what the client asked for. */
  readonly target: string;
  readonly headers: IncomingHttpHeaders;
  readonly rawBody: string;
  /** The body parsed as JSON, or `undefined` when empty or not JSON. */
  readonly body: unknown;
}

/** A misbehaviour for the next `times` matching requests. */
export interface Fault {
  readonly method?: string;
  /** Matches when the request path contains this string. */
  readonly path?: string;
  times: number;
  /**
   * `destroy`: drop the connection; `hang`: never answer; `stall-body`: send headers, then nothing;
   * `stream`: see {@link StreamedBody}; otherwise this status, body and headers.
   */
  readonly action:
    | 'destroy'
    | 'hang'
    | 'stall-body'
    | { stream: StreamedBody }
    | { status: number; body?: string; headers?: Record<string, string> };
}

/**
 * A large 200 answer, written as fast as the client reads it: `bytes` of a JSON list that is empty but
 * for white space. With `contentLength`, that length is announced; when it is more than `bytes`, the
 * server then waits for the client to close the connection.
 */
export interface StreamedBody {
  readonly bytes: number;
  readonly contentLength?: number;
}

/** What became of a streamed answer, as the server saw it. */
export interface StreamOutcome {
  /** Body bytes handed to the connection before the answer ended or the client closed it. */
  readonly sent: number;
  /** Whether all `bytes` were handed to the connection before the client closed it. */
  readonly complete: boolean;
}

interface StoredVersion {
  readonly label: string;
  readonly savedAt: string;
  readonly savedBy: string;
  readonly description: string;
}

interface Dashboard {
  readonly versions: StoredVersion[];
  readonly tags: Map<Tag, { version: string; updatedAt: string }>;
  /** Definitions set by a test, by label; the other versions answer the generated one. */
  readonly definitions: Map<string, Record<string, unknown>>;
}

export interface DataProvider {
  name: string;
  type: string;
  version: string;
  credentials: { secretKey: string; instanceUrl: string };
}

/** How the service reaches a Cube on its Core connection: the handbook does not say whether it sends Request-Origin. */
export interface CubeQuery {
  /** Send `Request-Origin: embeddable` with a standing token too (default true). */
  readonly origin?: boolean;
  /** The security context of a Cloud connection's per-request token (default `{}`). */
  readonly securityContext?: Record<string, unknown>;
}

/** A JWT's shape: three base64url parts, the first a JSON header naming `alg`. */
function isJwtShaped(value: string): boolean {
  const parts = value.split('.');
  if (parts.length !== 3) return false;
  try {
    return typeof JSON.parse(Buffer.from(parts[0] as string, 'base64url').toString('utf8')).alg === 'string';
  } catch {
    return false;
  }
}

/** Cube Cloud's API hosts, as docs/embeddable.md lists them. */
const CUBE_CLOUD_HOST = /\.(cubecloudapp|cubecloud)\.dev$/i;

export interface ContractServerOptions {
  /** The one valid workspace API key. */
  readonly apiKey: string;
  /** Return `credentials.secretKey` in data-provider records (to test that callers never print it). Default false. */
  readonly echoSecretKey?: boolean;
  /** Epoch milliseconds, read for the times the server writes (a tag's `updatedAt`). Default the real clock. */
  readonly clock?: () => number;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The error body. Its shape is not shown (part 7): ASSUMED `{ errorCode, errorMessage }`. */
function refuse(res: ServerResponse, status: number, message: string, code?: string): void {
  send(res, status, { ...(code && { errorCode: code }), errorMessage: message });
}

function send(res: ServerResponse, status: number, body?: unknown): void {
  if (body === undefined) {
    res.writeHead(status).end();
    return;
  }
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

export function definitionAt(label: string): Record<string, unknown> {
  return {
    name: 'sales-overview',
    title: `Sales overview (${label})`,
    variables: [{ name: 'period', type: 'timeRange', defaultValue: { from: '2024-01-01', to: '2024-01-31' } }],
    datasets: [
      {
        name: 'orders',
        model: 'orders',
        filters: [{ member: 'orders.createdAt', operator: 'inDateRange', value: 'period', valueType: 'VARIABLE' }],
      },
    ],
    widgets: [
      {
        component: 'BarChart',
        position: { x: 0, y: 0 },
        dimensions: { width: 6, height: 4 },
        inputs: [{ input: 'measure', inputType: 'measure', value: 'orders.count' }],
      },
    ],
    // A field the interface does not show: the client must keep it.
    layoutHints: { columns: 12 },
  };
}

export class ContractServer {
  readonly requests: RecordedRequest[] = [];
  readonly faults: Fault[] = [];
  readonly dashboards = new Map<string, Dashboard>();
  readonly dataProviders = new Map<string, DataProvider>();
  readonly issuedTokens: Array<Record<string, unknown>> = [];
  /** One per streamed answer, in order; each settles when its connection is done with. */
  readonly streamed: Array<Promise<StreamOutcome>> = [];
  baseUrl = '';
  /**
   * The handbook's Cube Core page: "Embeddable requires a JWT, not the raw CUBEJS_API_SECRET". When true, a data
   * provider whose instanceUrl is not Cube Cloud's must be given a JWT-shaped secretKey (ASSUMED: 400 otherwise).
   */
  coreRequiresJwt = false;
  private readonly server: Server;

  constructor(private readonly options: ContractServerOptions) {
    this.server = createServer((req, res) => {
      void this.handle(req, res);
    });
    // As the identity provider's (scripts/lib/identity-provider.mjs): idle connections are the client's to close.
    this.server.keepAliveTimeout = 0;
  }

  async listen(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.baseUrl = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** Adds a dashboard with `count` saved versions v1..v<count>, saved one minute apart. Returns its UUID. */
  addDashboard(count: number, id: string = randomUUID()): string {
    const start = Date.parse('2024-03-01T09:00:00.000Z');
    const versions = Array.from({ length: count }, (_, i) => ({
      label: `v${i + 1}`,
      savedAt: new Date(start + i * 60_000).toISOString(),
      savedBy: `author${(i % 3) + 1}@example.com`,
      description: `Change number ${i + 1}`,
    }));
    this.dashboards.set(id, { versions, tags: new Map(), definitions: new Map() });
    return id;
  }

  /** Sets the definition (part 2.3) that saved version `label` of dashboard `id` answers with (part 4.3). */
  setDefinition(id: string, label: string, definition: Record<string, unknown>): void {
    const dashboard = this.dashboards.get(id);
    if (!dashboard?.versions.some((v) => v.label === label)) throw new Error(`no saved version ${label} of ${id}`);
    dashboard.definitions.set(label, definition);
  }

  /** Makes the next `times` requests matching `method`/`path` misbehave. */
  fail(fault: Fault): void {
    this.faults.push(fault);
  }

  /** The recorded requests whose method matches and whose path contains `path`. */
  requestsTo(method: string, path: string): RecordedRequest[] {
    return this.requests.filter((r) => r.method === method && r.path.includes(path));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const rawBody = Buffer.concat(chunks).toString('utf8');
    let body: unknown;
    try {
      body = rawBody === '' ? undefined : JSON.parse(rawBody);
    } catch {
      body = undefined;
    }
    const target = req.url ?? '/';
    const path = new URL(target, 'http://x').pathname;
    const method = req.method ?? 'GET';
    this.requests.push({ method, path, target, headers: req.headers, rawBody, body });

    const fault = this.faults.find(
      (f) => f.times > 0 && (!f.method || f.method === method) && (!f.path || path.includes(f.path)),
    );
    if (fault) {
      fault.times -= 1;
      if (fault.action === 'destroy') return void req.socket.destroy();
      if (fault.action === 'hang') return;
      if (fault.action === 'stall-body')
        return void res.writeHead(200, { 'content-type': 'application/json' }).write('{"tags":');
      if ('stream' in fault.action) return void this.streamed.push(stream(res, fault.action.stream));
      return void res.writeHead(fault.action.status, fault.action.headers).end(fault.action.body ?? '');
    }

    // Part 5: every call carries `Authorization: Bearer <API_KEY>`; missing or invalid gives 401 BUILDER-998.
    if (req.headers.authorization !== `Bearer ${this.options.apiKey}`) {
      return refuse(res, 401, 'API key missing or invalid', 'BUILDER-998');
    }
    if (rawBody !== '' && body === undefined) return refuse(res, 400, 'body is not JSON');
    let parts: string[];
    try {
      parts = path.split('/').slice(1).map(decodeURIComponent);
    } catch {
      return refuse(res, 400, 'malformed percent-encoding in the path');
    }
    this.route(method, parts, body, res);
  }

  private route(method: string, parts: string[], body: unknown, res: ServerResponse): void {
    const [api, v1, resource, id, sub, version, action] = parts;
    if (api !== 'api' || v1 !== 'v1') return refuse(res, 404, 'no such route');
    if (resource === 'embeddables' && id !== undefined && sub === 'saved-versions') {
      if (method === 'GET' && version === undefined) return this.listVersions(id, res);
      if (method === 'GET' && version !== undefined && action === 'metadata' && parts.length === 7)
        return this.metadata(id, version, res);
      if (method === 'POST' && version !== undefined && action === 'publish' && parts.length === 7)
        return this.publish(id, version, body, res);
    }
    if (resource === 'data-providers' && parts.length <= 4) {
      if (method === 'POST' && id === undefined) return this.createProvider(body, res);
      if (method === 'PUT' && id !== undefined) return this.updateProvider(id, body, res);
      // ASSUMED paths for list, read, delete (part 4.6 does not show them).
      if (method === 'GET' && id === undefined)
        return send(
          res,
          200,
          [...this.dataProviders.values()].map((p) => this.record(p)),
        );
      if (method === 'GET' && id !== undefined) return this.readProvider(id, res);
      if (method === 'DELETE' && id !== undefined) return this.deleteProvider(id, res);
    }
    if (resource === 'security-token' && parts.length === 3 && method === 'POST') return this.securityToken(body, res);
    return refuse(res, 404, 'no such route');
  }

  /** Part 4.1: tag map with `updated-at`, last 30 saved versions newest first by saved-at. */
  private listVersions(id: string, res: ServerResponse): void {
    const dashboard = this.dashboards.get(id);
    if (!dashboard) return refuse(res, 404, 'no such dashboard'); // ASSUMED: no code shown
    const tags = Object.fromEntries(
      [...dashboard.tags].map(([tag, t]) => [tag, { version: t.version, 'updated-at': t.updatedAt }]),
    );
    const newestFirst = [...dashboard.versions].sort((a, b) => b.savedAt.localeCompare(a.savedAt)).slice(0, MAX_LISTED);
    send(res, 200, {
      tags,
      'saved-versions': newestFirst.map((v) => ({
        version: v.label,
        'saved-by': v.savedBy,
        description: v.description,
        'saved-at': v.savedAt,
        'components-version': '2024-02-01T00:00:00.000Z',
        'models-version': '2024-02-02T00:00:00.000Z',
        'cube-version': '1.2.3',
      })),
    });
  }

  /** Part 4.3. */
  private metadata(id: string, version: string, res: ServerResponse): void {
    const dashboard = this.dashboards.get(id);
    if (!dashboard?.versions.some((v) => v.label === version)) return refuse(res, 404, 'no such saved version'); // ASSUMED: no code shown for metadata
    send(res, 200, dashboard.definitions.get(version) ?? definitionAt(version));
  }

  /** Part 4.2 and the part 7 table, checked in the table's order. */
  private publish(id: string, version: string, body: unknown, res: ServerResponse): void {
    if ((TAGS as readonly string[]).includes(version))
      return refuse(res, 400, `${version} is a tag, not a version`, 'BUILDER-172');
    const tags = isObject(body) ? body.tags : undefined;
    if (!Array.isArray(tags) || tags.length === 0) return refuse(res, 400, 'tags is empty or missing', 'BUILDER-996');
    if (!tags.every((t) => (TAGS as readonly unknown[]).includes(t)))
      return refuse(res, 404, 'invalid environment tag', 'BUILDER-117');
    const dashboard = this.dashboards.get(id);
    if (!dashboard || !LABEL.test(version) || !dashboard.versions.some((v) => v.label === version)) {
      return refuse(res, 404, 'saved version not found', 'BUILDER-120');
    }
    const now = new Date((this.options.clock ?? Date.now)()).toISOString();
    for (const tag of tags as Tag[]) {
      // Part 3: publishing the version a tag already points to leaves it unchanged (idempotent).
      if (dashboard.tags.get(tag)?.version !== version) dashboard.tags.set(tag, { version, updatedAt: now });
    }
    send(res, 200, {
      tags: Object.fromEntries(
        [...dashboard.tags].map(([tag, t]) => [tag, { version: t.version, updatedAt: t.updatedAt }]),
      ),
    });
  }

  /** Part 2.4 rules. Only the 400 for a bad version is shown; the other refusals are ASSUMED to be 400 too. */
  private providerProblem(body: Record<string, unknown>, creating: boolean): string | undefined {
    if (typeof body.version !== 'string' || !SEMVER_WITH_V.test(body.version))
      return 'version is missing or not vMAJOR.MINOR.PATCH';
    if (this.coreProblem(body)) return 'credentials.secretKey must be a JWT for Cube Core, not the raw API secret';
    if (!creating) return undefined;
    if (typeof body.name !== 'string' || body.name === '') return 'name is required';
    if (body.type !== 'cube') return 'type is required';
    const credentials = body.credentials;
    if (
      !isObject(credentials) ||
      typeof credentials.secretKey !== 'string' ||
      typeof credentials.instanceUrl !== 'string'
    ) {
      return 'credentials.secretKey and credentials.instanceUrl are required';
    }
    if (credentials.instanceUrl.includes('/cubejs-api')) return 'instanceUrl must leave out the API path suffix';
    return undefined;
  }

  /** A secretKey that is not a JWT, for a Cube outside Cube Cloud, while {@link coreRequiresJwt} holds. */
  private coreProblem(body: Record<string, unknown>): boolean {
    const credentials = isObject(body.credentials) ? body.credentials : undefined;
    const name = typeof body.name === 'string' ? body.name : undefined;
    const url =
      credentials?.instanceUrl ??
      (name === undefined ? undefined : this.dataProviders.get(name)?.credentials.instanceUrl);
    if (!this.coreRequiresJwt || typeof credentials?.secretKey !== 'string' || typeof url !== 'string') return false;
    return !CUBE_CLOUD_HOST.test(new URL(url).hostname) && !isJwtShaped(credentials.secretKey);
  }

  /**
   * What the service's backend sends the Cube of data provider `name` on the connection its record holds: on Cube
   * Cloud's (a secret), a token it signs per request with it, 60 s, with `Request-Origin: embeddable`; on Cube Core's
   * (a JWT), that token as it is, with the header unless `origin` is false. Resolves to the Cube's status.
   */
  async queryCube(name: string, { origin = true, securityContext = {} }: CubeQuery = {}): Promise<number> {
    const provider = this.dataProviders.get(name);
    if (!provider) throw new Error(`no data provider ${name}`);
    const { secretKey, instanceUrl } = provider.credentials;
    const core = isJwtShaped(secretKey);
    const token = core ? secretKey : sign(securityContext, secretKey, { algorithm: 'HS256', expiresIn: 60 });
    const response = await fetch(`${instanceUrl}/cubejs-api/v1/meta`, {
      headers: { authorization: token, ...((!core || origin) && { 'request-origin': 'embeddable' }) },
      signal: AbortSignal.timeout(5_000),
    });
    await response.arrayBuffer();
    return response.status;
  }

  private record(provider: DataProvider): Record<string, unknown> {
    const { secretKey, instanceUrl } = provider.credentials;
    return { ...provider, credentials: this.options.echoSecretKey ? { secretKey, instanceUrl } : { instanceUrl } };
  }

  private createProvider(body: unknown, res: ServerResponse): void {
    const fields = isObject(body) ? body : {};
    const problem = this.providerProblem(fields, true);
    if (problem) return refuse(res, 400, problem);
    const provider = fields as unknown as DataProvider;
    if (this.dataProviders.has(provider.name)) return refuse(res, 409, 'a data provider with this name exists'); // ASSUMED
    this.dataProviders.set(provider.name, provider);
    send(res, 201, this.record(provider)); // ASSUMED: response not shown
  }

  private updateProvider(name: string, body: unknown, res: ServerResponse): void {
    const fields = isObject(body) ? body : {};
    const problem = this.providerProblem({ ...fields, name }, false);
    if (problem) return refuse(res, 400, problem);
    const existing = this.dataProviders.get(name);
    if (!existing) return refuse(res, 404, 'no such data provider'); // ASSUMED
    const credentials = isObject(fields.credentials) ? fields.credentials : {};
    const updated = {
      ...existing,
      version: fields.version as string,
      credentials: { ...existing.credentials, ...credentials },
    };
    this.dataProviders.set(name, updated);
    send(res, 200, this.record(updated));
  }

  private readProvider(name: string, res: ServerResponse): void {
    const provider = this.dataProviders.get(name);
    if (!provider) return refuse(res, 404, 'no such data provider');
    send(res, 200, this.record(provider));
  }

  private deleteProvider(name: string, res: ServerResponse): void {
    if (!this.dataProviders.delete(name)) return refuse(res, 404, 'no such data provider');
    send(res, 204);
  }

  /**
   * Part 4.7. The reference spells the dashboard field `embbeddableId`; this server accepts either
   * spelling so that tests can assert which one the client sends. An unknown data provider makes the
   * request fail (part 7: status and code not shown; ASSUMED 400 without a code). Response ASSUMED `{ token }`.
   */
  private securityToken(body: unknown, res: ServerResponse): void {
    const fields = isObject(body) ? body : {};
    const dashboard = fields.embeddableId ?? fields.embbeddableId;
    if (typeof dashboard !== 'string' || !this.dashboards.has(dashboard)) return refuse(res, 400, 'unknown dashboard');
    if (!isObject(fields.securityContext)) return refuse(res, 400, 'securityContext must be an object');
    if (typeof fields.dataProvider !== 'string' || !this.dataProviders.has(fields.dataProvider)) {
      return refuse(res, 400, 'dataProvider does not match a data provider');
    }
    this.issuedTokens.push(fields);
    send(res, 200, { token: `tok_${randomBytes(12).toString('hex')}` });
  }
}

const FILLER = Buffer.alloc(64 * 1024, ' ');

/** Writes a {@link StreamedBody}, waiting whenever the client does not keep up, until done or closed. */
async function stream(res: ServerResponse, body: StreamedBody): Promise<StreamOutcome> {
  const closed = new Promise<void>((resolve) => res.once('close', resolve));
  res.writeHead(200, {
    'content-type': 'application/json',
    ...(body.contentLength !== undefined && { 'content-length': String(body.contentLength) }),
  });
  let sent = 0;
  while (sent < body.bytes && !res.destroyed) {
    const left = body.bytes - sent;
    // `[`, white space, `]`: valid JSON whatever the size, so a client without a limit parses it whole.
    const chunk =
      sent === 0
        ? Buffer.from('[')
        : left === 1
          ? Buffer.from(']')
          : FILLER.subarray(0, Math.min(FILLER.length, left - 1));
    sent += chunk.length;
    if (!res.write(chunk)) await Promise.race([new Promise((resolve) => res.once('drain', resolve)), closed]);
  }
  const complete = sent === body.bytes && !res.destroyed;
  if (complete && (body.contentLength === undefined || body.contentLength === body.bytes)) res.end();
  await closed;
  return { sent, complete };
}

export async function startContractServer(options: ContractServerOptions): Promise<ContractServer> {
  return new ContractServer(options).listen();
}
