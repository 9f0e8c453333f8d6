import * as z from 'zod';
import { LEAK_LIMITS } from '#lib/limits';

/** Request and response schemas of the leak routes (contract §11). */

const Reported = z.string().min(1, 'must not be empty').max(LEAK_LIMITS.maxStringLength);

export const LeakReportBody = z
  .strictObject({
    keys: z
      .array(Reported)
      .min(1, 'must list at least 1 string')
      .max(LEAK_LIMITS.maxKeys, `must list at most ${LEAK_LIMITS.maxKeys} strings`)
      .meta({ description: 'Strings that may be keys; anything else is ignored.' }),
    source: z
      .url({ protocol: /^https?$/, error: 'must be an http(s) URL' })
      .max(2048)
      .optional()
      .meta({ description: 'Where the keys were found.' }),
  })
  .meta({ id: 'LeakReportRequest' });

export const LeakReportResponse = z
  .object({ received: z.number().int().meta({ description: 'How many strings the report held.' }) })
  .meta({ id: 'LeakReportResponse' });

/** GitHub's match format; fields it may add later are accepted and ignored. */
export const GithubMatches = z
  .array(
    z.looseObject({
      token: Reported,
      type: z.string().max(256).optional(),
      url: z.string().max(2048).optional(),
      source: z.string().max(256).optional(),
    }),
  )
  .min(1, 'must hold at least 1 match')
  .max(LEAK_LIMITS.maxMatches, `must hold at most ${LEAK_LIMITS.maxMatches} matches`)
  .meta({ id: 'GithubSecretScanningMatches' });

export const GithubVerdicts = z
  .array(
    z.object({
      token_hash: z.string().meta({ description: 'SHA-256 (hex) of the reported token.' }),
      token_type: z.literal('svc_mcp_api_key'),
      label: z.enum(['true_positive', 'false_positive']),
    }),
  )
  .meta({ id: 'GithubSecretScanningVerdicts' });
