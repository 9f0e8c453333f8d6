// Generated from docs/openapi.json by `npm run openapi` (openapi-typescript). Do not edit.
// The typed clients and the key pages read the API's shapes from here.

/** The API's routes by path: each method's operation (`operations`). */
export interface paths {
    /** `POST`: Create an API key (shown once). `GET`: List the caller’s keys, newest first. */
    "/v1/mcp/api-keys": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the caller’s keys, newest first
         * @description Metadata only, never a secret or a digest. `status` filters; `next_cursor` is bound to the caller and answers 400 `invalid_cursor` to anyone else.
         */
        get: operations["listKeys"];
        put?: never;
        /**
         * Create an API key (shown once)
         * @description Needs a verified email and a login from the last 900 s. The body is JSON of at most 16 KiB (413 `payload_too_large` above). `workspace_ids` and `scopes` hold no duplicates (workspace ids compared case-insensitively): a duplicate is 400 `validation_failed` naming it.
         */
        post: operations["createKey"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    /** `POST`: Rotate a key: revoke it and mint its replacement atomically. */
    "/v1/mcp/api-keys/{key_id}/rotate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Rotate a key: revoke it and mint its replacement atomically
         * @description Needs a verified email and a login from the last 900 s. No body, or `{}`.
         */
        post: operations["rotateKey"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    /** `DELETE`: Revoke a key, immediately and idempotently. */
    "/v1/mcp/api-keys/{key_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Revoke a key, immediately and idempotently
         * @description The key fails its next MCP call. Revoking a revoked key answers 200 with the original `revoked_at`; another user’s key is 404, as an unknown one.
         */
        delete: operations["revokeKey"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    /** `GET`: A key’s history: the events of its whole lineage, newest first. */
    "/v1/mcp/api-keys/{key_id}/events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A key’s history: the events of its whole lineage, newest first
         * @description The events of the key and of every key rotated from or into it (`key.created`, `key.rotated`, `key.revoked`, `key.leak_revoked`, `key.expiring`, `key.expired`). Each is written in the same transaction as the change it records. The same events are published to Amazon EventBridge (source `svc.mcp-api-keys`, detail-type = `type`, at least once: dedupe by `id`).
         */
        get: operations["listKeyEvents"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    /** `GET`: The keys that reach (or reached) a workspace, of every creator, newest first. */
    "/v1/mcp/workspaces/{workspace_id}/api-keys": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The keys that reach (or reached) a workspace, of every creator, newest first
         * @description Only the workspace’s current `admin`s and `owner`s (read at the time of the call). Each key shows its creator and its access to this workspace, never its other workspaces. The cursor is bound to the caller and the workspace.
         */
        get: operations["listWorkspaceKeys"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    /** `DELETE`: Cut a key off from the workspace, at once and idempotently. */
    "/v1/mcp/workspaces/{workspace_id}/api-keys/{key_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Cut a key off from the workspace, at once and idempotently
         * @description Only the workspace’s current `admin`s and `owner`s (read at the time of the call). The workspace leaves the key (and every key rotated from it): its next MCP call already lacks it. A key left with no workspace is revoked in the same transaction. Writes `key.workspace_removed` (and `key.revoked`); a repeat writes nothing. A key that never reached the workspace is 404.
         */
        delete: operations["cutOffWorkspaceKey"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    /** `GET`: The workspace’s policy for MCP keys. `PUT`: Set the workspace’s policy; keys it refuses lose the workspace within 60 s. */
    "/v1/mcp/workspaces/{workspace_id}/policy": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The workspace’s policy for MCP keys
         * @description Any current member may read it. Default: enabled, every scope, `max_expiry_days: null`.
         */
        get: operations["getWorkspacePolicy"];
        /**
         * Set the workspace’s policy; keys it refuses lose the workspace within 60 s
         * @description Only the workspace’s current `admin`s and `owner`s (read at the time of the call). Needs a verified email and a login from the last 900 s. Create and rotate obey it (403 `workspace_policy_denied`; `expires_in_days` above `max_expiry_days` is 400). Existing active keys it refuses (workspace disabled, or a scope no longer allowed) are cut off asynchronously, each with its `key.workspace_removed` event (`reason: policy`); `affected_keys` counts them. Writes `workspace.policy_changed`; the same policy again writes nothing.
         */
        put: operations["putWorkspacePolicy"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    /** `GET`: The workspace’s governance history: cut-offs and policy changes, newest first. */
    "/v1/mcp/workspaces/{workspace_id}/events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The workspace’s governance history: cut-offs and policy changes, newest first
         * @description Only the workspace’s current `admin`s and `owner`s (read at the time of the call). The same events are published to Amazon EventBridge like the key events.
         */
        get: operations["listWorkspaceEvents"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    /** `POST`: Report leaked keys: each genuine, active one is revoked at once. */
    "/v1/mcp/leaked-keys": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Report leaked keys: each genuine, active one is revoked at once
         * @description No authentication: holding a key is the authority to kill it. The answer is the same whatever the strings were (real, already revoked or garbage), and comes no sooner than 250 ms. The owner is told through the `key.leak_revoked` event. 1–100 strings in at most 64 KiB (413 `payload_too_large` above). Throttled on its own (default 5 requests/s, burst 10).
         */
        post: operations["reportLeakedKeys"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    /** `POST`: GitHub secret scanning partner endpoint. */
    "/v1/mcp/secret-scanning/github": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * GitHub secret scanning partner endpoint
         * @description Called by GitHub with `Github-Public-Key-Identifier` and `Github-Public-Key-Signature` (ECDSA P-256, SHA-256, over the raw body), checked before the body is read: no user token, a bad signature is 401. True positives are revoked; every match is answered by the SHA-256 of its token. 1–10,000 matches in at most 2 MiB (413 `payload_too_large` above).
         */
        post: operations["githubSecretScanning"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    /** `GET`: Read an app’s sign-in request for the consent page. */
    "/v1/mcp/oauth/requests/{request_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Read an app’s sign-in request for the consent page
         * @description The request belongs to the first user who opens it; for anyone else, and once it expired (10 minutes) or was decided, it is 404 `request_not_found`.
         */
        get: operations["getOAuthRequest"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    /** `POST`: Approve an app’s sign-in request: the grant is created. */
    "/v1/mcp/oauth/requests/{request_id}/approve": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Approve an app’s sign-in request: the grant is created
         * @description Needs what creating a key needs (a verified email, a login from the last 900 s); the body is refused as create would refuse it (same status, code and per-workspace `errors`). A repeated approve answers the same `redirect_to`.
         */
        post: operations["approveOAuthRequest"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    /** `POST`: Deny an app’s sign-in request. */
    "/v1/mcp/oauth/requests/{request_id}/deny": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Deny an app’s sign-in request
         * @description No body, or `{}`. A repeated deny answers the same `redirect_to`.
         */
        post: operations["denyOAuthRequest"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
/** The API's reusable definitions; `schemas` holds the bodies' shapes. */
export interface components {
    /** The named schemas of the request and response bodies. */
    schemas: {
        CreateKeyResponse: {
            /** @description The full key, shown once. */
            api_key: string;
            metadata: components["schemas"]["KeyMetadata"];
        };
        KeyMetadata: {
            /** Format: uuid */
            id: string;
            name: string;
            /** @example svc_mcp_v1_…Q9xZ */
            key_hint: string;
            scopes: ("svc.forms.read" | "svc.forms.write" | "svc.forms.generate")[];
            workspace_ids: string[];
            /** @enum {string} */
            status: "active" | "revoked" | "expired";
            /**
             * Format: date-time
             * @example 2026-11-22T10:00:00.000Z
             */
            created_at: string;
            /**
             * Format: date-time
             * @example 2026-11-22T10:00:00.000Z
             */
            expires_at: string;
            /**
             * Format: date-time
             * @example 2026-11-22T10:00:00.000Z
             */
            last_used_at: string | null;
            /**
             * Format: date-time
             * @example 2026-11-22T10:00:00.000Z
             */
            revoked_at: string | null;
            /** Format: uuid */
            rotated_from: string | null;
            /** Format: uuid */
            replaced_by: string | null;
            /** @description Workspaces a workspace administrator (or the workspace’s policy) cut this key or an earlier key of its rotation chain off from. */
            removed_workspace_ids: string[];
            /**
             * @description `api_key` for a key; `oauth_grant` for an app connected through OAuth (it cannot be rotated).
             * @enum {string}
             */
            kind: "api_key" | "oauth_grant";
            /** @description For a grant: the app it was given to. */
            client?: {
                id: string;
                name: string;
                /** @description The host of the app’s metadata document; null for an app registered dynamically (unverified). */
                verified_domain: string | null;
            };
            /** @description For a grant: the host its app’s redirect URI points at. */
            redirect_host?: string;
        };
        Problem: {
            type: string;
            title: string;
            status: number;
            detail: string;
            /** @enum {string} */
            code: "invalid_json" | "validation_failed" | "invalid_cursor" | "unauthorized" | "reauthentication_required" | "invalid_signature" | "email_not_verified" | "workspace_access_denied" | "workspace_admin_required" | "workspace_policy_denied" | "not_found" | "request_not_found" | "key_revoked" | "key_expired" | "not_rotatable" | "conflict" | "key_limit_reached" | "payload_too_large" | "unsupported_media_type" | "internal_error" | "dependency_unavailable";
            request_id: string;
            errors?: {
                path: string;
                message: string;
            }[];
        };
        /** @description API Gateway’s answer to a missing, invalid or expired user token. */
        GatewayUnauthorized: {
            /** @enum {string} */
            message: "Unauthorized";
        };
        CreateKeyRequest: {
            /**
             * @description Trimmed of surrounding whitespace, then 1–100 characters with no control or format characters (Unicode categories Cc and Cf, e.g. the bidirectional override U+202E) and no line or paragraph separators.
             * @example Claude Desktop (laptop)
             */
            name: string;
            /** @description Distinct workspace ids, compared case-insensitively. */
            workspace_ids: string[];
            /** @description Distinct scope names. */
            scopes: ("svc.forms.read" | "svc.forms.write" | "svc.forms.generate")[];
            expires_in_days?: number;
        };
        ListKeysResponse: {
            data: components["schemas"]["KeyMetadata"][];
            next_cursor: string | null;
        };
        RotateKeyResponse: {
            /** @description The full key, shown once. */
            api_key: string;
            metadata: components["schemas"]["KeyMetadata"];
            revoked_key: components["schemas"]["KeyMetadata"];
        };
        EmptyBody: Record<string, never>;
        RevokeKeyResponse: {
            metadata: components["schemas"]["KeyMetadata"];
        };
        ListEventsResponse: {
            data: components["schemas"]["KeyEvent"][];
            next_cursor: string | null;
        };
        KeyEvent: {
            /**
             * Format: uuid
             * @description Unique; consumers of published events dedupe by it.
             */
            id: string;
            /** @enum {string} */
            type: "key.created";
            /**
             * Format: date-time
             * @example 2026-11-22T10:00:00.000Z
             */
            occurred_at: string;
            /** Format: uuid */
            key_id: string;
            /**
             * Format: uuid
             * @description The first key of the rotation chain.
             */
            lineage_id: string;
            user_id: string;
            actor: {
                /** @enum {string} */
                type: "user" | "public_report" | "github_secret_scanning" | "workspace_admin" | "system" | "oauth_client";
                id: string | null;
            };
            details: {
                name: string;
                scopes: ("svc.forms.read" | "svc.forms.write" | "svc.forms.generate")[];
                workspace_ids: string[];
                /**
                 * Format: date-time
                 * @example 2026-11-22T10:00:00.000Z
                 */
                expires_at: string;
                /** Format: uuid */
                rotated_from: string | null;
            };
        } | {
            /**
             * Format: uuid
             * @description Unique; consumers of published events dedupe by it.
             */
            id: string;
            /** @enum {string} */
            type: "key.rotated";
            /**
             * Format: date-time
             * @example 2026-11-22T10:00:00.000Z
             */
            occurred_at: string;
            /** Format: uuid */
            key_id: string;
            /**
             * Format: uuid
             * @description The first key of the rotation chain.
             */
            lineage_id: string;
            user_id: string;
            actor: {
                /** @enum {string} */
                type: "user" | "public_report" | "github_secret_scanning" | "workspace_admin" | "system" | "oauth_client";
                id: string | null;
            };
            details: {
                /** Format: uuid */
                replaced_by: string;
            };
        } | {
            /**
             * Format: uuid
             * @description Unique; consumers of published events dedupe by it.
             */
            id: string;
            /** @enum {string} */
            type: "key.revoked";
            /**
             * Format: date-time
             * @example 2026-11-22T10:00:00.000Z
             */
            occurred_at: string;
            /** Format: uuid */
            key_id: string;
            /**
             * Format: uuid
             * @description The first key of the rotation chain.
             */
            lineage_id: string;
            user_id: string;
            actor: {
                /** @enum {string} */
                type: "user" | "public_report" | "github_secret_scanning" | "workspace_admin" | "system" | "oauth_client";
                id: string | null;
            };
            details: Record<string, never>;
        } | {
            /**
             * Format: uuid
             * @description Unique; consumers of published events dedupe by it.
             */
            id: string;
            /** @enum {string} */
            type: "key.leak_revoked";
            /**
             * Format: date-time
             * @example 2026-11-22T10:00:00.000Z
             */
            occurred_at: string;
            /** Format: uuid */
            key_id: string;
            /**
             * Format: uuid
             * @description The first key of the rotation chain.
             */
            lineage_id: string;
            user_id: string;
            actor: {
                /** @enum {string} */
                type: "user" | "public_report" | "github_secret_scanning" | "workspace_admin" | "system" | "oauth_client";
                id: string | null;
            };
            details: {
                /** @description Where the key was found (a URL), if known. */
                source: string | null;
            };
        } | {
            /**
             * Format: uuid
             * @description Unique; consumers of published events dedupe by it.
             */
            id: string;
            /** @enum {string} */
            type: "key.expiring";
            /**
             * Format: date-time
             * @example 2026-11-22T10:00:00.000Z
             */
            occurred_at: string;
            /** Format: uuid */
            key_id: string;
            /**
             * Format: uuid
             * @description The first key of the rotation chain.
             */
            lineage_id: string;
            user_id: string;
            actor: {
                /** @enum {string} */
                type: "user" | "public_report" | "github_secret_scanning" | "workspace_admin" | "system" | "oauth_client";
                id: string | null;
            };
            details: {
                /**
                 * Format: date-time
                 * @example 2026-11-22T10:00:00.000Z
                 */
                expires_at: string;
                /** @description The threshold crossed. */
                days_left: 7 | 1;
            };
        } | {
            /**
             * Format: uuid
             * @description Unique; consumers of published events dedupe by it.
             */
            id: string;
            /** @enum {string} */
            type: "key.expired";
            /**
             * Format: date-time
             * @example 2026-11-22T10:00:00.000Z
             */
            occurred_at: string;
            /** Format: uuid */
            key_id: string;
            /**
             * Format: uuid
             * @description The first key of the rotation chain.
             */
            lineage_id: string;
            user_id: string;
            actor: {
                /** @enum {string} */
                type: "user" | "public_report" | "github_secret_scanning" | "workspace_admin" | "system" | "oauth_client";
                id: string | null;
            };
            details: {
                /**
                 * Format: date-time
                 * @example 2026-11-22T10:00:00.000Z
                 */
                expires_at: string;
            };
        } | {
            /**
             * Format: uuid
             * @description Unique; consumers of published events dedupe by it.
             */
            id: string;
            /** @enum {string} */
            type: "key.workspace_removed";
            /**
             * Format: date-time
             * @example 2026-11-22T10:00:00.000Z
             */
            occurred_at: string;
            /** Format: uuid */
            key_id: string;
            /**
             * Format: uuid
             * @description The first key of the rotation chain.
             */
            lineage_id: string;
            user_id: string;
            actor: {
                /** @enum {string} */
                type: "user" | "public_report" | "github_secret_scanning" | "workspace_admin" | "system" | "oauth_client";
                id: string | null;
            };
            details: {
                /** Format: uuid */
                workspace_id: string;
                /**
                 * @description `admin`: a workspace administrator cut the key off; `policy`: the workspace’s policy did.
                 * @enum {string}
                 */
                reason: "admin" | "policy";
            };
        } | {
            /**
             * Format: uuid
             * @description Unique; consumers of published events dedupe by it.
             */
            id: string;
            /** @enum {string} */
            type: "grant.created";
            /**
             * Format: date-time
             * @example 2026-11-22T10:00:00.000Z
             */
            occurred_at: string;
            /** Format: uuid */
            key_id: string;
            /**
             * Format: uuid
             * @description The first key of the rotation chain.
             */
            lineage_id: string;
            user_id: string;
            actor: {
                /** @enum {string} */
                type: "user" | "public_report" | "github_secret_scanning" | "workspace_admin" | "system" | "oauth_client";
                id: string | null;
            };
            details: {
                client: components["schemas"]["GrantClient"];
                scopes: ("svc.forms.read" | "svc.forms.write" | "svc.forms.generate")[];
                workspace_ids: string[];
                /**
                 * Format: date-time
                 * @example 2026-11-22T10:00:00.000Z
                 */
                expires_at: string;
            };
        } | {
            /**
             * Format: uuid
             * @description Unique; consumers of published events dedupe by it.
             */
            id: string;
            /** @enum {string} */
            type: "grant.revoked";
            /**
             * Format: date-time
             * @example 2026-11-22T10:00:00.000Z
             */
            occurred_at: string;
            /** Format: uuid */
            key_id: string;
            /**
             * Format: uuid
             * @description The first key of the rotation chain.
             */
            lineage_id: string;
            user_id: string;
            actor: {
                /** @enum {string} */
                type: "user" | "public_report" | "github_secret_scanning" | "workspace_admin" | "system" | "oauth_client";
                id: string | null;
            };
            details: {
                /**
                 * @description `user`: the person; `client`: the app itself; `admin`/`policy`: the workspace; `leak`: a leak report; `code_replay`/`refresh_reuse`: a stolen code or refresh token was presented.
                 * @enum {string}
                 */
                reason: "user" | "client" | "admin" | "policy" | "leak" | "code_replay" | "refresh_reuse";
            };
        };
        GrantClient: {
            id: string;
            name: string;
            /** @description The host of the app’s metadata document; null for an app registered dynamically (unverified). */
            verified_domain: string | null;
        };
        ListWorkspaceKeysResponse: {
            data: components["schemas"]["WorkspaceKey"][];
            next_cursor: string | null;
        };
        /** @description A key as the workspace’s administrators see it: never the key’s other workspaces. */
        WorkspaceKey: {
            /** Format: uuid */
            id: string;
            name: string;
            /** @example svc_mcp_v1_…Q9xZ */
            key_hint: string;
            scopes: ("svc.forms.read" | "svc.forms.write" | "svc.forms.generate")[];
            /** @description The key’s creator. */
            user_id: string;
            /**
             * @description `removed` once the key was cut off from this workspace, whatever its state elsewhere.
             * @enum {string}
             */
            status: "active" | "revoked" | "expired" | "removed";
            /** @enum {string} */
            workspace_access: "active" | "removed";
            /**
             * Format: date-time
             * @example 2026-11-22T10:00:00.000Z
             */
            created_at: string;
            /**
             * Format: date-time
             * @example 2026-11-22T10:00:00.000Z
             */
            expires_at: string;
            /**
             * Format: date-time
             * @example 2026-11-22T10:00:00.000Z
             */
            last_used_at: string | null;
            /**
             * Format: date-time
             * @example 2026-11-22T10:00:00.000Z
             */
            revoked_at: string | null;
            /** Format: uuid */
            rotated_from: string | null;
            /** Format: uuid */
            replaced_by: string | null;
            /** @enum {string} */
            kind: "api_key" | "oauth_grant";
            /** @description For a grant: the app it was given to. */
            client?: {
                id: string;
                name: string;
                /** @description The host of the app’s metadata document; null for an app registered dynamically (unverified). */
                verified_domain: string | null;
            };
        };
        CutOffKeyResponse: {
            metadata: components["schemas"]["WorkspaceKey"];
        };
        WorkspacePolicyResponse: {
            /** @enum {string} */
            mcp_access: "enabled" | "disabled";
            allowed_scopes: ("svc.forms.read" | "svc.forms.write" | "svc.forms.generate")[];
            max_expiry_days: number | null;
            /** @description Which OAuth apps may be connected to the workspace: `any`, `verified` (only apps identified by a metadata document) or the list of allowed app domains (each a metadata document’s host). Keys are not concerned. */
            oauth_clients: ("any" | "verified") | string[];
            /**
             * Format: date-time
             * @description Null while the default applies.
             * @example 2026-11-22T10:00:00.000Z
             */
            updated_at: string | null;
            updated_by: string | null;
        };
        PutWorkspacePolicyResponse: {
            /** @enum {string} */
            mcp_access: "enabled" | "disabled";
            allowed_scopes: ("svc.forms.read" | "svc.forms.write" | "svc.forms.generate")[];
            max_expiry_days: number | null;
            /** @description Which OAuth apps may be connected to the workspace: `any`, `verified` (only apps identified by a metadata document) or the list of allowed app domains (each a metadata document’s host). Keys are not concerned. */
            oauth_clients: ("any" | "verified") | string[];
            /**
             * Format: date-time
             * @description Null while the default applies.
             * @example 2026-11-22T10:00:00.000Z
             */
            updated_at: string | null;
            updated_by: string | null;
            /** @description Active keys the new policy cuts off from the workspace; they lose it asynchronously, within 60 s. */
            affected_keys: number;
        };
        WorkspacePolicyRequest: {
            /**
             * @description `disabled`: no key may reach it.
             * @enum {string}
             */
            mcp_access: "enabled" | "disabled";
            /** @description Scopes a key may hold for this workspace. */
            allowed_scopes: ("svc.forms.read" | "svc.forms.write" | "svc.forms.generate")[];
            /** @description Longest lifetime of a new or rotated key; `null`: the deployment maximum. */
            max_expiry_days: number | null;
            /** @description Which OAuth apps may be connected: `any` (when left out), `verified` or a list of app domains. Grants it no longer allows are cut off like keys. */
            oauth_clients?: ("any" | "verified") | string[];
        };
        ListWorkspaceEventsResponse: {
            data: components["schemas"]["WorkspaceEvent"][];
            next_cursor: string | null;
        };
        WorkspaceEvent: {
            /** Format: uuid */
            id: string;
            /** @enum {string} */
            type: "key.workspace_removed";
            /**
             * Format: date-time
             * @example 2026-11-22T10:00:00.000Z
             */
            occurred_at: string;
            /** Format: uuid */
            key_id: string;
            /** Format: uuid */
            lineage_id: string;
            /** @description The key’s creator. */
            user_id: string;
            actor: {
                /** @enum {string} */
                type: "user" | "public_report" | "github_secret_scanning" | "workspace_admin" | "system" | "oauth_client";
                id: string | null;
            };
            details: {
                /** Format: uuid */
                workspace_id: string;
                /**
                 * @description `admin`: a workspace administrator cut the key off; `policy`: the workspace’s policy did.
                 * @enum {string}
                 */
                reason: "admin" | "policy";
            };
        } | {
            /** Format: uuid */
            id: string;
            /** @enum {string} */
            type: "workspace.policy_changed";
            /**
             * Format: date-time
             * @example 2026-11-22T10:00:00.000Z
             */
            occurred_at: string;
            key_id: null;
            lineage_id: null;
            user_id: null;
            actor: {
                /** @enum {string} */
                type: "user" | "public_report" | "github_secret_scanning" | "workspace_admin" | "system" | "oauth_client";
                id: string | null;
            };
            details: {
                /** Format: uuid */
                workspace_id: string;
                before: components["schemas"]["WorkspacePolicy"];
                after: components["schemas"]["WorkspacePolicy"];
            };
        };
        WorkspacePolicy: {
            /** @enum {string} */
            mcp_access: "enabled" | "disabled";
            allowed_scopes: ("svc.forms.read" | "svc.forms.write" | "svc.forms.generate")[];
            max_expiry_days: number | null;
            /** @description Which OAuth apps may be connected to the workspace: `any`, `verified` (only apps identified by a metadata document) or the list of allowed app domains (each a metadata document’s host). Keys are not concerned. */
            oauth_clients: ("any" | "verified") | string[];
        };
        LeakReportResponse: {
            /** @description How many strings the report held. */
            received: number;
        };
        LeakReportRequest: {
            /** @description Strings that may be keys; anything else is ignored. */
            keys: string[];
            /**
             * Format: uri
             * @description Where the keys were found.
             */
            source?: string;
        };
        GithubSecretScanningVerdicts: {
            /** @description SHA-256 (hex) of the reported token. */
            token_hash: string;
            /** @enum {string} */
            token_type: "svc_mcp_api_key";
            /** @enum {string} */
            label: "true_positive" | "false_positive";
        }[];
        GithubSecretScanningMatches: ({
            token: string;
            type?: string;
            url?: string;
            source?: string;
        } & {
            [key: string]: unknown;
        })[];
        OAuthRequest: {
            /** Format: uuid */
            id: string;
            client: components["schemas"]["GrantClient"];
            /** @description Where the app will be sent back to (host, or the app’s scheme). */
            redirect_host: string;
            requested_scopes: ("svc.forms.read" | "svc.forms.write" | "svc.forms.generate")[];
            /** @description The MCP server the app asks to reach. */
            resource: string;
            /**
             * Format: date-time
             * @example 2026-11-22T10:00:00.000Z
             */
            expires_at: string;
        };
        OAuthDecision: {
            /** @description Where the page sends the browser next: the app’s redirect URI with the code (approve) or `error=access_denied` (deny). */
            redirect_to: string;
        };
        ApproveOAuthRequest: {
            /** @description Distinct workspace ids, compared case-insensitively. */
            workspace_ids: string[];
            /** @description Distinct scope names. */
            scopes: ("svc.forms.read" | "svc.forms.write" | "svc.forms.generate")[];
            expires_in_days?: number;
        };
    };
    /** The responses operations share. */
    responses: never;
    /** The parameters operations share. */
    parameters: never;
    /** The request bodies operations share. */
    requestBodies: never;
    /** The headers responses share. */
    headers: never;
    /** The path items routes share. */
    pathItems: never;
}
export type CreateKeyResponse = components['schemas']['CreateKeyResponse'];
export type KeyMetadata = components['schemas']['KeyMetadata'];
export type Problem = components['schemas']['Problem'];
export type GatewayUnauthorized = components['schemas']['GatewayUnauthorized'];
export type CreateKeyRequest = components['schemas']['CreateKeyRequest'];
export type ListKeysResponse = components['schemas']['ListKeysResponse'];
export type RotateKeyResponse = components['schemas']['RotateKeyResponse'];
export type EmptyBody = components['schemas']['EmptyBody'];
export type RevokeKeyResponse = components['schemas']['RevokeKeyResponse'];
export type ListEventsResponse = components['schemas']['ListEventsResponse'];
export type KeyEvent = components['schemas']['KeyEvent'];
export type GrantClient = components['schemas']['GrantClient'];
export type ListWorkspaceKeysResponse = components['schemas']['ListWorkspaceKeysResponse'];
export type WorkspaceKey = components['schemas']['WorkspaceKey'];
export type CutOffKeyResponse = components['schemas']['CutOffKeyResponse'];
export type WorkspacePolicyResponse = components['schemas']['WorkspacePolicyResponse'];
export type PutWorkspacePolicyResponse = components['schemas']['PutWorkspacePolicyResponse'];
export type WorkspacePolicyRequest = components['schemas']['WorkspacePolicyRequest'];
export type ListWorkspaceEventsResponse = components['schemas']['ListWorkspaceEventsResponse'];
export type WorkspaceEvent = components['schemas']['WorkspaceEvent'];
export type WorkspacePolicy = components['schemas']['WorkspacePolicy'];
export type LeakReportResponse = components['schemas']['LeakReportResponse'];
export type LeakReportRequest = components['schemas']['LeakReportRequest'];
export type GithubSecretScanningVerdicts = components['schemas']['GithubSecretScanningVerdicts'];
export type GithubSecretScanningMatches = components['schemas']['GithubSecretScanningMatches'];
export type OAuthRequest = components['schemas']['OAuthRequest'];
export type OAuthDecision = components['schemas']['OAuthDecision'];
export type ApproveOAuthRequest = components['schemas']['ApproveOAuthRequest'];
export type $defs = Record<string, never>;
/** The API's operations by `operationId`: parameters, request body and every response. */
export interface operations {
    /** `GET /v1/mcp/api-keys`: List the caller’s keys, newest first. */
    listKeys: {
        parameters: {
            query?: queries["listKeys"];
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of keys. */
            200: {
                headers: {
                    /** @description Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ListKeysResponse"];
                };
            };
            /** @description `invalid_json`, `validation_failed`, `invalid_cursor` */
            400: {
                headers: {
                    /** @description Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `unauthorized`; or API Gateway’s `{"message":"Unauthorized"}` */
            401: {
                headers: {
                    /** @description Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["GatewayUnauthorized"];
                };
            };
            /** @description `payload_too_large` */
            413: {
                headers: {
                    /** @description Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `unsupported_media_type` */
            415: {
                headers: {
                    /** @description Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `internal_error` */
            500: {
                headers: {
                    /** @description Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `dependency_unavailable` */
            503: {
                headers: {
                    /** @description Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    /** @description Seconds to wait (2). */
                    "retry-after"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    /** `POST /v1/mcp/api-keys`: Create an API key (shown once). */
    createKey: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CreateKeyRequest"];
            };
        };
        responses: {
            /** @description Created. `api_key` is shown only in this response. */
            201: {
                headers: {
                    /** @description Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    /** @description `no-store`: the body carries a secret. */
                    "cache-control"?: string;
                    /** @description The new key. */
                    location?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CreateKeyResponse"];
                };
            };
            /** @description `invalid_json`, `validation_failed` */
            400: {
                headers: {
                    /** @description Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `unauthorized`, `reauthentication_required`; or API Gateway’s `{"message":"Unauthorized"}` */
            401: {
                headers: {
                    /** @description Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    /** @description RFC 9470 challenge: `Bearer error="insufficient_user_authentication", max_age="900"` */
                    "www-authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["GatewayUnauthorized"];
                };
            };
            /** @description `email_not_verified`, `workspace_access_denied`, `workspace_policy_denied` */
            403: {
                headers: {
                    /** @description Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `key_limit_reached`, `conflict` */
            409: {
                headers: {
                    /** @description Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `payload_too_large` */
            413: {
                headers: {
                    /** @description Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `unsupported_media_type` */
            415: {
                headers: {
                    /** @description Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `internal_error` */
            500: {
                headers: {
                    /** @description Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `dependency_unavailable` */
            503: {
                headers: {
                    /** @description Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    /** @description Seconds to wait (2). */
                    "retry-after"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    /** `POST /v1/mcp/api-keys/{key_id}/rotate`: Rotate a key: revoke it and mint its replacement atomically. */
    rotateKey: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                key_id: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": components["schemas"]["EmptyBody"];
            };
        };
        responses: {
            /** @description Rotated. The new `api_key` is shown only in this response. */
            201: {
                headers: {
                    /** @description Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    /** @description `no-store`: the body carries a secret. */
                    "cache-control"?: string;
                    /** @description The new key. */
                    location?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RotateKeyResponse"];
                };
            };
            /** @description `invalid_json`, `validation_failed` */
            400: {
                headers: {
                    /** @description Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `unauthorized`, `reauthentication_required`; or API Gateway’s `{"message":"Unauthorized"}` */
            401: {
                headers: {
                    /** @description Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    /** @description RFC 9470 challenge: `Bearer error="insufficient_user_authentication", max_age="900"` */
                    "www-authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["GatewayUnauthorized"];
                };
            };
            /** @description `email_not_verified`, `workspace_policy_denied` */
            403: {
                headers: {
                    /** @description Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `not_found` */
            404: {
                headers: {
                    /** @description Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `not_rotatable`, `key_revoked`, `key_expired`, `conflict` */
            409: {
                headers: {
                    /** @description Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `payload_too_large` */
            413: {
                headers: {
                    /** @description Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `unsupported_media_type` */
            415: {
                headers: {
                    /** @description Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `internal_error` */
            500: {
                headers: {
                    /** @description Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `dependency_unavailable` */
            503: {
                headers: {
                    /** @description Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    /** @description Seconds to wait (2). */
                    "retry-after"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    /** `DELETE /v1/mcp/api-keys/{key_id}`: Revoke a key, immediately and idempotently. */
    revokeKey: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                key_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Revoked (or already revoked: the original `revoked_at`). */
            200: {
                headers: {
                    /** @description Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RevokeKeyResponse"];
                };
            };
            /** @description `invalid_json`, `validation_failed` */
            400: {
                headers: {
                    /** @description Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `unauthorized`; or API Gateway’s `{"message":"Unauthorized"}` */
            401: {
                headers: {
                    /** @description Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["GatewayUnauthorized"];
                };
            };
            /** @description `not_found` */
            404: {
                headers: {
                    /** @description Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `payload_too_large` */
            413: {
                headers: {
                    /** @description Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `unsupported_media_type` */
            415: {
                headers: {
                    /** @description Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `internal_error` */
            500: {
                headers: {
                    /** @description Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `dependency_unavailable` */
            503: {
                headers: {
                    /** @description Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    /** @description Seconds to wait (2). */
                    "retry-after"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    /** `GET /v1/mcp/api-keys/{key_id}/events`: A key’s history: the events of its whole lineage, newest first. */
    listKeyEvents: {
        parameters: {
            query?: queries["listKeyEvents"];
            header?: never;
            path: {
                key_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of events. */
            200: {
                headers: {
                    /** @description Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ListEventsResponse"];
                };
            };
            /** @description `invalid_json`, `validation_failed`, `invalid_cursor` */
            400: {
                headers: {
                    /** @description Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `unauthorized`; or API Gateway’s `{"message":"Unauthorized"}` */
            401: {
                headers: {
                    /** @description Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["GatewayUnauthorized"];
                };
            };
            /** @description `not_found` */
            404: {
                headers: {
                    /** @description Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `payload_too_large` */
            413: {
                headers: {
                    /** @description Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `unsupported_media_type` */
            415: {
                headers: {
                    /** @description Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `internal_error` */
            500: {
                headers: {
                    /** @description Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `dependency_unavailable` */
            503: {
                headers: {
                    /** @description Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    /** @description Seconds to wait (2). */
                    "retry-after"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    /** `GET /v1/mcp/workspaces/{workspace_id}/api-keys`: The keys that reach (or reached) a workspace, of every creator, newest first. */
    listWorkspaceKeys: {
        parameters: {
            query?: queries["listWorkspaceKeys"];
            header?: never;
            path: {
                workspace_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of keys. */
            200: {
                headers: {
                    /** @description Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ListWorkspaceKeysResponse"];
                };
            };
            /** @description `invalid_json`, `validation_failed`, `invalid_cursor` */
            400: {
                headers: {
                    /** @description Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `unauthorized`; or API Gateway’s `{"message":"Unauthorized"}` */
            401: {
                headers: {
                    /** @description Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["GatewayUnauthorized"];
                };
            };
            /** @description `workspace_admin_required` */
            403: {
                headers: {
                    /** @description Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `payload_too_large` */
            413: {
                headers: {
                    /** @description Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `unsupported_media_type` */
            415: {
                headers: {
                    /** @description Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `internal_error` */
            500: {
                headers: {
                    /** @description Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `dependency_unavailable` */
            503: {
                headers: {
                    /** @description Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    /** @description Seconds to wait (2). */
                    "retry-after"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    /** `DELETE /v1/mcp/workspaces/{workspace_id}/api-keys/{key_id}`: Cut a key off from the workspace, at once and idempotently. */
    cutOffWorkspaceKey: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                workspace_id: string;
                key_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Cut off (or already cut off). */
            200: {
                headers: {
                    /** @description Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CutOffKeyResponse"];
                };
            };
            /** @description `invalid_json`, `validation_failed` */
            400: {
                headers: {
                    /** @description Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `unauthorized`; or API Gateway’s `{"message":"Unauthorized"}` */
            401: {
                headers: {
                    /** @description Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["GatewayUnauthorized"];
                };
            };
            /** @description `workspace_admin_required` */
            403: {
                headers: {
                    /** @description Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `not_found` */
            404: {
                headers: {
                    /** @description Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `conflict` */
            409: {
                headers: {
                    /** @description Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `payload_too_large` */
            413: {
                headers: {
                    /** @description Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `unsupported_media_type` */
            415: {
                headers: {
                    /** @description Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `internal_error` */
            500: {
                headers: {
                    /** @description Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `dependency_unavailable` */
            503: {
                headers: {
                    /** @description Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    /** @description Seconds to wait (2). */
                    "retry-after"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    /** `GET /v1/mcp/workspaces/{workspace_id}/policy`: The workspace’s policy for MCP keys. */
    getWorkspacePolicy: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                workspace_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The policy. */
            200: {
                headers: {
                    /** @description Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WorkspacePolicyResponse"];
                };
            };
            /** @description `invalid_json`, `validation_failed` */
            400: {
                headers: {
                    /** @description Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `unauthorized`; or API Gateway’s `{"message":"Unauthorized"}` */
            401: {
                headers: {
                    /** @description Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["GatewayUnauthorized"];
                };
            };
            /** @description `workspace_access_denied` */
            403: {
                headers: {
                    /** @description Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `payload_too_large` */
            413: {
                headers: {
                    /** @description Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `unsupported_media_type` */
            415: {
                headers: {
                    /** @description Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `internal_error` */
            500: {
                headers: {
                    /** @description Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `dependency_unavailable` */
            503: {
                headers: {
                    /** @description Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    /** @description Seconds to wait (2). */
                    "retry-after"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    /** `PUT /v1/mcp/workspaces/{workspace_id}/policy`: Set the workspace’s policy; keys it refuses lose the workspace within 60 s. */
    putWorkspacePolicy: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                workspace_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["WorkspacePolicyRequest"];
            };
        };
        responses: {
            /** @description Stored; the cut-offs follow. */
            200: {
                headers: {
                    /** @description Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PutWorkspacePolicyResponse"];
                };
            };
            /** @description `invalid_json`, `validation_failed` */
            400: {
                headers: {
                    /** @description Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `unauthorized`, `reauthentication_required`; or API Gateway’s `{"message":"Unauthorized"}` */
            401: {
                headers: {
                    /** @description Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    /** @description RFC 9470 challenge: `Bearer error="insufficient_user_authentication", max_age="900"` */
                    "www-authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["GatewayUnauthorized"];
                };
            };
            /** @description `email_not_verified`, `workspace_admin_required` */
            403: {
                headers: {
                    /** @description Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `conflict` */
            409: {
                headers: {
                    /** @description Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `payload_too_large` */
            413: {
                headers: {
                    /** @description Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `unsupported_media_type` */
            415: {
                headers: {
                    /** @description Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `internal_error` */
            500: {
                headers: {
                    /** @description Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `dependency_unavailable` */
            503: {
                headers: {
                    /** @description Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    /** @description Seconds to wait (2). */
                    "retry-after"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    /** `GET /v1/mcp/workspaces/{workspace_id}/events`: The workspace’s governance history: cut-offs and policy changes, newest first. */
    listWorkspaceEvents: {
        parameters: {
            query?: queries["listWorkspaceEvents"];
            header?: never;
            path: {
                workspace_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of events. */
            200: {
                headers: {
                    /** @description Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ListWorkspaceEventsResponse"];
                };
            };
            /** @description `invalid_json`, `validation_failed`, `invalid_cursor` */
            400: {
                headers: {
                    /** @description Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `unauthorized`; or API Gateway’s `{"message":"Unauthorized"}` */
            401: {
                headers: {
                    /** @description Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["GatewayUnauthorized"];
                };
            };
            /** @description `workspace_admin_required` */
            403: {
                headers: {
                    /** @description Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `payload_too_large` */
            413: {
                headers: {
                    /** @description Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `unsupported_media_type` */
            415: {
                headers: {
                    /** @description Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `internal_error` */
            500: {
                headers: {
                    /** @description Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `dependency_unavailable` */
            503: {
                headers: {
                    /** @description Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    /** @description Seconds to wait (2). */
                    "retry-after"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    /** `POST /v1/mcp/leaked-keys`: Report leaked keys: each genuine, active one is revoked at once. */
    reportLeakedKeys: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["LeakReportRequest"];
            };
        };
        responses: {
            /** @description Received. */
            202: {
                headers: {
                    /** @description Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["LeakReportResponse"];
                };
            };
            /** @description `invalid_json`, `validation_failed` */
            400: {
                headers: {
                    /** @description Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `payload_too_large` */
            413: {
                headers: {
                    /** @description Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `unsupported_media_type` */
            415: {
                headers: {
                    /** @description Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `internal_error` */
            500: {
                headers: {
                    /** @description Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `dependency_unavailable` */
            503: {
                headers: {
                    /** @description Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    /** @description Seconds to wait (2). */
                    "retry-after"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    /** `POST /v1/mcp/secret-scanning/github`: GitHub secret scanning partner endpoint. */
    githubSecretScanning: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["GithubSecretScanningMatches"];
            };
        };
        responses: {
            /** @description A label per match, in order. */
            200: {
                headers: {
                    /** @description Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["GithubSecretScanningVerdicts"];
                };
            };
            /** @description `invalid_json`, `validation_failed` */
            400: {
                headers: {
                    /** @description Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `invalid_signature`; or API Gateway’s `{"message":"Unauthorized"}` */
            401: {
                headers: {
                    /** @description Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["GatewayUnauthorized"];
                };
            };
            /** @description `payload_too_large` */
            413: {
                headers: {
                    /** @description Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `unsupported_media_type` */
            415: {
                headers: {
                    /** @description Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `internal_error` */
            500: {
                headers: {
                    /** @description Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `dependency_unavailable` */
            503: {
                headers: {
                    /** @description Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    /** @description Seconds to wait (2). */
                    "retry-after"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    /** `GET /v1/mcp/oauth/requests/{request_id}`: Read an app’s sign-in request for the consent page. */
    getOAuthRequest: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                request_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The request. */
            200: {
                headers: {
                    /** @description Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OAuthRequest"];
                };
            };
            /** @description `invalid_json`, `validation_failed` */
            400: {
                headers: {
                    /** @description Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `unauthorized`; or API Gateway’s `{"message":"Unauthorized"}` */
            401: {
                headers: {
                    /** @description Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["GatewayUnauthorized"];
                };
            };
            /** @description `request_not_found` */
            404: {
                headers: {
                    /** @description Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `payload_too_large` */
            413: {
                headers: {
                    /** @description Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `unsupported_media_type` */
            415: {
                headers: {
                    /** @description Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `internal_error` */
            500: {
                headers: {
                    /** @description Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `dependency_unavailable` */
            503: {
                headers: {
                    /** @description Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    /** @description Seconds to wait (2). */
                    "retry-after"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    /** `POST /v1/mcp/oauth/requests/{request_id}/approve`: Approve an app’s sign-in request: the grant is created. */
    approveOAuthRequest: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                request_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ApproveOAuthRequest"];
            };
        };
        responses: {
            /** @description Approved: send the browser to `redirect_to`. */
            200: {
                headers: {
                    /** @description Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OAuthDecision"];
                };
            };
            /** @description `invalid_json`, `validation_failed` */
            400: {
                headers: {
                    /** @description Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `unauthorized`, `reauthentication_required`; or API Gateway’s `{"message":"Unauthorized"}` */
            401: {
                headers: {
                    /** @description Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    /** @description RFC 9470 challenge: `Bearer error="insufficient_user_authentication", max_age="900"` */
                    "www-authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["GatewayUnauthorized"];
                };
            };
            /** @description `email_not_verified`, `workspace_access_denied`, `workspace_policy_denied` */
            403: {
                headers: {
                    /** @description Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `request_not_found` */
            404: {
                headers: {
                    /** @description Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `key_limit_reached`, `conflict` */
            409: {
                headers: {
                    /** @description Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `payload_too_large` */
            413: {
                headers: {
                    /** @description Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `unsupported_media_type` */
            415: {
                headers: {
                    /** @description Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `internal_error` */
            500: {
                headers: {
                    /** @description Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `dependency_unavailable` */
            503: {
                headers: {
                    /** @description Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    /** @description Seconds to wait (2). */
                    "retry-after"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    /** `POST /v1/mcp/oauth/requests/{request_id}/deny`: Deny an app’s sign-in request. */
    denyOAuthRequest: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                request_id: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": components["schemas"]["EmptyBody"];
            };
        };
        responses: {
            /** @description Denied: send the browser to `redirect_to`. */
            200: {
                headers: {
                    /** @description Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OAuthDecision"];
                };
            };
            /** @description `invalid_json`, `validation_failed` */
            400: {
                headers: {
                    /** @description Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `unauthorized`; or API Gateway’s `{"message":"Unauthorized"}` */
            401: {
                headers: {
                    /** @description Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["GatewayUnauthorized"];
                };
            };
            /** @description `request_not_found` */
            404: {
                headers: {
                    /** @description Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `payload_too_large` */
            413: {
                headers: {
                    /** @description Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `unsupported_media_type` */
            415: {
                headers: {
                    /** @description Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `internal_error` */
            500: {
                headers: {
                    /** @description Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `dependency_unavailable` */
            503: {
                headers: {
                    /** @description Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    /** @description Seconds to wait (2). */
                    "retry-after"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
}
/** The query parameters of each operation that has any, by `operationId`. */
export interface queries {
    /** `GET /v1/mcp/api-keys`: List the caller’s keys, newest first. */
    listKeys: {
        /** @description Page size, 1–100. */
        limit?: string;
        /** @description Opaque `next_cursor` of the previous page. */
        cursor?: string;
        /** @description Only keys with this status (default: all). */
        status?: "active" | "revoked" | "expired";
    };
    /** `GET /v1/mcp/api-keys/{key_id}/events`: A key’s history: the events of its whole lineage, newest first. */
    listKeyEvents: {
        /** @description Page size, 1–100. */
        limit?: string;
        /** @description Opaque `next_cursor` of the previous page. */
        cursor?: string;
    };
    /** `GET /v1/mcp/workspaces/{workspace_id}/api-keys`: The keys that reach (or reached) a workspace, of every creator, newest first. */
    listWorkspaceKeys: {
        /** @description Page size, 1–100. */
        limit?: string;
        /** @description Opaque `next_cursor` of the previous page. */
        cursor?: string;
        /** @description Only keys with this status in this workspace (`removed`: cut off from it). */
        status?: "active" | "revoked" | "expired" | "removed";
    };
    /** `GET /v1/mcp/workspaces/{workspace_id}/events`: The workspace’s governance history: cut-offs and policy changes, newest first. */
    listWorkspaceEvents: {
        /** @description Page size, 1–100. */
        limit?: string;
        /** @description Opaque `next_cursor` of the previous page. */
        cursor?: string;
    };
}
