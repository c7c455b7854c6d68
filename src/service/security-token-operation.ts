import type { EmbeddableClient } from './embeddable-client';
import { endpoints } from './endpoints';
import * as read from './responses';
import type { Send } from './transport';
import type { SecurityTokenRequest } from './types';
import * as check from './validate';

/** The fields of a token request that are checked, and so may not come through `extraFields`. */
const TOKEN_FIELDS = [
  'embeddableId',
  'securityContext',
  'dataProvider',
  'savedVersion',
  'expiryInSeconds',
  'user',
] as const satisfies ReadonlyArray<keyof SecurityTokenRequest>;

/** The client's security-token request (docs/service-client.md#security-token-request); never retried. */
export function securityTokenOperation(send: Send): Pick<EmbeddableClient, 'createSecurityToken'> {
  return {
    async createSecurityToken(request) {
      const operation = 'createSecurityToken';
      const fields = check.object('request', request, operation);
      const body = {
        ...(fields.extraFields !== undefined && check.extraFields(fields.extraFields, TOKEN_FIELDS, operation)),
        embeddableId: check.embeddableId(fields.embeddableId, operation),
        securityContext: check.securityContext(fields.securityContext, operation),
        dataProvider: check.text('dataProvider', fields.dataProvider, operation),
        ...(fields.savedVersion !== undefined && { savedVersion: check.savedVersion(fields.savedVersion, operation) }),
        ...(fields.expiryInSeconds !== undefined && {
          expiryInSeconds: check.positiveInteger('expiryInSeconds', fields.expiryInSeconds, operation),
        }),
        ...(fields.user !== undefined && { user: check.text('user', fields.user, operation) }),
      };
      return read.securityToken(
        operation,
        await send({ operation, endpoint: endpoints.createSecurityToken(), body, retry: false }),
      );
    },
  };
}
