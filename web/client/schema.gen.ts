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
         * Metadata only, never a secret or a digest. `status` filters; `next_cursor` is bound to the caller and answers 400 `invalid_cursor` to anyone else.
         */
        get: operations["listKeys"];
        put?: never;
        /**
         * Create an API key (shown once)
         * Needs a verified email and a login from the last 900 s. The body is JSON of at most 16 KiB (413 `payload_too_large` above). `workspace_ids` and `scopes` hold no duplicates (workspace ids compared case-insensitively): a duplicate is 400 `validation_failed` naming it.
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
         * Needs a verified email and a login from the last 900 s. No body, or `{}`.
         */
        post: operations["rotateKey"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    /** `DELETE`: Revoke a key, immediately and idempotently. `PATCH`: Narrow a key or a connected app. */
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
         * The key fails its next MCP call. Revoking a revoked key answers 200 with the original `revoked_at`; another user’s key is 404, as an unknown one.
         */
        delete: operations["revokeKey"];
        options?: never;
        head?: never;
        /**
         * Narrow a key or a connected app
         * Only narrows, so it needs no recent login: `tools` must be a subset of the credential’s own (or of every tool its scopes allow), else 400 naming the tool; `limits` may add a limit or lower one, never raise or remove one (400 naming it). The next MCP call obeys it. Writes `key.updated` with what it had before and after; the same values again write nothing. A revoked or expired credential is 409.
         */
        patch: operations["updateKey"];
        trace?: never;
    };
    /** `GET`: List the MCP server’s tools. */
    "/v1/mcp/tools": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the MCP server’s tools
         * The deployment’s catalogue (`mcpTools`), in the order people see it: each tool’s name, the scope a call needs, its title and whether the deployment states it destroys data. A credential’s `tools` and a policy’s `allowed_tools` name these.
         */
        get: operations["listMcpTools"];
        put?: never;
        post?: never;
        delete?: never;
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
         * The events of the key and of every key rotated from or into it (`key.created`, `key.rotated`, `key.revoked`, `key.leak_revoked`, `key.expiring`, `key.expired`). Each is written in the same transaction as the change it records. The same events are published to Amazon EventBridge (source `svc.mcp-api-keys`, detail-type = `type`, at least once: dedupe by `id`).
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
    /** `GET`: What a key (or connected app) did: calls by hour or day, refusals by reason, tools. */
    "/v1/mcp/api-keys/{key_id}/usage": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * What a key (or connected app) did: calls by hour or day, refusals by reason, tools
         * Counted where each call is verified and written at most once a minute per credential, so the last minute may not show yet. Every bucket of the range is listed, empty ones included. Another user’s key is not found.
         */
        get: operations["getKeyUsage"];
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
         * Only the workspace’s current `admin`s and `owner`s (read at the time of the call). Each key shows its creator and its access to this workspace, never its other workspaces. The cursor is bound to the caller and the workspace.
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
         * Only the workspace’s current `admin`s and `owner`s (read at the time of the call). The workspace leaves the key (and every key rotated from it): its next MCP call already lacks it. A key left with no workspace is revoked in the same transaction. Writes `key.workspace_removed` (and `key.revoked`); a repeat writes nothing. A key that never reached the workspace is 404.
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
         * Any current member may read it. Default: enabled, every scope, `max_expiry_days: null`.
         */
        get: operations["getWorkspacePolicy"];
        /**
         * Set the workspace’s policy; keys it refuses lose the workspace within 60 s
         * Only the workspace’s current `admin`s and `owner`s (read at the time of the call). Needs a verified email and a login from the last 900 s. Create and rotate obey it (403 `workspace_policy_denied`; `expires_in_days` above `max_expiry_days` is 400). Existing active keys it refuses (workspace disabled, a scope no longer allowed, a kind of credential or an app it no longer admits) are cut off asynchronously, each with its `key.workspace_removed` event (`reason: policy`); `affected_keys` counts them. Writes `workspace.policy_changed`; the same policy again writes nothing.
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
         * Only the workspace’s current `admin`s and `owner`s (read at the time of the call). The same events are published to Amazon EventBridge like the key events.
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
    /** `GET`: What the keys and connected apps reaching the workspace did, grouped, and revoked ones still presented. */
    "/v1/mcp/workspaces/{workspace_id}/usage": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * What the keys and connected apps reaching the workspace did, grouped, and revoked ones still presented
         * Only the workspace’s current `admin`s and `owner`s (read at the time of the call). Sums, by day, the usage of every credential that reaches or reached the workspace (its 1,000 newest), grouped by `group_by`, and lists those refused as revoked in the range.
         */
        get: operations["getWorkspaceUsage"];
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
         * No authentication: holding a key is the authority to kill it. The answer is the same whatever the strings were (real, already revoked or garbage), and comes no sooner than 250 ms. The owner is told through the `key.leak_revoked` event. 1–100 strings in at most 64 KiB (413 `payload_too_large` above). Throttled on its own (default 5 requests/s, burst 10).
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
         * Called by GitHub with `Github-Public-Key-Identifier` and `Github-Public-Key-Signature` (ECDSA P-256, SHA-256, over the raw body), checked before the body is read: no user token, a bad signature is 401. True positives are revoked; every match is answered by the SHA-256 of its token. 1–10,000 matches in at most 2 MiB (413 `payload_too_large` above).
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
         * The request belongs to the first user who opens it; for anyone else, and once it expired (10 minutes) or was decided, it is 404 `request_not_found`. When the person already gave this app a live grant for this MCP server, `grant` is that grant and `requested_scopes` only what the app adds (scope step-up).
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
         * Needs what creating a key needs (a verified email, a login from the last 900 s); the body is refused as create would refuse it (same status, code and per-workspace `errors`). A repeated approve answers the same `redirect_to`. When the request widens a live grant (its `grant`), the grant gets the approved scopes besides its own (`grant.updated`) and the approved `tools` (absent or null: every tool), the body names the grant’s workspaces and leaves `expires_in_days` out, and no second grant is made.
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
         * No body, or `{}`. A repeated deny answers the same `redirect_to`.
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
        CreateKeyResponse: CreateKeyResponse;
        KeyMetadata: KeyMetadata;
        Scope: Scope;
        WorkspaceRules: WorkspaceRules;
        Problem: Problem;
        GatewayUnauthorized: GatewayUnauthorized;
        CreateKeyRequest: CreateKeyRequest;
        Limits: Limits;
        ListKeysResponse: ListKeysResponse;
        KeyListItem: KeyListItem;
        RotateKeyResponse: RotateKeyResponse;
        EmptyBody: EmptyBody;
        RevokeKeyResponse: RevokeKeyResponse;
        UpdateKeyResponse: UpdateKeyResponse;
        UpdateKeyRequest: UpdateKeyRequest;
        ListMcpToolsResponse: ListMcpToolsResponse;
        McpTool: McpTool;
        ListEventsResponse: ListEventsResponse;
        KeyEvent: KeyEvent;
        GrantClient: GrantClient;
        CredentialUsage: CredentialUsage;
        UsageTally: UsageTally;
        ListWorkspaceKeysResponse: ListWorkspaceKeysResponse;
        WorkspaceKey: WorkspaceKey;
        CutOffKeyResponse: CutOffKeyResponse;
        WorkspacePolicyResponse: WorkspacePolicy;
        PutWorkspacePolicyResponse: PutWorkspacePolicyResponse;
        WorkspacePolicyRequest: WorkspacePolicyRequest;
        ListWorkspaceEventsResponse: ListWorkspaceEventsResponse;
        WorkspaceEvent: WorkspaceEvent;
        WorkspacePolicy: WorkspacePolicyRules;
        WorkspaceUsage: WorkspaceUsage;
        LeakReportResponse: LeakReportResponse;
        LeakReportRequest: LeakReportRequest;
        GithubSecretScanningVerdicts: GithubSecretScanningVerdicts;
        GithubSecretScanningMatches: GithubSecretScanningMatches;
        OAuthRequest: OAuthRequest;
        WidenedGrant: WidenedGrant;
        OAuthDecision: OAuthDecision;
        ApproveOAuthRequest: ApproveOAuthRequest;
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
            /** A page of keys. */
            200: {
                headers: {
                    /** Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ListKeysResponse"];
                };
            };
            /** `invalid_json`, `validation_failed`, `invalid_cursor` */
            400: {
                headers: {
                    /** Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** `unauthorized`; or API Gateway’s `{"message":"Unauthorized"}` */
            401: {
                headers: {
                    /** Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["GatewayUnauthorized"];
                };
            };
            /** `payload_too_large` */
            413: {
                headers: {
                    /** Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** `unsupported_media_type` */
            415: {
                headers: {
                    /** Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** `internal_error` */
            500: {
                headers: {
                    /** Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** `dependency_unavailable` */
            503: {
                headers: {
                    /** Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    /** Seconds to wait (2). */
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
            /** Created. `api_key` is shown only in this response. */
            201: {
                headers: {
                    /** Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    /** `no-store`: the body carries a secret. */
                    "cache-control"?: string;
                    /** The new key. */
                    location?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CreateKeyResponse"];
                };
            };
            /** `invalid_json`, `validation_failed` */
            400: {
                headers: {
                    /** Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** `unauthorized`, `reauthentication_required`; or API Gateway’s `{"message":"Unauthorized"}` */
            401: {
                headers: {
                    /** Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    /** RFC 9470 challenge: `Bearer error="insufficient_user_authentication", max_age="900"` */
                    "www-authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["GatewayUnauthorized"];
                };
            };
            /** `email_not_verified`, `account_disabled`, `workspace_access_denied`, `workspace_policy_denied` */
            403: {
                headers: {
                    /** Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** `key_limit_reached`, `conflict` */
            409: {
                headers: {
                    /** Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** `payload_too_large` */
            413: {
                headers: {
                    /** Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** `unsupported_media_type` */
            415: {
                headers: {
                    /** Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** `internal_error` */
            500: {
                headers: {
                    /** Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** `dependency_unavailable` */
            503: {
                headers: {
                    /** Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    /** Seconds to wait (2). */
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
            /** Rotated. The new `api_key` is shown only in this response. */
            201: {
                headers: {
                    /** Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    /** `no-store`: the body carries a secret. */
                    "cache-control"?: string;
                    /** The new key. */
                    location?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RotateKeyResponse"];
                };
            };
            /** `invalid_json`, `validation_failed` */
            400: {
                headers: {
                    /** Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** `unauthorized`, `reauthentication_required`; or API Gateway’s `{"message":"Unauthorized"}` */
            401: {
                headers: {
                    /** Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    /** RFC 9470 challenge: `Bearer error="insufficient_user_authentication", max_age="900"` */
                    "www-authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["GatewayUnauthorized"];
                };
            };
            /** `email_not_verified`, `account_disabled`, `workspace_policy_denied` */
            403: {
                headers: {
                    /** Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** `not_found` */
            404: {
                headers: {
                    /** Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** `not_rotatable`, `key_revoked`, `key_expired`, `conflict` */
            409: {
                headers: {
                    /** Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** `payload_too_large` */
            413: {
                headers: {
                    /** Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** `unsupported_media_type` */
            415: {
                headers: {
                    /** Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** `internal_error` */
            500: {
                headers: {
                    /** Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** `dependency_unavailable` */
            503: {
                headers: {
                    /** Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    /** Seconds to wait (2). */
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
            /** Revoked (or already revoked: the original `revoked_at`). */
            200: {
                headers: {
                    /** Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RevokeKeyResponse"];
                };
            };
            /** `invalid_json`, `validation_failed` */
            400: {
                headers: {
                    /** Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** `unauthorized`; or API Gateway’s `{"message":"Unauthorized"}` */
            401: {
                headers: {
                    /** Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["GatewayUnauthorized"];
                };
            };
            /** `not_found` */
            404: {
                headers: {
                    /** Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** `payload_too_large` */
            413: {
                headers: {
                    /** Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** `unsupported_media_type` */
            415: {
                headers: {
                    /** Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** `internal_error` */
            500: {
                headers: {
                    /** Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** `dependency_unavailable` */
            503: {
                headers: {
                    /** Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    /** Seconds to wait (2). */
                    "retry-after"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    /** `PATCH /v1/mcp/api-keys/{key_id}`: Narrow a key or a connected app. */
    updateKey: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                key_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["UpdateKeyRequest"];
            };
        };
        responses: {
            /** Narrowed (or unchanged). */
            200: {
                headers: {
                    /** Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UpdateKeyResponse"];
                };
            };
            /** `invalid_json`, `validation_failed` */
            400: {
                headers: {
                    /** Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** `unauthorized`; or API Gateway’s `{"message":"Unauthorized"}` */
            401: {
                headers: {
                    /** Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["GatewayUnauthorized"];
                };
            };
            /** `not_found` */
            404: {
                headers: {
                    /** Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** `key_revoked`, `key_expired`, `conflict` */
            409: {
                headers: {
                    /** Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** `payload_too_large` */
            413: {
                headers: {
                    /** Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** `unsupported_media_type` */
            415: {
                headers: {
                    /** Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** `internal_error` */
            500: {
                headers: {
                    /** Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** `dependency_unavailable` */
            503: {
                headers: {
                    /** Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    /** Seconds to wait (2). */
                    "retry-after"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    /** `GET /v1/mcp/tools`: List the MCP server’s tools. */
    listMcpTools: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** The catalogue. */
            200: {
                headers: {
                    /** Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ListMcpToolsResponse"];
                };
            };
            /** `invalid_json`, `validation_failed` */
            400: {
                headers: {
                    /** Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** `unauthorized`; or API Gateway’s `{"message":"Unauthorized"}` */
            401: {
                headers: {
                    /** Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["GatewayUnauthorized"];
                };
            };
            /** `payload_too_large` */
            413: {
                headers: {
                    /** Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** `unsupported_media_type` */
            415: {
                headers: {
                    /** Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** `internal_error` */
            500: {
                headers: {
                    /** Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** `dependency_unavailable` */
            503: {
                headers: {
                    /** Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    /** Seconds to wait (2). */
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
            /** A page of events. */
            200: {
                headers: {
                    /** Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ListEventsResponse"];
                };
            };
            /** `invalid_json`, `validation_failed`, `invalid_cursor` */
            400: {
                headers: {
                    /** Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** `unauthorized`; or API Gateway’s `{"message":"Unauthorized"}` */
            401: {
                headers: {
                    /** Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["GatewayUnauthorized"];
                };
            };
            /** `not_found` */
            404: {
                headers: {
                    /** Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** `payload_too_large` */
            413: {
                headers: {
                    /** Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** `unsupported_media_type` */
            415: {
                headers: {
                    /** Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** `internal_error` */
            500: {
                headers: {
                    /** Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** `dependency_unavailable` */
            503: {
                headers: {
                    /** Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    /** Seconds to wait (2). */
                    "retry-after"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    /** `GET /v1/mcp/api-keys/{key_id}/usage`: What a key (or connected app) did: calls by hour or day, refusals by reason, tools. */
    getKeyUsage: {
        parameters: {
            query?: {
                /** Start of the range (default: 30 days before `to` by day, 24 hours by hour) (ISO 8601), widened to whole buckets. */
                from?: string;
                /** End of the range (default: now) (ISO 8601), widened to whole buckets. */
                to?: string;
                /** Buckets of an hour (a range of at most 14 days) or a day (at most 92). Default: `day`. */
                granularity?: "hour" | "day";
            };
            header?: never;
            path: {
                key_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** The credential’s usage. */
            200: {
                headers: {
                    /** Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CredentialUsage"];
                };
            };
            /** `invalid_json`, `validation_failed` */
            400: {
                headers: {
                    /** Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** `unauthorized`; or API Gateway’s `{"message":"Unauthorized"}` */
            401: {
                headers: {
                    /** Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["GatewayUnauthorized"];
                };
            };
            /** `not_found` */
            404: {
                headers: {
                    /** Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** `payload_too_large` */
            413: {
                headers: {
                    /** Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** `unsupported_media_type` */
            415: {
                headers: {
                    /** Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** `internal_error` */
            500: {
                headers: {
                    /** Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** `dependency_unavailable` */
            503: {
                headers: {
                    /** Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    /** Seconds to wait (2). */
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
            /** A page of keys. */
            200: {
                headers: {
                    /** Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ListWorkspaceKeysResponse"];
                };
            };
            /** `invalid_json`, `validation_failed`, `invalid_cursor` */
            400: {
                headers: {
                    /** Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** `unauthorized`; or API Gateway’s `{"message":"Unauthorized"}` */
            401: {
                headers: {
                    /** Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["GatewayUnauthorized"];
                };
            };
            /** `workspace_admin_required` */
            403: {
                headers: {
                    /** Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** `payload_too_large` */
            413: {
                headers: {
                    /** Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** `unsupported_media_type` */
            415: {
                headers: {
                    /** Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** `internal_error` */
            500: {
                headers: {
                    /** Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** `dependency_unavailable` */
            503: {
                headers: {
                    /** Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    /** Seconds to wait (2). */
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
            /** Cut off (or already cut off). */
            200: {
                headers: {
                    /** Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CutOffKeyResponse"];
                };
            };
            /** `invalid_json`, `validation_failed` */
            400: {
                headers: {
                    /** Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** `unauthorized`; or API Gateway’s `{"message":"Unauthorized"}` */
            401: {
                headers: {
                    /** Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["GatewayUnauthorized"];
                };
            };
            /** `workspace_admin_required` */
            403: {
                headers: {
                    /** Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** `not_found` */
            404: {
                headers: {
                    /** Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** `conflict` */
            409: {
                headers: {
                    /** Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** `payload_too_large` */
            413: {
                headers: {
                    /** Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** `unsupported_media_type` */
            415: {
                headers: {
                    /** Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** `internal_error` */
            500: {
                headers: {
                    /** Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** `dependency_unavailable` */
            503: {
                headers: {
                    /** Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    /** Seconds to wait (2). */
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
            /** The policy. */
            200: {
                headers: {
                    /** Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WorkspacePolicyResponse"];
                };
            };
            /** `invalid_json`, `validation_failed` */
            400: {
                headers: {
                    /** Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** `unauthorized`; or API Gateway’s `{"message":"Unauthorized"}` */
            401: {
                headers: {
                    /** Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["GatewayUnauthorized"];
                };
            };
            /** `workspace_access_denied` */
            403: {
                headers: {
                    /** Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** `payload_too_large` */
            413: {
                headers: {
                    /** Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** `unsupported_media_type` */
            415: {
                headers: {
                    /** Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** `internal_error` */
            500: {
                headers: {
                    /** Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** `dependency_unavailable` */
            503: {
                headers: {
                    /** Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    /** Seconds to wait (2). */
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
            /** Stored; the cut-offs follow. */
            200: {
                headers: {
                    /** Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PutWorkspacePolicyResponse"];
                };
            };
            /** `invalid_json`, `validation_failed` */
            400: {
                headers: {
                    /** Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** `unauthorized`, `reauthentication_required`; or API Gateway’s `{"message":"Unauthorized"}` */
            401: {
                headers: {
                    /** Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    /** RFC 9470 challenge: `Bearer error="insufficient_user_authentication", max_age="900"` */
                    "www-authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["GatewayUnauthorized"];
                };
            };
            /** `email_not_verified`, `workspace_admin_required` */
            403: {
                headers: {
                    /** Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** `conflict` */
            409: {
                headers: {
                    /** Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** `payload_too_large` */
            413: {
                headers: {
                    /** Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** `unsupported_media_type` */
            415: {
                headers: {
                    /** Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** `internal_error` */
            500: {
                headers: {
                    /** Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** `dependency_unavailable` */
            503: {
                headers: {
                    /** Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    /** Seconds to wait (2). */
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
            /** A page of events. */
            200: {
                headers: {
                    /** Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ListWorkspaceEventsResponse"];
                };
            };
            /** `invalid_json`, `validation_failed`, `invalid_cursor` */
            400: {
                headers: {
                    /** Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** `unauthorized`; or API Gateway’s `{"message":"Unauthorized"}` */
            401: {
                headers: {
                    /** Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["GatewayUnauthorized"];
                };
            };
            /** `workspace_admin_required` */
            403: {
                headers: {
                    /** Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** `payload_too_large` */
            413: {
                headers: {
                    /** Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** `unsupported_media_type` */
            415: {
                headers: {
                    /** Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** `internal_error` */
            500: {
                headers: {
                    /** Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** `dependency_unavailable` */
            503: {
                headers: {
                    /** Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    /** Seconds to wait (2). */
                    "retry-after"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    /** `GET /v1/mcp/workspaces/{workspace_id}/usage`: What the keys and connected apps reaching the workspace did, grouped, and revoked ones still presented. */
    getWorkspaceUsage: {
        parameters: {
            query?: {
                /** Start of the range (default: 30 days before `to` by day, 24 hours by hour) (ISO 8601), widened to whole buckets. */
                from?: string;
                /** End of the range (default: now) (ISO 8601), widened to whole buckets. */
                to?: string;
                /** Totals per credential, per OAuth client (API keys under `api_key`) or per tool. Default: `credential`. */
                group_by?: "credential" | "client" | "tool";
            };
            header?: never;
            path: {
                workspace_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** The workspace’s usage. */
            200: {
                headers: {
                    /** Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WorkspaceUsage"];
                };
            };
            /** `invalid_json`, `validation_failed` */
            400: {
                headers: {
                    /** Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** `unauthorized`; or API Gateway’s `{"message":"Unauthorized"}` */
            401: {
                headers: {
                    /** Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["GatewayUnauthorized"];
                };
            };
            /** `workspace_admin_required` */
            403: {
                headers: {
                    /** Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** `payload_too_large` */
            413: {
                headers: {
                    /** Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** `unsupported_media_type` */
            415: {
                headers: {
                    /** Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** `internal_error` */
            500: {
                headers: {
                    /** Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** `dependency_unavailable` */
            503: {
                headers: {
                    /** Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    /** Seconds to wait (2). */
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
            /** Received. */
            202: {
                headers: {
                    /** Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["LeakReportResponse"];
                };
            };
            /** `invalid_json`, `validation_failed` */
            400: {
                headers: {
                    /** Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** `payload_too_large` */
            413: {
                headers: {
                    /** Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** `unsupported_media_type` */
            415: {
                headers: {
                    /** Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** `internal_error` */
            500: {
                headers: {
                    /** Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** `dependency_unavailable` */
            503: {
                headers: {
                    /** Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    /** Seconds to wait (2). */
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
            /** A label per match, in order. */
            200: {
                headers: {
                    /** Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["GithubSecretScanningVerdicts"];
                };
            };
            /** `invalid_json`, `validation_failed` */
            400: {
                headers: {
                    /** Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** `invalid_signature`; or API Gateway’s `{"message":"Unauthorized"}` */
            401: {
                headers: {
                    /** Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["GatewayUnauthorized"];
                };
            };
            /** `payload_too_large` */
            413: {
                headers: {
                    /** Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** `unsupported_media_type` */
            415: {
                headers: {
                    /** Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** `internal_error` */
            500: {
                headers: {
                    /** Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** `dependency_unavailable` */
            503: {
                headers: {
                    /** Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    /** Seconds to wait (2). */
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
            /** The request. */
            200: {
                headers: {
                    /** Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OAuthRequest"];
                };
            };
            /** `invalid_json`, `validation_failed` */
            400: {
                headers: {
                    /** Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** `unauthorized`; or API Gateway’s `{"message":"Unauthorized"}` */
            401: {
                headers: {
                    /** Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["GatewayUnauthorized"];
                };
            };
            /** `request_not_found` */
            404: {
                headers: {
                    /** Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** `payload_too_large` */
            413: {
                headers: {
                    /** Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** `unsupported_media_type` */
            415: {
                headers: {
                    /** Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** `internal_error` */
            500: {
                headers: {
                    /** Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** `dependency_unavailable` */
            503: {
                headers: {
                    /** Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    /** Seconds to wait (2). */
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
            /** Approved: send the browser to `redirect_to`. */
            200: {
                headers: {
                    /** Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OAuthDecision"];
                };
            };
            /** `invalid_json`, `validation_failed` */
            400: {
                headers: {
                    /** Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** `unauthorized`, `reauthentication_required`; or API Gateway’s `{"message":"Unauthorized"}` */
            401: {
                headers: {
                    /** Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    /** RFC 9470 challenge: `Bearer error="insufficient_user_authentication", max_age="900"` */
                    "www-authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["GatewayUnauthorized"];
                };
            };
            /** `email_not_verified`, `account_disabled`, `workspace_access_denied`, `workspace_policy_denied` */
            403: {
                headers: {
                    /** Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** `request_not_found` */
            404: {
                headers: {
                    /** Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** `key_limit_reached`, `conflict` */
            409: {
                headers: {
                    /** Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** `payload_too_large` */
            413: {
                headers: {
                    /** Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** `unsupported_media_type` */
            415: {
                headers: {
                    /** Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** `internal_error` */
            500: {
                headers: {
                    /** Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** `dependency_unavailable` */
            503: {
                headers: {
                    /** Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    /** Seconds to wait (2). */
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
            /** Denied: send the browser to `redirect_to`. */
            200: {
                headers: {
                    /** Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OAuthDecision"];
                };
            };
            /** `invalid_json`, `validation_failed` */
            400: {
                headers: {
                    /** Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** `unauthorized`; or API Gateway’s `{"message":"Unauthorized"}` */
            401: {
                headers: {
                    /** Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["GatewayUnauthorized"];
                };
            };
            /** `request_not_found` */
            404: {
                headers: {
                    /** Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** `payload_too_large` */
            413: {
                headers: {
                    /** Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** `unsupported_media_type` */
            415: {
                headers: {
                    /** Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** `internal_error` */
            500: {
                headers: {
                    /** Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** `dependency_unavailable` */
            503: {
                headers: {
                    /** Identifies the request in logs and in problem bodies. */
                    "x-request-id"?: string;
                    /** Seconds to wait (2). */
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
/** What `create` answers: the full key (`api_key`, shown once: never store it) and its metadata. */
export type CreateKeyResponse = {
    /** The full key, shown once. */
    api_key: string;
    metadata: KeyMetadata;
};
/** A key's metadata as the API answers it: never its secret or digest. `kind` tells a key from an app's grant. */
export type KeyMetadata = {
    /** Format: uuid */
    id: string;
    name: string;
    /** @example svc_mcp_v1_…Q9xZ */
    key_hint: string;
    scopes: Scope[];
    workspace_ids: string[];
    status: "active" | "revoked" | "expired";
    /** An ISO 8601 date-time, e.g. 2026-11-22T10:00:00.000Z */
    created_at: string;
    /** An ISO 8601 date-time, e.g. 2026-11-22T10:00:00.000Z */
    expires_at: string;
    /** An ISO 8601 date-time, e.g. 2026-11-22T10:00:00.000Z */
    last_used_at: string | null;
    /** An ISO 8601 date-time, e.g. 2026-11-22T10:00:00.000Z */
    revoked_at: string | null;
    /** Format: uuid */
    rotated_from: string | null;
    /** Format: uuid */
    replaced_by: string | null;
    /** Workspaces an administrator or a policy cut this key (or an earlier key of its rotation chain) off from. */
    removed_workspace_ids: string[];
    /** Its own tools; null: all its scopes allow. */
    tools: string[] | null;
    workspace_rules: WorkspaceRules;
    /** Its own limits; null: none. */
    limits: {
        per_minute: number | null;
        per_day: number | null;
    };
    /** The smallest limit per window: its own or a workspace policy’s (`by`). */
    effective_limits: {
        window: "minute" | "day";
        limit: number;
        by: "credential" | "policy";
        workspace_id?: string;
        /** Calls counted in the current window. */
        calls: number;
    }[];
    /**
     * `api_key`; `oauth_grant`: an app approved through OAuth; `enterprise_grant`: an app the person’s IdP let in. Grants cannot be rotated.
     */
    kind: "api_key" | "oauth_grant" | "enterprise_grant";
    /** For a grant: the app it was given to. */
    client?: {
        id: string;
        name: string;
        /** The host of the app’s metadata document; null for an app registered dynamically (unverified). */
        verified_domain: string | null;
    };
    /** For a consent grant: the host its app’s redirect URI points at. */
    redirect_host?: string;
    /** For an enterprise grant: its IdP’s host. */
    identity_provider?: string;
};
/** A scope a key or grant can hold. */
export type Scope = "svc.forms.read" | "svc.forms.write" | "svc.forms.generate";
/** By workspace: the tools, scopes and caps its policy leaves it, where it narrows it. */
export type WorkspaceRules = {
    [key: string]: {
        tools?: string[];
        scopes?: ("svc.forms.read" | "svc.forms.write" | "svc.forms.generate")[];
        per_minute?: number;
        per_day?: number;
    };
};
/** An RFC 9457 problem body as the API sends it. */
export type Problem = {
    type: string;
    title: string;
    status: number;
    detail: string;
    code: "invalid_json" | "validation_failed" | "invalid_cursor" | "unauthorized" | "reauthentication_required" | "invalid_signature" | "email_not_verified" | "account_disabled" | "workspace_access_denied" | "workspace_admin_required" | "workspace_policy_denied" | "not_found" | "request_not_found" | "key_revoked" | "key_expired" | "not_rotatable" | "conflict" | "key_limit_reached" | "payload_too_large" | "unsupported_media_type" | "internal_error" | "dependency_unavailable";
    request_id: string;
    errors?: {
        path: string;
        message: string;
    }[];
};
/** API Gateway’s answer to a missing, invalid or expired user token. */
export type GatewayUnauthorized = {
    message: "Unauthorized";
};
/** The body of `create`: a name, the workspaces and scopes the key reaches, and its lifetime in days. */
export type CreateKeyRequest = {
    /**
     * Trimmed of surrounding whitespace, then 1–100 characters with no control or format characters (Unicode categories Cc and Cf, e.g. the bidirectional override U+202E) and no line or paragraph separators.
     * @example Claude Desktop (laptop)
     */
    name: string;
    /** Distinct workspace ids, compared case-insensitively. */
    workspace_ids: string[];
    /** Distinct scope names. */
    scopes: Scope[];
    expires_in_days?: number;
    /** Tools it may call, each needing a scope it holds; null: all its scopes allow. */
    tools?: string[] | null;
    limits?: Limits;
};
/** Calls allowed per UTC minute and day; one left out is no limit. */
export type Limits = {
    per_minute?: number;
    per_day?: number;
};
/** A page of the caller's keys (`data`) and the cursor of the next page (`next_cursor`, null on the last). */
export type ListKeysResponse = {
    data: KeyListItem[];
    next_cursor: string | null;
};
/** A key or app of the caller's list: its metadata and its calls of the last seven days. */
export type KeyListItem = KeyMetadata & {
    /** Calls presenting the key in the last seven days, allowed or refused (written at most a minute late). */
    calls_7d: number;
};
/** What `rotate` answers: the new key (shown once), its metadata, and the revoked key's (`revoked_key`). */
export type RotateKeyResponse = {
    /** The full key, shown once. */
    api_key: string;
    metadata: KeyMetadata;
    revoked_key: KeyMetadata;
};
/** The `EmptyBody` schema of docs/openapi.json. */
export type EmptyBody = Record<string, never>;
/** What `revoke` answers: the revoked key's metadata. */
export type RevokeKeyResponse = {
    metadata: KeyMetadata;
};
/** The `UpdateKeyResponse` schema of docs/openapi.json. */
export type UpdateKeyResponse = {
    metadata: KeyMetadata;
};
/** The `UpdateKeyRequest` schema of docs/openapi.json. */
export type UpdateKeyRequest = {
    /** A subset of its tools. */
    tools?: string[];
    /** Limits added or lowered, never raised. */
    limits?: {
        per_minute?: number;
        per_day?: number;
    };
};
/** The `ListMcpToolsResponse` schema of docs/openapi.json. */
export type ListMcpToolsResponse = {
    data: McpTool[];
};
/** The `McpTool` schema of docs/openapi.json. */
export type McpTool = {
    /** @example list_forms */
    name: string;
    scope: "svc.forms.read" | "svc.forms.write" | "svc.forms.generate";
    title: string;
    /** The deployment states it destroys data. */
    destructive: boolean;
};
/** A page of a key's events (`data`), newest first, and the cursor of the next page. */
export type ListEventsResponse = {
    data: KeyEvent[];
    next_cursor: string | null;
};
/** One event of a key's history (contract §10); narrow on `type` to read its `details`. */
export type KeyEvent = {
    /**
     * Format: uuid
     * Unique; consumers of published events dedupe by it.
     */
    id: string;
    /** An ISO 8601 date-time, e.g. 2026-11-22T10:00:00.000Z */
    occurred_at: string;
    /** Format: uuid */
    key_id: string;
    /**
     * Format: uuid
     * The first key of the rotation chain.
     */
    lineage_id: string;
    user_id: string;
    actor: {
        type: "user" | "public_report" | "github_secret_scanning" | "workspace_admin" | "system" | "oauth_client" | "identity_provider";
        id: string | null;
    };
} & ({
    type: "key.created";
    details: {
        name: string;
        scopes: Scope[];
        workspace_ids: string[];
        /** An ISO 8601 date-time, e.g. 2026-11-22T10:00:00.000Z */
        expires_at: string;
        /** Format: uuid */
        rotated_from: string | null;
    };
} | {
    type: "key.rotated";
    details: {
        /** Format: uuid */
        replaced_by: string;
    };
} | {
    type: "key.revoked";
    details: {
        reason?: "identity_provider";
    };
} | {
    type: "key.leak_revoked";
    details: {
        /** Where the key was found (a URL), if known. */
        source: string | null;
    };
} | {
    type: "key.expiring";
    details: {
        /** An ISO 8601 date-time, e.g. 2026-11-22T10:00:00.000Z */
        expires_at: string;
        /** The threshold crossed. */
        days_left: 7 | 1;
    };
} | {
    type: "key.expired";
    details: {
        /** An ISO 8601 date-time, e.g. 2026-11-22T10:00:00.000Z */
        expires_at: string;
    };
} | {
    type: "key.workspace_removed";
    details: {
        /** Format: uuid */
        workspace_id: string;
        /**
         * `admin`: a workspace administrator cut the key off; `policy`: the workspace’s policy did.
         */
        reason: "admin" | "policy";
    };
} | {
    type: "key.updated";
    details: {
        tools_before?: string[] | null;
        tools_after?: string[] | null;
        limits_before?: {
            per_minute?: number;
            per_day?: number;
        } | null;
        limits_after?: {
            per_minute?: number;
            per_day?: number;
        };
    };
} | {
    type: "grant.created";
    details: {
        client: GrantClient;
        scopes: Scope[];
        workspace_ids: string[];
        /** An ISO 8601 date-time, e.g. 2026-11-22T10:00:00.000Z */
        expires_at: string;
        /**
         * `consent`, or `identity_provider` (an ID-JAG). Absent before enterprise grants.
         */
        via?: "consent" | "identity_provider";
        /** For `identity_provider`: the IdP’s issuer. */
        idp?: string;
    };
} | {
    type: "grant.updated";
    details: {
        /** Scopes added by a step-up. */
        scopes_added: Scope[];
        workspace_ids_added?: string[];
    };
} | {
    type: "grant.revoked";
    details: {
        /**
         * `user`: the person; `client`: the app; `admin`/`policy`: the workspace; `leak`: a leak report; `identity_provider`: their IdP; `code_replay`/`refresh_reuse`: a stolen code or refresh token.
         */
        reason: "user" | "client" | "admin" | "policy" | "leak" | "identity_provider" | "code_replay" | "refresh_reuse";
    };
});
/** The app an OAuth grant or sign-in request is for; `verified_domain` null: unverified (registered dynamically). */
export type GrantClient = {
    id: string;
    name: string;
    /** The host of the app’s metadata document; null for an app registered dynamically (unverified). */
    verified_domain: string | null;
};
/** The `CredentialUsage` schema of docs/openapi.json. */
export type CredentialUsage = {
    /** Format: uuid */
    credential_id: string;
    kind: "api_key" | "oauth_grant" | "enterprise_grant";
    granularity: "hour" | "day";
    /** An ISO 8601 date-time, e.g. 2026-11-22T10:00:00.000Z */
    from: string;
    /** An ISO 8601 date-time, e.g. 2026-11-22T10:00:00.000Z */
    to: string;
    total: UsageTally;
    buckets: {
        /** An ISO 8601 date-time, e.g. 2026-11-22T10:00:00.000Z */
        start: string;
        /** Every call presenting the credential, allowed or refused. */
        calls: number;
        /** Refused calls by reason (contract §7). */
        refused: {
            revoked?: number;
            expired?: number;
            no_access?: number;
            wrong_resource?: number;
            tool_not_allowed?: number;
            rate_limited?: number;
        };
        /** Allowed `tools/call`s by tool name (past 50 names in a bucket, `(other)`). */
        tools: {
            [key: string]: number;
        };
        /** Calls refused as `tool_not_allowed`, by tool name (contract §19). */
        refused_tools?: {
            [key: string]: number;
        };
        /** Allowed calls whose MCP method was not sent (older clients): their tool is unknown. */
        unnamed?: number;
    }[];
    /** The tools it may call in at least one workspace, by its scopes, its own list and the policies. */
    tools: string[];
    /** Those of `tools` it called in the last 30 days, whatever the range (contract §19). */
    tools_used_30d: string[];
    /** Its allowed calls of the last 30 days whose tool is unknown (the client sent no `Mcp-Method`, or no usable tool name): while any, restricting it to `tools_used_30d` may cut off a tool it uses. */
    calls_tool_unknown_30d: number;
};
/** The `UsageTally` schema of docs/openapi.json. */
export type UsageTally = {
    /** Every call presenting the credential, allowed or refused. */
    calls: number;
    /** Refused calls by reason (contract §7). */
    refused: {
        revoked?: number;
        expired?: number;
        no_access?: number;
        wrong_resource?: number;
        tool_not_allowed?: number;
        rate_limited?: number;
    };
    /** Allowed `tools/call`s by tool name (past 50 names in a bucket, `(other)`). */
    tools: {
        [key: string]: number;
    };
    /** Calls refused as `tool_not_allowed`, by tool name (contract §19). */
    refused_tools?: {
        [key: string]: number;
    };
    /** Allowed calls whose MCP method was not sent (older clients): their tool is unknown. */
    unnamed?: number;
};
/** A page of the keys that reach a workspace (`data`) and the cursor of the next page. */
export type ListWorkspaceKeysResponse = {
    data: WorkspaceKey[];
    next_cursor: string | null;
};
/** A key as a workspace's administrators see it: never its other workspaces. */
export type WorkspaceKey = {
    /** Format: uuid */
    id: string;
    name: string;
    /** @example svc_mcp_v1_…Q9xZ */
    key_hint: string;
    scopes: Scope[];
    /** The key’s creator. */
    user_id: string;
    /**
     * `removed` once the key was cut off from this workspace, whatever its state elsewhere.
     */
    status: "active" | "revoked" | "expired" | "removed";
    workspace_access: "active" | "removed";
    /** An ISO 8601 date-time, e.g. 2026-11-22T10:00:00.000Z */
    created_at: string;
    /** An ISO 8601 date-time, e.g. 2026-11-22T10:00:00.000Z */
    expires_at: string;
    /** An ISO 8601 date-time, e.g. 2026-11-22T10:00:00.000Z */
    last_used_at: string | null;
    /** An ISO 8601 date-time, e.g. 2026-11-22T10:00:00.000Z */
    revoked_at: string | null;
    /** Format: uuid */
    rotated_from: string | null;
    /** Format: uuid */
    replaced_by: string | null;
    kind: "api_key" | "oauth_grant" | "enterprise_grant";
    /** For a grant: the app it was given to. */
    client?: {
        id: string;
        name: string;
        /** The host of the app’s metadata document; null for an app registered dynamically (unverified). */
        verified_domain: string | null;
    };
    /** For an enterprise grant: its IdP’s host. */
    identity_provider?: string;
};
/** What `cutOff` answers: the key as the workspace's administrators now see it. */
export type CutOffKeyResponse = {
    metadata: WorkspaceKey;
};
/** The workspace's policy, as the API answers it. */
export type WorkspacePolicy = WorkspacePolicyRules & {
    /**
     * Format: date-time
     * Null while the default applies.
     * @example 2026-11-22T10:00:00.000Z
     */
    updated_at: string | null;
    updated_by: string | null;
};
/** What `putPolicy` answers: the saved policy and how many keys it cut off from the workspace (`affected_keys`). */
export type PutWorkspacePolicyResponse = WorkspacePolicy & {
    /** Active keys the new policy cuts off from the workspace; they lose it asynchronously, within 60 s. */
    affected_keys: number;
};
/** The body of `putPolicy`: MCP access, the kinds of credential, the scopes keys may hold, the longest lifetime, and which apps may connect. */
export type WorkspacePolicyRequest = {
    /**
     * `disabled`: no key may reach it.
     */
    mcp_access: "enabled" | "disabled";
    /** Scopes a key may hold for this workspace. */
    allowed_scopes: Scope[];
    /** Longest lifetime of a new or rotated key; `null`: the deployment maximum. */
    max_expiry_days: number | null;
    /** Which OAuth apps may connect (default `any`); grants it refuses are cut off. */
    oauth_clients?: ("any" | "verified") | string[];
    /** Which kinds of credential may reach it (default every kind); the keys or grants of a kind it no longer admits are cut off. */
    credential_kinds?: ("api_key" | "oauth_grant" | "enterprise_grant")[];
    /** Tools AI clients may call here; null: all. It narrows, never cuts off. */
    allowed_tools?: string[] | null;
    /** Calls per UTC minute for each credential; null: none. */
    max_calls_per_minute?: number | null;
    /** Calls per UTC day for each credential; null: none. */
    max_calls_per_day?: number | null;
};
/** A page of a workspace's governance events (`data`), newest first, and the cursor of the next page. */
export type ListWorkspaceEventsResponse = {
    data: WorkspaceEvent[];
    next_cursor: string | null;
};
/** A governance event: a cut-off or a policy change; narrow on `type` to read its `details`. */
export type WorkspaceEvent = {
    /** Format: uuid */
    id: string;
    type: "key.workspace_removed";
    /** An ISO 8601 date-time, e.g. 2026-11-22T10:00:00.000Z */
    occurred_at: string;
    /** Format: uuid */
    key_id: string;
    /** Format: uuid */
    lineage_id: string;
    /** The key’s creator. */
    user_id: string;
    actor: {
        type: "user" | "public_report" | "github_secret_scanning" | "workspace_admin" | "system" | "oauth_client" | "identity_provider";
        id: string | null;
    };
    details: {
        /** Format: uuid */
        workspace_id: string;
        /**
         * `admin`: a workspace administrator cut the key off; `policy`: the workspace’s policy did.
         */
        reason: "admin" | "policy";
    };
} | {
    /** Format: uuid */
    id: string;
    type: "workspace.policy_changed";
    /** An ISO 8601 date-time, e.g. 2026-11-22T10:00:00.000Z */
    occurred_at: string;
    key_id: null;
    lineage_id: null;
    user_id: null;
    actor: {
        type: "user" | "public_report" | "github_secret_scanning" | "workspace_admin" | "system" | "oauth_client" | "identity_provider";
        id: string | null;
    };
    details: {
        /** Format: uuid */
        workspace_id: string;
        before: WorkspacePolicyRules;
        after: WorkspacePolicyRules;
    };
};
/** A policy's rules without who set them when: what a `workspace.policy_changed` event's `before` and `after` hold. */
export type WorkspacePolicyRules = {
    mcp_access: "enabled" | "disabled";
    allowed_scopes: Scope[];
    max_expiry_days: number | null;
    /** Which OAuth apps may connect: `any`, `verified` (a metadata document) or a list of app domains. */
    oauth_clients: ("any" | "verified") | string[];
    credential_kinds?: ("api_key" | "oauth_grant" | "enterprise_grant")[];
    allowed_tools?: string[] | null;
    max_calls_per_minute?: number | null;
    max_calls_per_day?: number | null;
};
/** The `WorkspaceUsage` schema of docs/openapi.json. */
export type WorkspaceUsage = {
    /** Format: uuid */
    workspace_id: string;
    /** An ISO 8601 date-time, e.g. 2026-11-22T10:00:00.000Z */
    from: string;
    /** An ISO 8601 date-time, e.g. 2026-11-22T10:00:00.000Z */
    to: string;
    group_by: "credential" | "client" | "tool";
    total: UsageTally;
    /** At most 100 groups, the most used first. */
    groups: {
        /** The credential’s id, the client’s id (`api_key` for keys) or the tool’s name. */
        key: string;
        kind?: "api_key" | "oauth_grant" | "enterprise_grant";
        /** For a credential: its creator. */
        user_id?: string;
        /** For a client: its name. */
        client_name?: string;
        /** Every call presenting the credential, allowed or refused. */
        calls: number;
        /** Refused calls by reason (contract §7). */
        refused: {
            revoked?: number;
            expired?: number;
            no_access?: number;
            wrong_resource?: number;
            tool_not_allowed?: number;
            rate_limited?: number;
        };
        /** Allowed `tools/call`s by tool name (past 50 names in a bucket, `(other)`). */
        tools: {
            [key: string]: number;
        };
        /** Calls refused as `tool_not_allowed`, by tool name (contract §19). */
        refused_tools?: {
            [key: string]: number;
        };
        /** Allowed calls whose MCP method was not sent (older clients): their tool is unknown. */
        unnamed?: number;
    }[];
    /** Credentials refused as revoked in the range: the sign of a leaked or forgotten one. */
    revoked_still_presented: {
        /** Format: uuid */
        credential_id: string;
        kind: "api_key" | "oauth_grant" | "enterprise_grant";
        name: string;
        user_id: string;
        /** An ISO 8601 date-time, e.g. 2026-11-22T10:00:00.000Z */
        revoked_at: string | null;
        /** Calls refused as revoked in the range. */
        presented: number;
    }[];
    /** Active credentials older than the range holding write or destructive tools here that they did not call in the range (by default the last 30 days): least privilege suggests taking them away (contract §19). */
    unused_write_tools: {
        /** Format: uuid */
        credential_id: string;
        kind: "api_key" | "oauth_grant" | "enterprise_grant";
        name: string;
        user_id: string;
        /** Its write or destructive tools here that it did not call. */
        tools: string[];
        /** Its calls in the range whose tool is unknown. */
        calls_tool_unknown: number;
    }[];
};
/** The `LeakReportResponse` schema of docs/openapi.json. */
export type LeakReportResponse = {
    /** How many strings the report held. */
    received: number;
};
/** The `LeakReportRequest` schema of docs/openapi.json. */
export type LeakReportRequest = {
    /** Strings that may be keys; anything else is ignored. */
    keys: string[];
    /**
     * Format: uri
     * Where the keys were found.
     */
    source?: string;
};
/** The `GithubSecretScanningVerdicts` schema of docs/openapi.json. */
export type GithubSecretScanningVerdicts = {
    /** SHA-256 (hex) of the reported token. */
    token_hash: string;
    token_type: "svc_mcp_api_key";
    label: "true_positive" | "false_positive";
}[];
/** The `GithubSecretScanningMatches` schema of docs/openapi.json. */
export type GithubSecretScanningMatches = ({
    token: string;
    type?: string;
    url?: string;
    source?: string;
} & {
    [key: string]: unknown;
})[];
/** An app's sign-in request as the consent page shows it: the app, where it returns to, the scopes it asks for. */
export type OAuthRequest = {
    /** Format: uuid */
    id: string;
    client: GrantClient;
    /** Where the app will be sent back to (host, or the app’s scheme). */
    redirect_host: string;
    requested_scopes: Scope[];
    /** The MCP server the app asks to reach. */
    resource: string;
    /** An ISO 8601 date-time, e.g. 2026-11-22T10:00:00.000Z */
    expires_at: string;
    grant: WidenedGrant;
};
/** The live grant a request widens (step-up). */
export type WidenedGrant = {
    /** Format: uuid */
    id: string;
    scopes: Scope[];
    workspace_ids: string[];
    /** An ISO 8601 date-time, e.g. 2026-11-22T10:00:00.000Z */
    expires_at: string;
} | null;
/** Where the consent page sends the browser after a decision (`redirect_to`). */
export type OAuthDecision = {
    /** Where the browser goes next: the app with the code, or `error=access_denied`. */
    redirect_to: string;
};
/** The body of the consent client's `approve`: the workspaces, scopes and lifetime the person grants the app. */
export type ApproveOAuthRequest = {
    /** Distinct workspace ids, compared case-insensitively. */
    workspace_ids: string[];
    /** Distinct scope names. */
    scopes: Scope[];
    expires_in_days?: number;
    /** Tools it may call, each needing a scope it holds; null: all its scopes allow. */
    tools?: string[] | null;
    limits?: Limits;
};
/** The query parameters of each operation that has any, by `operationId`. */
export interface queries {
    /** `GET /v1/mcp/api-keys`: List the caller’s keys, newest first. */
    listKeys: {
        /** Page size, 1–100. */
        limit?: string;
        /** Opaque `next_cursor` of the previous page. */
        cursor?: string;
        /** Only keys with this status (default: all). */
        status?: "active" | "revoked" | "expired";
    };
    /** `GET /v1/mcp/api-keys/{key_id}/events`: A key’s history: the events of its whole lineage, newest first. */
    listKeyEvents: {
        /** Page size, 1–100. */
        limit?: string;
        /** Opaque `next_cursor` of the previous page. */
        cursor?: string;
    };
    /** `GET /v1/mcp/workspaces/{workspace_id}/api-keys`: The keys that reach (or reached) a workspace, of every creator, newest first. */
    listWorkspaceKeys: {
        /** Page size, 1–100. */
        limit?: string;
        /** Opaque `next_cursor` of the previous page. */
        cursor?: string;
        /** Only keys with this status in this workspace (`removed`: cut off from it). */
        status?: "active" | "revoked" | "expired" | "removed";
    };
    /** `GET /v1/mcp/workspaces/{workspace_id}/events`: The workspace’s governance history: cut-offs and policy changes, newest first. */
    listWorkspaceEvents: {
        /** Page size, 1–100. */
        limit?: string;
        /** Opaque `next_cursor` of the previous page. */
        cursor?: string;
    };
}
