import type { ServerResponse } from 'node:http';
import { DeleteCommand, type DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import { z } from 'zod';
import { ROLES } from '#lib/access/scopes';
import type { McpKeyVerifierOptions } from '#lib/verifier';
import type { LocalEvents } from '../emulation/events.ts';
import { jsonBody, safeDecode, send } from '../emulation/http.ts';
import { MEMBERSHIPS_TABLE_NAME } from '../emulation/tables.ts';
import type { GithubDevSigner } from './github-dev.ts';
import type { LocalIssuer } from './issuer.ts';

const TokenRequest = z.strictObject({
  sub: z.string().min(1).max(256),
  email_verified: z.boolean().optional(),
  auth_age_seconds: z.number().int().min(0).max(31_536_000).optional(),
});
const MembershipRequest = z.strictObject({ role: z.enum(ROLES) });
const SweepRequest = z.strictObject({ now: z.iso.datetime({ offset: true }).optional() });
const Uuid = z.uuid();

export interface DevRouteDeps {
  /** Undefined when tokens come from a real identity provider. */
  issuer: LocalIssuer | undefined;
  doc: DynamoDBDocumentClient;
  events: Pick<LocalEvents, 'published' | 'sweep'>;
  /** Local mode's stand-in for GitHub's secret scanning key. */
  github: GithubDevSigner;
  /** What another process passes to `createMcpKeyVerifier` to verify against this service. */
  verifierOptions: () => McpKeyVerifierOptions;
}

/**
 * The dev-only routes of contracts §8, §10 and §11 (never deployed): tokens, memberships, the
 * published events, the expiry sweep and GitHub's stand-in signing key.
 */
export function devRoutes({ issuer, doc, events, github, verifierOptions }: DevRouteDeps) {
  return async (method: string, path: string, body: Buffer, res: ServerResponse): Promise<void> => {
    const parsed = () => jsonBody(body);
    if (method === 'POST' && path === '/_dev/token') {
      if (!issuer)
        return send(res, 404, { message: 'Not Found: tokens come from the configured identity provider' });
      const input = TokenRequest.safeParse(parsed());
      if (!input.success)
        return send(res, 400, { message: 'invalid token request', errors: input.error.issues });
      return send(res, 200, { token: await issuer.mint(input.data) }, { 'cache-control': 'no-store' });
    }
    // GitHub's key document format, and a signature over exactly the bytes received (contract §11).
    if (method === 'GET' && path === '/_dev/github/public-keys')
      return send(res, 200, { public_keys: github.publicKeys() });
    if (method === 'POST' && path === '/_dev/github/sign') return send(res, 200, github.sign(body));
    // Contract §16: an MCP server under development verifies against this service with these.
    if (method === 'GET' && path === '/_dev/verifier')
      return send(res, 200, verifierOptions(), { 'cache-control': 'no-store' });
    if (method === 'GET' && path === '/_dev/events')
      return send(res, 200, { data: await events.published() });
    if (method === 'POST' && path === '/_dev/sweep') {
      const input = SweepRequest.safeParse(parsed());
      if (!input.success) return send(res, 400, { message: 'now must be an ISO-8601 date-time' });
      const now = input.data.now ? new Date(input.data.now) : undefined;
      return send(res, 200, await events.sweep(now));
    }
    const m = /^\/_dev\/memberships\/([^/]+)\/([^/]+)$/.exec(path);
    if (m) {
      const userId = safeDecode(m[1] ?? '');
      const workspaceId = (m[2] ?? '').toLowerCase();
      if (!userId || !Uuid.safeParse(workspaceId).success) {
        return send(res, 400, { message: 'user_id must be non-empty and workspace_id a UUID' });
      }
      const key = { pk: userId, sk: workspaceId };
      if (method === 'PUT') {
        const input = MembershipRequest.safeParse(parsed());
        if (!input.success) return send(res, 400, { message: `role must be one of ${ROLES.join(', ')}` });
        await doc.send(
          new PutCommand({ TableName: MEMBERSHIPS_TABLE_NAME, Item: { ...key, role: input.data.role } }),
        );
        // The membership itself, so a person at a terminal sees that it worked.
        return send(res, 200, { user_id: userId, workspace_id: workspaceId, role: input.data.role });
      }
      if (method === 'DELETE') {
        await doc.send(new DeleteCommand({ TableName: MEMBERSHIPS_TABLE_NAME, Key: key }));
        return send(res, 204, undefined);
      }
    }
    return send(res, 404, { message: 'Not Found' });
  };
}
