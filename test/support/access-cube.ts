// A Cube stand-in for `cube-dual-auth access` on 127.0.0.1: the package's own hook judges each token as Cube's gateway
// would have it judged, and /meta and /sql answer with what Cube 1.7.43 answered the authorization fixture
// (test/fixtures/access/, recorded from test/fixtures/authorization/cube-1/), chosen by the groups the hook gave.
import type { ServerResponse } from 'node:http';
import type { CheckAuth } from '../../src';
import recorded from '../fixtures/access/cube-1.7.43.json';
import { answer, type Handler } from './deployment';

/** A cube name and a parameter that would act on a terminal: served to the tenant "hostile". */
export const HOSTILE_CUBE = 'evil\u001b[2J\u202e';
export const HOSTILE_PARAM = '\u001b]0;owned\u0007';
/** The SQL of a cube no policy names (the fixture's `compilation` and `database`). */
const NO_CONDITION_SQL = {
  sql: { sql: ['SELECT "c".x "c__x" FROM (SELECT 1 AS one) AS "c"  GROUP BY 1 LIMIT 10000', []] },
};

/** A recorded answer, with the recorded tenant's parameter made this caller's. */
function recordedAnswer(response: ServerResponse, name: keyof typeof recorded, tenant: string): void {
  const { status, body } = recorded[name];
  answer(response, status, JSON.stringify(body).replaceAll('"acme"', JSON.stringify(tenant)));
}

/** The recorded answers of each caller, by the groups the hook gave it. */
/**
 * The stand-in's handler. Callers are told by the groups the hook gave: `embeddable` is the service, `analyst` an
 * identity provider's analyst, anything else a group no policy names; `nobody` is shown no cube. The tenant "slow"
 * is never answered, "boom" gets a 500, "hostile" names from {@link HOSTILE_CUBE} and {@link HOSTILE_PARAM}.
 */
export function cubeStandIn(checkAuth: CheckAuth): Handler {
  return (request, response) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    const req = { headers: request.headers };
    checkAuth(req, request.headers.authorization).then(
      (context) => {
        const { tenant, groups } = context as { tenant: string; groups: string[] };
        if (tenant === 'slow') return; // never answers
        if (tenant === 'boom') return answer(response, 500, JSON.stringify({ error: 'Error: Internal error' }));
        const caller = groups.includes('embeddable') ? 'service' : groups.includes('analyst') ? 'analyst' : 'intern';
        if (url.pathname.endsWith('/meta')) {
          if (groups.includes('nobody')) return answer(response, 200, JSON.stringify({ cubes: [] }));
          if (tenant === 'hostile')
            return answer(
              response,
              200,
              JSON.stringify({ cubes: [{ name: HOSTILE_CUBE, measures: [{ name: `${HOSTILE_CUBE}.count` }] }] }),
            );
          return recordedAnswer(response, `meta-${caller}`, tenant);
        }
        const query = JSON.parse(url.searchParams.get('query') ?? '{}') as { measures?: string[] };
        const member = query.measures?.[0];
        if (tenant === 'hostile')
          return answer(response, 200, JSON.stringify({ sql: { sql: ['SELECT 1 WHERE (x = ?)', [HOSTILE_PARAM]] } }));
        if (member === undefined) return answer(response, 200, JSON.stringify(NO_CONDITION_SQL));
        const name = {
          service: { 'orders.count': 'sql-service-count', 'embedded_orders.count': 'sql-service-view' },
          analyst: { 'orders.count': 'sql-service-count', 'embedded_orders.count': 'sql-analyst-view' },
          intern: { 'orders.count': 'sql-intern-count', 'embedded_orders.count': 'sql-analyst-view' },
        }[caller][member as 'orders.count'] as keyof typeof recorded;
        return recordedAnswer(response, name, tenant);
      },
      (error: { status?: number; message: string }) =>
        answer(response, error.status ?? 500, JSON.stringify({ error: error.message })),
    );
  };
}
