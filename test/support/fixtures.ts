import { randomUUID } from 'node:crypto';
import type { Role, Scope } from '#lib/access/scopes';
import { createKey, type KeyServiceDeps } from '#lib/keys/lifecycle';
import { freshCaller } from './api.ts';

/** Something that can record a membership: test tables, or memberships in memory. */
interface MembershipWriter {
  setRole(userId: string, workspaceId: string, role: Role): Promise<void> | void;
}

/** A new user with one workspace membership, and their claims for a fresh login. */
export async function newMember(memberships: MembershipWriter, role: Role = 'editor') {
  const userId = `user-${randomUUID()}`;
  const workspaceId = randomUUID();
  await memberships.setRole(userId, workspaceId, role);
  return { userId, workspaceId, caller: freshCaller(userId) };
}

export interface IssueOptions {
  role?: Role;
  scopes?: Scope[];
  expiresInDays?: number;
  name?: string;
}

/** A new member and a key they created through the lifecycle use case. */
export async function issueKey(
  memberships: MembershipWriter,
  service: KeyServiceDeps,
  options: IssueOptions = {},
) {
  const member = await newMember(memberships, options.role ?? 'editor');
  const issued = await createKey(service, {
    userId: member.userId,
    name: options.name ?? 'k',
    workspaceIds: [member.workspaceId],
    scopes: options.scopes ?? ['svc.forms.read'],
    expiresInDays: options.expiresInDays,
  });
  return { ...member, ...issued, id: issued.metadata.id };
}

/**
 * A cursor whose tag no longer matches its payload: the tag's first character changed, which
 * always changes the tag's bytes (its last characters may carry unused bits, so a change there
 * can decode to the same tag).
 */
export function tamperedCursor(cursor: string): string {
  const at = cursor.indexOf('.') + 1;
  return `${cursor.slice(0, at)}${cursor[at] === 'A' ? 'B' : 'A'}${cursor.slice(at + 1)}`;
}
