import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findGateway, gatewayVersion, handlerErrorClass } from '../src/host-cube';
import { gatewayIn } from './support/cube';

/** Cube's class as its gateway constructs it: (status, type, message). */
const CLASS =
  'class CubejsHandlerError extends Error { constructor(status, type, message) { super(message); this.status = status; this.type = type; } }';

let root: string;
/** Where `@cubejs-backend/api-gateway` resolves, like a Cube project; and where it does not. */
let cubeProject: string;
let elsewhere: string;

beforeAll(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'host-cube-')));
  cubeProject = join(root, 'cube-project');
  elsewhere = join(root, 'elsewhere');
  mkdirSync(elsewhere, { recursive: true });
  gatewayIn(cubeProject, `${CLASS}\nmodule.exports = { CubejsHandlerError };\n`);
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('findGateway', () => {
  it("resolves Cube's gateway from the working directory, without loading it", () => {
    const file = join(cubeProject, 'node_modules', '@cubejs-backend', 'api-gateway', 'index.js');
    expect(findGateway(cubeProject)).toEqual({ kind: 'resolved', file, from: cubeProject });
    expect(require.cache[file]).toBeUndefined();
  });

  it('finds none where neither the working directory nor this package leads to Cube', () => {
    expect(findGateway(elsewhere)).toBeUndefined();
  });

  it("prefers the class's module already loaded in this process: the running Cube's", () => {
    const dir = join(root, 'running', 'node_modules', '@cubejs-backend', 'api-gateway', 'dist', 'src');
    mkdirSync(dir, { recursive: true });
    const file = join(dir, 'CubejsHandlerError.js');
    writeFileSync(file, `${CLASS}\nmodule.exports = { CubejsHandlerError };\n`);
    const loaded: unknown = createRequire(file)(file);
    try {
      expect(findGateway(cubeProject)).toEqual({ kind: 'loaded', file, exports: loaded });
    } finally {
      delete require.cache[file];
    }
  });
});

describe('handlerErrorClass', () => {
  it('loads the resolved gateway and gives its CubejsHandlerError', () => {
    const found = findGateway(cubeProject);
    const HandlerError = handlerErrorClass(found as NonNullable<typeof found>);
    expect(typeof HandlerError).toBe('function');
    expect(new (HandlerError as NonNullable<typeof HandlerError>)(403, 'Forbidden', 'no')).toMatchObject({
      status: 403,
      type: 'Forbidden',
      message: 'no',
    });
  });

  it('takes a module that exports the class itself, and gives null for one without it', () => {
    const itself = gatewayIn(join(root, 'itself'), `module.exports = ${CLASS};\n`);
    const none = gatewayIn(join(root, 'none'), 'module.exports = {};\n');
    expect(typeof handlerErrorClass({ kind: 'resolved', file: itself, from: root })).toBe('function');
    expect(handlerErrorClass({ kind: 'resolved', file: none, from: root })).toBeNull();
  });
});

describe('gatewayVersion', () => {
  it('reads the version of the gateway package a file belongs to, from the nearest package.json that names it', () => {
    const dist = join(cubeProject, 'node_modules', '@cubejs-backend', 'api-gateway', 'dist', 'src');
    mkdirSync(dist, { recursive: true });
    // A package.json of another name on the way up is passed over, as Cube's dist/ has none.
    writeFileSync(join(dist, 'package.json'), JSON.stringify({ type: 'commonjs' }));
    expect(gatewayVersion(join(dist, 'CubejsHandlerError.js'))).toBe('1.7.43');
  });

  it('is undefined without such a package.json, or when it names no version', () => {
    expect(gatewayVersion(join(elsewhere, 'index.js'))).toBeUndefined();
    const unversioned = gatewayIn(join(root, 'unversioned'), 'module.exports = {};\n', {
      name: '@cubejs-backend/api-gateway',
    });
    expect(gatewayVersion(unversioned)).toBeUndefined();
  });
});
